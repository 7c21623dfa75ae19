package contract

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

// CancelReason is the reason given to TerminateServiceJob:
// CancelReasonPrefix, ": ", then reason, or DefaultCancelReason when reason
// is empty.
func CancelReason(reason string) string {
	if reason == "" {
		reason = DefaultCancelReason
	}
	return CancelReasonPrefix + ": " + reason
}

// BatchServiceJobQueueBlockedEvent is the detail type of the event AWS
// Batch sends when the job at the head of a service job queue cannot run
// (https://docs.aws.amazon.com/batch/latest/userguide/batch-service-job-queue-blocked-events.html).
// Its detail resembles DescribeServiceJob's answer; statusReason says why.
const BatchServiceJobQueueBlockedEvent = "Batch Service Job Queue Blocked"

// BatchEventDetailTypes lists the detail types the observer reads, which the
// monitoring pipeline's EventBridge rule must match.
func BatchEventDetailTypes() []string {
	return []string{BatchServiceJobEvent, BatchServiceJobQueueBlockedEvent}
}
