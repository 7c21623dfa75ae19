package batchrules

import "strings"

// Causes of a failed service job, from its statusReason: whose it is to fix.
const (
	// CauseJob: the training job's own code or request failed
	// (SageMaker's AlgorithmError or ClientError). Its team fixes it.
	CauseJob = "JOB"
	// CauseCapacity: SageMaker could not provide the instances
	// (CapacityError, CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY).
	CauseCapacity = "CAPACITY"
	// CausePreemption: the job was preempted more often than its
	// preemption retries allow.
	CausePreemption = "PREEMPTION"
	// CauseTimeLimit: a job state time limit action ended the job (it
	// blocked the queue, see EndedByTimeLimit).
	CauseTimeLimit = "TIME_LIMIT"
	// CauseInternal: SageMaker or Batch failed internally
	// (InternalServerError).
	CauseInternal = "INTERNAL"
	// CauseOther: any other reason, a job terminated outside trainq among
	// them.
	CauseOther = "OTHER"
)

// SageMakerStatusPrefix starts a service job's statusReason that carries
// SageMaker's own status: "Received status from SageMaker: " and then the
// training job's FailureReason, as the AWS Batch user guide's service job
// retry strategies show (onStatusReason "Received status from SageMaker:
// InternalServerError*",
// https://docs.aws.amazon.com/batch/latest/userguide/service-job-retries.html).
const SageMakerStatusPrefix = "Received status from SageMaker: "

// sageMakerCauses map the error type a SageMaker FailureReason starts with
// to a cause. AlgorithmError and ClientError are the training job's own
// (its code, its data, its request); CapacityError is the capacity Batch
// treats as insufficient
// (https://docs.aws.amazon.com/batch/latest/userguide/sm_job_stuck_in_runnable_capacity.html);
// InternalServerError is SageMaker's own failure.
var sageMakerCauses = []struct{ prefix, cause string }{
	{"AlgorithmError", CauseJob},
	{"ClientError", CauseJob},
	{"CapacityError", CauseCapacity},
	{"InternalServerError", CauseInternal},
}

// FailureCause is why a FAILED service job failed: preempted is whether
// its last attempt ended by a preemption (so its preemption retries ran
// out); otherwise its statusReason decides, with or without
// SageMakerStatusPrefix. A reason trainq does not know is CauseOther.
func FailureCause(statusReason string, preempted bool) string {
	if preempted {
		return CausePreemption
	}
	if _, ok := EndedByTimeLimit(statusReason); ok {
		return CauseTimeLimit
	}
	if strings.HasPrefix(statusReason, "CAPACITY:") {
		return CauseCapacity
	}
	reason := strings.TrimPrefix(statusReason, SageMakerStatusPrefix)
	for _, c := range sageMakerCauses {
		if strings.HasPrefix(reason, c.prefix) {
			return c.cause
		}
	}
	return CauseOther
}

// FailureCauses lists every cause FailureCause returns.
func FailureCauses() []string {
	return []string{CauseJob, CauseCapacity, CausePreemption, CauseTimeLimit, CauseInternal, CauseOther}
}

// JobsFault reports whether a failure of cause is the job's own (its team
// fixes it) rather than the platform's or AWS's (on-call's).
func JobsFault(cause string) bool { return cause == CauseJob }
