package client

import (
	"fmt"
	"strings"
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
			e, err := EstimateStart(p, q, &contract.Response{JobID: "target"}, EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e.Latest.StartsInSeconds != tt.want {
				t.Errorf("starts in %d s, want %d", e.Latest.StartsInSeconds, tt.want)
			}
			if tt.want >= 0 && e.Latest.StartsBy == "" || e.Latest.Assumption == "" {
				t.Errorf("startsBy %q, assumption %q", e.Latest.StartsBy, e.Latest.Assumption)
			}
		})
	}
	q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Jobs: running, Truncated: true}
	if _, err := EstimateStart(p, q, &contract.Response{JobID: "absent"}, EstimateOptions{}); err == nil {
		t.Error("a job neither listed nor explained has an estimate")
	}
	e, err := EstimateStart(p, q, &contract.Response{JobID: "absent", Team: "search-ranking", Class: "research", SchedulingPriority: 550,
		Explanation: &contract.Explanation{InstanceType: "ml.p5.48xlarge", Instances: 8}}, EstimateOptions{})
	if err != nil || e.Latest.StartsInSeconds != 7200 || e.Note == "" {
		t.Errorf("a job left out of a truncated answer: %+v, %v: want 7200 s from its explanation, and a note", e, err)
	}
}

// history is a one-week history whose jobs of each class and team in runs
// ran exactly that many seconds, with no submissions unless arrivals says.
func history(runs map[[2]string]int64, arrivals map[[2]string]int) *contract.History {
	h := &contract.History{Source: "test", From: "2026-11-24T16:00:00Z", To: "2026-12-01T16:00:00Z"}
	for _, k := range [][2]string{{"production", "search-ranking"}, {"research", "search-ranking"}, {"sweep", "search-research"}} {
		g := contract.HistoryGroup{Class: k[0], Team: k[1], Submitted: arrivals[k]}
		if s := runs[k]; s > 0 {
			for range 10 {
				g.Jobs = append(g.Jobs, contract.HistoryJob{InstanceType: "ml.p5.48xlarge", Instances: 8, SchedulingPriority: 950, RunSeconds: s})
			}
			g.Completed = 10
		}
		h.Groups = append(h.Groups, g)
	}
	return h
}

// TestLikelyStart checks the likely start on the default platform (40
// ml.p5.48xlarge; search-ranking's quota 24, search-research's 16).
func TestLikelyStart(t *testing.T) {
	p := platform.Default()
	jobs := func(r1Ran int64) []contract.QueueJob {
		return []contract.QueueJob{
			{JobID: "r1", Team: "search-ranking", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
				Instances: 24, MaxRuntimeSeconds: 259200, RunningSeconds: r1Ran},
			{JobID: "r2", Team: "search-research", Class: "sweep", Status: "SCHEDULED", SchedulingPriority: 150, InstanceType: "ml.p5.48xlarge",
				Instances: 16, MaxRuntimeSeconds: 86400},
			{JobID: "target", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
				Instances: 8, QueuePosition: 1, AgeSeconds: 600},
		}
	}
	runs := map[[2]string]int64{{"research", "search-ranking"}: 3600, {"sweep", "search-research"}: 7200}
	tests := []struct {
		name   string
		ran    int64
		runs   map[[2]string]int64
		want   int64
		latest int64
	}{
		// r1 has run 1800 s of the 3600 s research jobs run: 1800 s
		// left; then 24 − 0 of search-ranking's quota are free for the 8.
		// The latest start is when r2 (SCHEDULED, 0 s run) reaches its
		// limit: 86400 s, before r1's 259200 − 1800 s; search-ranking may
		// then borrow 8 of the 16 it frees.
		{"a running job runs what recent jobs of its class and team ran beyond its time", 1800, runs, 1800, 86400},
		// r1 has run 5000 s, longer than any research job: as long again,
		// 5000 s.
		{"a running job longer than any in history runs as long again", 5000, runs, 5000, 86400},
		// No research job of search-ranking in history: r1 draws from
		// research (none either), then from every class: sweep's 7200 s,
		// 7200 − 1800 = 5400 s left.
		{"a class with too few jobs in history draws from every class", 1800, map[[2]string]int64{{"sweep", "search-research"}: 7200}, 5400, 86400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Jobs: jobs(tt.ran), History: history(tt.runs, nil)}
			e, err := EstimateStart(p, q, &contract.Response{JobID: "target"}, EstimateOptions{Runs: 20})
			if err != nil {
				t.Fatal(err)
			}
			if e.Likely == nil {
				t.Fatalf("no likely start: %s", e.LikelyUnavailable)
			}
			l := e.Likely
			if l.StartsInSeconds != tt.want || l.LowSeconds != tt.want || l.HighSeconds != tt.want || l.Runs != 20 {
				t.Errorf("likely %d s [%d, %d] in %d runs, want %d s every run", l.StartsInSeconds, l.LowSeconds, l.HighSeconds, l.Runs, tt.want)
			}
			if e.Latest.StartsInSeconds != tt.latest {
				t.Errorf("latest %d s, want %d", e.Latest.StartsInSeconds, tt.latest)
			}
			if l.History == "" || l.Assumption == "" {
				t.Errorf("history %q, assumption %q: want both said", l.History, l.Assumption)
			}
		})
	}
}

