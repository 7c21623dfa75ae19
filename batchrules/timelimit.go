package batchrules

import "strings"

// Jobs stuck at the head of a SageMaker training queue. When the job at the
// head of a queue cannot run, AWS Batch sets its statusReason to a reason
// code and a message ("MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED -
// …"), sends a "Batch Service Job Queue Blocked" event, and every job
// behind it waits. A queue's jobStateTimeLimitActions terminate such a job
// after maxTimeSeconds, so that the next job reaches the head
// (https://docs.aws.amazon.com/batch/latest/userguide/sm_job_stuck_in_runnable_time_limit_actions.html,
// https://docs.aws.amazon.com/batch/latest/userguide/batch-service-job-queue-blocked-events.html).

// The reasons jobStateTimeLimitActions support on a SAGEMAKER_TRAINING queue.
const (
	// ReasonInsufficientCapacity: SageMaker cannot provide the instances
	// now ("CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Service cannot fulfill
	// the capacity requested for instance type …"). Transient.
	ReasonInsufficientCapacity = "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"
	// ReasonServiceEnvironmentMaxResource: the job needs more instances than
	// the service environment's capacity limits allow. It can never run.
	ReasonServiceEnvironmentMaxResource = "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE"
	// ReasonQuotaManagementLimitExceeded: the job needs more instances than
	// its quota share's capacity limits allow. It can never run.
	ReasonQuotaManagementLimitExceeded = "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"
)

// TimeLimitReasons lists the reasons, in a fixed order.
func TimeLimitReasons() []string {
	return []string{ReasonInsufficientCapacity, ReasonServiceEnvironmentMaxResource, ReasonQuotaManagementLimitExceeded}
}

// Limits of a job state time limit action on a SAGEMAKER_TRAINING queue
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_JobStateTimeLimitAction.html):
// the state is RUNNABLE, the action TERMINATE (the only one such queues
// take), maxTimeSeconds 600 to 86,400.
const (
	TimeLimitState           = "RUNNABLE"
	TimeLimitActionTerminate = "TERMINATE"
	MinTimeLimitSeconds      = 600
	MaxTimeLimitSeconds      = 86400
	// MaxTimeLimitActions bounds the actions of a queue: one per reason.
	MaxTimeLimitActions = 3
)

// ValidTimeLimitReason reports whether s is one of TimeLimitReasons.
func ValidTimeLimitReason(s string) bool {
	for _, r := range TimeLimitReasons() {
		if s == r {
			return true
		}
	}
	return false
}

// BlockedReason is the reason code a blocked job's statusReason starts
// with ("CODE - message", or the code alone), "" when it starts with none
// of TimeLimitReasons.
func BlockedReason(statusReason string) string {
	for _, r := range TimeLimitReasons() {
		if rest, ok := strings.CutPrefix(statusReason, r); ok && (rest == "" || strings.HasPrefix(rest, " ")) {
			return r
		}
	}
	return ""
}

// timeLimitPrefixes start the statusReason of a job a time limit action
// ended: "Terminated by JobStateTimeLimit action due to reason: REASON"
// (and "Canceled by …" on other queues).
var timeLimitPrefixes = []string{
	"Terminated by JobStateTimeLimit action due to reason: ",
	"Canceled by JobStateTimeLimit action due to reason: ",
}

// EndedByTimeLimit returns the reason of the time limit action that ended a
// job, read from its statusReason, and whether one did.
func EndedByTimeLimit(statusReason string) (string, bool) {
	for _, p := range timeLimitPrefixes {
		if rest, ok := strings.CutPrefix(statusReason, p); ok {
			if r := BlockedReason(rest); r != "" {
				return r, true
			}
		}
	}
	return "", false
}
