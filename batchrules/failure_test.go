package batchrules

import "testing"

func TestFailureCauseSaysWhoseFailureItIs(t *testing.T) {
	cases := []struct {
		name, reason string
		preempted    bool
		want         string
	}{
		// The user guide's example onStatusReason patterns carry this prefix.
		{"the training code raised (SageMaker AlgorithmError)", "Received status from SageMaker: AlgorithmError: ExecuteUserScriptError: exit code 1", false, CauseJob},
		{"the request was wrong (SageMaker ClientError)", "Received status from SageMaker: ClientError: Data download failed", false, CauseJob},
		{"a FailureReason without Batch's prefix", "AlgorithmError: out of memory", false, CauseJob},
		{"SageMaker had no capacity", "Received status from SageMaker: CapacityError: Unable to provision requested ML compute capacity", false, CauseCapacity},
		{"Batch's capacity reason code", "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision requested compute resources", false, CauseCapacity},
		{"SageMaker failed internally", "Received status from SageMaker: InternalServerError: We encountered an internal error", false, CauseInternal},
		// The user guide quotes this statusReason after a time limit action.
		{"a time limit action ended it", "Terminated by JobStateTimeLimit action due to reason: MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED", false, CauseTimeLimit},
		{"preempted once too often, whatever the reason says", "Received status from SageMaker: AlgorithmError: killed", true, CausePreemption},
		{"terminated by hand", "Terminated by user", false, CauseOther},
		{"no reason", "", false, CauseOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := FailureCause(tc.reason, tc.preempted); got != tc.want {
				t.Errorf("FailureCause(%q, %v) = %s, want %s", tc.reason, tc.preempted, got, tc.want)
			}
		})
	}
	for _, c := range FailureCauses() {
		if JobsFault(c) != (c == CauseJob) {
			t.Errorf("JobsFault(%s) = %v; only JOB is the job's own", c, JobsFault(c))
		}
	}
}