// TestLikelyStartWithArrivals: production jobs of the target's team keep
// arriving (about 100 a day at 8 instances for 3600 s) and go before it:
// its likely start is later than without them, never earlier, and the same
// for the same seed.
func TestLikelyStartWithArrivals(t *testing.T) {
	p := platform.Default()
	q := func(arrivals map[[2]string]int) *contract.QueueView {
		runs := map[[2]string]int64{{"production", "search-ranking"}: 3600, {"research", "search-ranking"}: 3600, {"sweep", "search-research"}: 7200}
		return &contract.QueueView{At: "2026-12-01T16:00:00Z", History: history(runs, arrivals), Jobs: []contract.QueueJob{
			{JobID: "r1", Team: "search-ranking", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
				Instances: 40, MaxRuntimeSeconds: 259200, RunningSeconds: 1800},
			{JobID: "target", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
				Instances: 40, QueuePosition: 1, AgeSeconds: 600},
		}}
	}
	quiet, err := EstimateStart(p, q(nil), &contract.Response{JobID: "target"}, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	busy := map[[2]string]int{{"production", "search-ranking"}: 700}
	a, err := EstimateStart(p, q(busy), &contract.Response{JobID: "target"}, EstimateOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, err := EstimateStart(p, q(busy), &contract.Response{JobID: "target"}, EstimateOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// Without arrivals: r1's 3600 − 1800 s.
	if quiet.Likely.StartsInSeconds != 1800 {
		t.Errorf("quiet queue: likely %d s, want 1800", quiet.Likely.StartsInSeconds)
	}
	if a.Likely.StartsInSeconds <= 1800 || a.Likely.HighSeconds < a.Likely.StartsInSeconds || a.Likely.LowSeconds > a.Likely.StartsInSeconds {
		t.Errorf("busy queue: likely %d s [%d, %d], want later than 1800 s, inside its range", a.Likely.StartsInSeconds, a.Likely.LowSeconds, a.Likely.HighSeconds)
	}
	if *a.Likely != *b.Likely {
		t.Errorf("same input and seed, two answers: %+v, %+v", a.Likely, b.Likely)
	}
}

func TestLikelyStartWithoutHistory(t *testing.T) {
	p := platform.Default()
	jobs := []contract.QueueJob{{JobID: "target", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550,
		InstanceType: "ml.p5.48xlarge", Instances: 8}}
	for _, tt := range []struct {
		name string
		q    contract.QueueView
		want string
	}{
		{"the function has no ledger", contract.QueueView{NoHistory: "no job ledger is configured"}, "no history: no job ledger is configured"},
		{"an older function", contract.QueueView{}, "no history: the function's queue answer carried none"},
		{"no job completed in the window", contract.QueueView{History: history(nil, nil)}, "no history: no job completed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.At, tt.q.Jobs = "2026-12-01T16:00:00Z", jobs
			e, err := EstimateStart(p, &tt.q, &contract.Response{JobID: "target"}, EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e.Likely != nil || !strings.HasPrefix(e.LikelyUnavailable, tt.want) || e.Latest.StartsInSeconds != 0 {
				t.Errorf("likely %+v, unavailable %q, latest %d: want none because %q, and the latest start now", e.Likely, e.LikelyUnavailable,
					e.Latest.StartsInSeconds, tt.want)
			}
		})
	}
}

// TestEstimateCountsUnlistedJobs: jobs the queue answer counted but did
// not list still hold instances or go first (default platform, 40
// ml.p5.48xlarge; search-ranking may hold all 40).
func TestEstimateCountsUnlistedJobs(t *testing.T) {
	p := platform.Default()
	t.Run("an unlisted running job runs the longest limit from now", func(t *testing.T) {
		// r1 ends in 259200 − 252000 = 7200 s; the unlisted running job of
		// unknown class runs production's 432000 s, the longest limit. The
		// target needs all 40: 432000 s, not 7200 s.
		q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Truncated: true, Jobs: []contract.QueueJob{
			{JobID: "r1", Team: "search-ranking", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
				Instances: 24, MaxRuntimeSeconds: 259200, RunningSeconds: 252000},
			{JobID: "target", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
				Instances: 40, QueuePosition: 1}},
			Unlisted: []contract.QueueCount{{Status: "RUNNING", Team: "search-research", InstanceType: "ml.p5.48xlarge", Jobs: 1, Instances: 16}}}
		e, err := EstimateStart(p, q, &contract.Response{JobID: "target"}, EstimateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e.Latest.StartsInSeconds != 432000 || !strings.Contains(e.Note, "1 running and 0 waiting jobs") {
			t.Errorf("latest %d s, note %q: want 432000 s and the count", e.Latest.StartsInSeconds, e.Note)
		}
	})
	// The production job ends in 3600 s; w1 (39) then starts, leaving 1
	// instance. The target (1 instance, past the 100 listed) is 2nd or 3rd
	// in the queue: 3rd means one unlisted job is ahead of it and takes
	// that instance for research's 259200 s: 3600 + 259200 = 262800 s.
	// Not among the first 100 (0), all 3 unlisted are ahead of it.
	for _, tt := range []struct {
		pos  int
		want int64
	}{{2, 3600}, {3, 262800}, {0, 262800}} {
		t.Run(fmt.Sprintf("an unlisted target at queue position %d", tt.pos), func(t *testing.T) {
			q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Truncated: true, Jobs: []contract.QueueJob{
				{JobID: "p1", Team: "search-ranking", Class: "production", Status: "RUNNING", SchedulingPriority: 950, InstanceType: "ml.p5.48xlarge",
					Instances: 40, MaxRuntimeSeconds: 432000, RunningSeconds: 432000 - 3600},
				{JobID: "w1", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
					Instances: 39, QueuePosition: 1, AgeSeconds: 1000}},
				Unlisted: []contract.QueueCount{{Status: "RUNNABLE", Team: "search-ranking", Jobs: 3}}}
			target := &contract.Response{JobID: "target", Team: "search-ranking", Class: "research", SchedulingPriority: 550,
				Explanation: &contract.Explanation{InstanceType: "ml.p5.48xlarge", Instances: 1, QueuePosition: tt.pos}}
			e, err := EstimateStart(p, q, target, EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e.Latest.StartsInSeconds != tt.want {
				t.Errorf("latest %d s, want %d (note %q)", e.Latest.StartsInSeconds, tt.want, e.Note)
			}
		})
	}
}
