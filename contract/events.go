package contract

import "strings"

// The EventBridge events of AWS Batch service jobs that the observer reads
// (and the monitoring construct's rule matches).
const (
	BatchEventSource     = "aws.batch"
	BatchServiceJobEvent = "Batch Service Job State Change"
)

// Cancellation through trainq.
const (
	// CancelReasonPrefix starts the reason the submission function gives
	// AWS Batch when it terminates a job. Batch reports the reason as the
	// job's statusReason, so that the observer counts the job as cancelled
	// (JobsCancelled), not failed.
	CancelReasonPrefix = "trainq: cancelled"
	// DefaultCancelReason is recorded when a cancel request gives no
	// reason.
	DefaultCancelReason = "through trainq"
)

// CancelReason is the reason given to TerminateServiceJob, which the job
// keeps as its status reason: CancelReasonPrefix, " by " and who cancelled
// it (ChangedBy: the alias, or the operator) when known, ": ", then reason,
// or DefaultCancelReason when reason is empty.
func CancelReason(by, reason string) string {
	if reason == "" {
		reason = DefaultCancelReason
	}
	if by != "" {
		return CancelReasonPrefix + " by " + by + ": " + reason
	}
	return CancelReasonPrefix + ": " + reason
}

// ChangedBy names who changed a job, for its status reason and the
// TagReprioritizedBy tag: "alias <name>" for a caller of a (class, team)
// alias, "operator" for an unqualified invocation. Both are valid tag values.
func ChangedBy(alias string) string {
	if alias == "" {
		return "operator"
	}
	return "alias " + alias
}

// ChangedByRole names who changed a job by the caller's verified role:
// "role <name>", or "operator <name>" for an operator, the role name cut to
// fit a tag value and any character a tag value may not hold (IAM names
// allow ',') replaced by '_'.
func ChangedByRole(roleName string, operator bool) string {
	who := "role "
	if operator {
		who = "operator "
	}
	clean := strings.Map(func(r rune) rune {
		if r == ',' {
			return '_'
		}
		return r
	}, roleName)
	return who + Cut(clean, 64)
}

// BatchServiceJobQueueBlockedEvent is the detail type of the event AWS
// Batch sends when the job at the head of a service job queue cannot run
// (https://docs.aws.amazon.com/batch/latest/userguide/batch-service-job-queue-blocked-events.html).
// Its detail resembles DescribeServiceJob's answer; statusReason says why.
const BatchServiceJobQueueBlockedEvent = "Batch Service Job Queue Blocked"

// The scheduled event EventBridge sends a rule's target
// (https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-events.html):
// the monitoring pipeline sends it to the observer every minute as a
// heartbeat (metrics.ObserverHeartbeats).
const (
	ScheduledEventSource     = "aws.events"
	ScheduledEventDetailType = "Scheduled Event"
)

// BatchEventDetailTypes lists the detail types the observer reads, which the
// monitoring pipeline's EventBridge rule must match.
func BatchEventDetailTypes() []string {
	return []string{BatchServiceJobEvent, BatchServiceJobQueueBlockedEvent}
}
