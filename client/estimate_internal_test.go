package client

import (
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// TestEstimateStart simulates small queues on the default platform (40
// ml.p5.48xlarge; search-ranking's quota 24, search-research's 16, each
// may borrow 100%: ceilings 48 and 32, at most 40 in the pool).
func TestEstimateStart(t *testing.T) {
	p := platform.Default()
	running := []contract.QueueJob{
		// Ends in 259200 − 252000 = 7200 s (2 h).
		{JobID: "r1", Team: "search-ranking", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge", Instances: 24,
			MaxRuntimeSeconds: 259200, RunningSeconds: 252000},
		// Ends in 86400 − 68400 = 18000 s (5 h).
		{JobID: "r2", Team: "search-research", Class: "sweep", Status: "RUNNING", SchedulingPriority: 150, InstanceType: "ml.p5.48xlarge", Instances: 16,
			MaxRuntimeSeconds: 86400, RunningSeconds: 68400},
	}
	waiting := func(n int) contract.QueueJob {
		return contract.QueueJob{JobID: "target", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550,
			InstanceType: "ml.p5.48xlarge", Instances: n, QueuePosition: 1}
	}
	tests := []struct {
		name string
		jobs []contract.QueueJob
		want int64
	}{
		// 8 fit once r1's 24 are free, at 2 h.
		{"a job that fits when the first running job ends", append(append([]contract.QueueJob{}, running...), waiting(8)), 7200},
		// The whole pool: once both have ended, at 5 h.
		{"a job needing the whole pool waits for every running job", append(append([]contract.QueueJob{}, running...), waiting(40)), 18000},
		// A SCHEDULED production job has run 0 s (the queue action fills
		// runningSeconds only for RUNNING and STARTING jobs): it holds all
		// 40 for its whole limit, 432000 s (5 d), once — not timed out at
		// its limit and retried twice (3 × 432000 s). The research job of
		// its own team cannot preempt it, and starts at 432000 s.
		{"a placed job that has not started holds its instances for its limit once", []contract.QueueJob{
			{JobID: "s1", Team: "search-ranking", Class: "production", Status: "SCHEDULED", SchedulingPriority: 950, InstanceType: "ml.p5.48xlarge",
				Instances: 40, MaxRuntimeSeconds: 432000}, waiting(8)}, 432000},
		// 41 > the 40 search-ranking may ever hold.
		{"a job larger than its share may ever hold never starts", append(append([]contract.QueueJob{}, running...), waiting(41)), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Jobs: tt.jobs}
			e, err := estimateStart(p, q, &contract.Response{JobID: "target"})
			if err != nil {
				t.Fatal(err)
			}
			if e.StartsInSeconds != tt.want {
				t.Errorf("starts in %d s, want %d", e.StartsInSeconds, tt.want)
			}
			if tt.want >= 0 && e.StartsBy == "" || e.Assumption == "" {
				t.Errorf("startsBy %q, assumption %q", e.StartsBy, e.Assumption)
			}
		})
	}
	q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Jobs: running, Truncated: true}
	if _, err := estimateStart(p, q, &contract.Response{JobID: "absent"}); err == nil {
		t.Error("a job neither listed nor explained has an estimate")
	}
	e, err := estimateStart(p, q, &contract.Response{JobID: "absent", Team: "search-ranking", Class: "research", SchedulingPriority: 550,
		Explanation: &contract.Explanation{InstanceType: "ml.p5.48xlarge", Instances: 8}})
	if err != nil || e.StartsInSeconds != 7200 || e.Note == "" {
		t.Errorf("a job left out of a truncated answer: %+v, %v: want 7200 s from its explanation, and a note", e, err)
	}
}
