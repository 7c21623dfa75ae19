package observe

import (
	"github.com/trainq/trainq/ledger"
)

// Observation is what the ledger records of a job's event: every member
// the event carries that is readable and within batchrules' sanity bounds
// (an unreadable member adds nothing, so it never erases what another
// event said).
func Observation(d *Detail, id Identity, bad map[string][]fieldProblem) *ledger.Observation {
	ok := func(member string) bool { return len(bad["detail."+member]) == 0 }
	ms := func(member string, v *int64) int64 {
		if v == nil || !ok(member) {
			return 0
		}
		return *v
	}
	o := &ledger.Observation{
		JobID: d.JobID, JobARN: d.JobARN, JobName: d.JobName, Team: id.Team, Class: id.Class,
		Status: d.Status, CreatedAt: ms("createdAt", d.CreatedAt), ScheduledAt: ms("scheduledAt", d.ScheduledAt),
		StartedAt: ms("startedAt", d.StartedAt), StoppedAt: ms("stoppedAt", d.StoppedAt),
	}
	if d.SchedulingPriority != nil {
		o.Priority = *d.SchedulingPriority
	}
	if ok("statusReason") {
		o.StatusReason = d.StatusReason
	}
	if ok("capacityUsage") {
		if t, n, found := d.InstanceType(); found {
			o.InstanceType, o.Instances = t, int(n)
		}
	}
	if ok("timeoutConfig") && d.TimeoutConfig != nil && d.TimeoutConfig.AttemptDurationSeconds != nil {
		o.TimeoutSeconds = *d.TimeoutConfig.AttemptDurationSeconds
	}
	attempts := func(list []Attempt) []ledger.ObservedAttempt {
		out := make([]ledger.ObservedAttempt, 0, len(list))
		for _, a := range list {
			x := ledger.ObservedAttempt{StatusReason: a.StatusReason}
			if a.StartedAt != nil {
				x.StartedAt = *a.StartedAt
			}
			if a.StoppedAt != nil {
				x.StoppedAt = *a.StoppedAt
			}
			if r := a.ServiceResourceID; r != nil {
				x.TrainingJob = r.Value
			}
			out = append(out, x)
		}
		return out
	}
	if ok("attempts") {
		o.Attempts = attempts(d.Attempts)
	}
	if ok("preemptionSummary") && d.PreemptionSummary != nil {
		o.Preempted = attempts(d.PreemptionSummary.RecentPreemptedAttempts)
		o.PreemptedCount = d.PreemptionSummary.PreemptedAttemptCount
	}
	return o
}
