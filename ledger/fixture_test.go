package ledger

// A job's life as AWS Batch reports it, event by event: submitted at t0,
// scheduled, started, preempted and requeued, scheduled and started again,
// succeeded. Times in Unix ms; each event's detail lists what
// DescribeServiceJob would say at that moment (observe/testdata/events has
// the same shapes as JSON).
const (
	t0            = int64(1796054400000) // 2026-11-30T16:00:00Z
	sched1        = t0 + 300_000         // +5 min
	start1        = t0 + 420_000         // +7 min
	stop1         = t0 + 3_600_000       // +1 h: preempted
	sched2        = t0 + 3_900_000
	start2        = t0 + 4_020_000
	stop2         = t0 + 7_620_000 // +2 h 7 min: succeeded
	tj1           = "arn:aws:sagemaker:us-east-1:123456789012:training-job/AWSBatchsweep-trial-42-1"
	tj2           = "arn:aws:sagemaker:us-east-1:123456789012:training-job/AWSBatchsweep-trial-42-2"
	preemptReason = "Preempted to restore capacity to quota share search-ranking"
	doneReason    = "Received status from SageMaker: Training job completed"
)

// lifeOf returns the job's eight events, in the order Batch sent them.
func lifeOf(id string) []Observation {
	base := func(status string) Observation {
		return Observation{JobID: id, JobARN: "arn:aws:batch:us-east-1:123456789012:service-job/" + id, JobName: "sweep-trial-42",
			Team: "search-research", Class: "sweep", Priority: 150, InstanceType: "ml.p5.48xlarge", Instances: 8,
			Status: status, CreatedAt: t0, TimeoutSeconds: 432000}
	}
	a1 := ObservedAttempt{StartedAt: start1, TrainingJob: tj1}
	a1done := ObservedAttempt{StartedAt: start1, StoppedAt: stop1, StatusReason: preemptReason, TrainingJob: tj1}
	a2 := ObservedAttempt{StartedAt: start2, TrainingJob: tj2}
	a2done := ObservedAttempt{StartedAt: start2, StoppedAt: stop2, StatusReason: doneReason, TrainingJob: tj2}
	runnable := base("RUNNABLE")
	scheduled := base("SCHEDULED")
	scheduled.ScheduledAt = sched1
	starting := base("STARTING")
	starting.ScheduledAt = sched1
	running := base("RUNNING")
	running.ScheduledAt, running.StartedAt, running.Attempts = sched1, start1, []ObservedAttempt{a1}
	requeued := base("RUNNABLE")
	requeued.ScheduledAt, requeued.StartedAt, requeued.Attempts = sched1, start1, []ObservedAttempt{a1done}
	requeued.StatusReason = "Job preempted and requeued"
	requeued.Preempted, requeued.PreemptedCount = []ObservedAttempt{a1done}, 1
	scheduled2 := base("SCHEDULED")
	scheduled2.ScheduledAt, scheduled2.Attempts = sched2, []ObservedAttempt{a1done}
	scheduled2.Preempted, scheduled2.PreemptedCount = []ObservedAttempt{a1done}, 1
	running2 := base("RUNNING")
	running2.ScheduledAt, running2.StartedAt, running2.Attempts = sched2, start2, []ObservedAttempt{a1done, a2}
	running2.Preempted, running2.PreemptedCount = []ObservedAttempt{a1done}, 1
	succeeded := base("SUCCEEDED")
	succeeded.ScheduledAt, succeeded.StartedAt, succeeded.StoppedAt = sched2, start2, stop2
	succeeded.Attempts = []ObservedAttempt{a1done, a2done}
	succeeded.Preempted, succeeded.PreemptedCount = []ObservedAttempt{a1done}, 1
	succeeded.StatusReason = doneReason
	return []Observation{runnable, scheduled, starting, running, requeued, scheduled2, running2, succeeded}
}

// wantJob is the item every order of lifeOf's events must give, written
// from the events by hand.
func wantJob(id string) Job {
	return Job{
		JobID: id, JobARN: "arn:aws:batch:us-east-1:123456789012:service-job/" + id, JobName: "sweep-trial-42",
		Team: "search-research", Class: "sweep", Priority: 150, InstanceType: "ml.p5.48xlarge", Instances: 8,
		CreatedAt: t0, Scheduled: []int64{sched1, sched2},
		Attempts: []Attempt{
			{StartedAt: start1, StoppedAt: stop1, StatusReason: preemptReason, Preempted: true, TrainingJob: tj1},
			{StartedAt: start2, StoppedAt: stop2, StatusReason: doneReason, TrainingJob: tj2},
		},
		PreemptedCount: 1, TimeoutSeconds: 432000,
		Status: "SUCCEEDED", StatusReason: doneReason,
		// terminal, then the latest moment (stop2), then SUCCEEDED's rank 9.
		Seq:     orderTerminal + stop2*10 + 9,
		EndedAt: stop2,
	}
}
