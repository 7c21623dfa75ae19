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
