package client

import (
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// TestEstimateQueue: every listed waiting job of a queue gets the figures
// trainq status gives it, from one simulation per instance type. Default
// platform: 40 ml.p5.48xlarge; search-ranking's quota 24 and
// search-research's 16, each may borrow 100%. History: research jobs of
// search-ranking ran 1800 s, sweeps of search-research 3000 s, nothing
// submitted (no arrivals).
//
// Likely: r1 has run 600 of 1800 s, 1200 s left; r2 600 of 3000 s, 2400
// s left. At 1200 s r1's 24 are free: w1 (8) starts, until 1200 + 1800 =
// 3000 s; w2 needs all 40: r2 frees its 16 at 2400 s and w1 its 8 at 3000
// s, so w2 starts at 3000 s. Every run alike: the range is the figure.
//
// Latest: r1 runs to 259200 − 600 = 258600 s, r2 to 86400 − 600 = 85800
// s; w1 starts when r2 ends (16 free; search-ranking then holds 32, under
// its ceiling of 48), at 85800 s, and runs research's limit to 85800 +
// 259200 = 345000 s, when w2 finds the 40 free (r1 ended at 258600 s).
// w3 (41 instances, more than the pool) never starts; x1 (ml.g5.xlarge,
// outside the pool) and the running jobs have no figures.
func TestEstimateQueue(t *testing.T) {
	p := platform.Default()
	q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Jobs: []contract.QueueJob{
		{JobID: "r1", Team: "search-ranking", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
			Instances: 24, MaxRuntimeSeconds: 259200, RunningSeconds: 600},
		{JobID: "r2", Team: "search-research", Class: "sweep", Status: "RUNNING", SchedulingPriority: 150, InstanceType: "ml.p5.48xlarge",
			Instances: 16, MaxRuntimeSeconds: 86400, RunningSeconds: 600},
		{JobID: "w1", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
			Instances: 8, QueuePosition: 1, AgeSeconds: 900},
		{JobID: "w2", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
			Instances: 40, QueuePosition: 2, AgeSeconds: 600},
		{JobID: "x1", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.g5.xlarge",
			Instances: 1, QueuePosition: 3, AgeSeconds: 500},
		{Redacted: true, Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
			Instances: 41, QueuePosition: 4, AgeSeconds: 400},
	}, History: history(map[[2]string]int64{{"research", "search-ranking"}: 1800, {"sweep", "search-research"}: 3000}, nil)}
	opts := EstimateOptions{Runs: 20}
	qe, err := EstimateQueue(p, q, opts)
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ likely, latest int64 } // -2: no figure
	wants := []want{{-2, -2}, {-2, -2}, {1200, 85800}, {3000, 345000}, {-2, -2}, {-2, -1}}
	for i, w := range wants {
		r := qe.Rows[i]
		got := want{-2, -2}
		if r.Likely != nil {
			got.likely = r.Likely.StartsInSeconds
			if r.Likely.LowSeconds != got.likely || r.Likely.HighSeconds != got.likely {
				t.Errorf("row %d: likely range [%d, %d], want %d every run", i, r.Likely.LowSeconds, r.Likely.HighSeconds, got.likely)
			}
		}
		if r.Latest != nil {
			got.latest = r.Latest.StartsInSeconds
		}
		if got != w {
			t.Errorf("row %d (%s): likely %d s, latest %d s; want %d and %d", i, q.Jobs[i].JobID, got.likely, got.latest, w.likely, w.latest)
		}
	}
	if qe.Rows[3].Latest.StartsBy != "2026-12-05T15:50:00Z" {
		// 16:00 + 345000 s (3 d 23 h 50 m).
		t.Errorf("w2 latest by %q, want 2026-12-05T15:50:00Z", qe.Rows[3].Latest.StartsBy)
	}
	if qe.Runs != 20 || qe.History == "" || qe.LikelyAssumption == "" || qe.LatestAssumption == "" {
		t.Errorf("runs %d, history %q, assumptions %q, %q: want 20 and each said", qe.Runs, qe.History, qe.LikelyAssumption, qe.LatestAssumption)
	}
	if !strings.Contains(qe.Note, "1 jobs on an instance type outside the pool left out") {
		t.Errorf("note %q: want x1 said left out", qe.Note)
	}
	// Each row is what trainq status says of that job.
	for _, id := range []string{"w1", "w2"} {
		e, err := EstimateStart(p, q, &contract.Response{JobID: id}, opts)
		if err != nil {
			t.Fatal(err)
		}
		i := map[string]int{"w1": 2, "w2": 3}[id]
		if r := qe.Rows[i]; e.Latest.StartsInSeconds != r.Latest.StartsInSeconds || e.Likely.StartsInSeconds != r.Likely.StartsInSeconds {
			t.Errorf("%s: status says %d and %d s, the queue's row %d and %d s", id, e.Likely.StartsInSeconds, e.Latest.StartsInSeconds,
				r.Likely.StartsInSeconds, r.Latest.StartsInSeconds)
		}
	}
	// Without history: the latest start only, and why.
	q.History = nil
	q.NoHistory = "no job ledger is configured"
	qe, err = EstimateQueue(p, q, opts)
	if err != nil {
		t.Fatal(err)
	}
	if qe.Rows[2].Likely != nil || qe.Rows[2].Latest.StartsInSeconds != 85800 || !strings.Contains(qe.LikelyUnavailable, "no job ledger") {
		t.Errorf("without history: %+v, %q; want the latest start (85800 s) and why there is no likely one", qe.Rows[2], qe.LikelyUnavailable)
	}
}

// TestEstimateSaysWhatItCouldNotSee: a queue answer cut at its bound is
// handled honestly, in trainq status and in trainq queue's rows: jobs it
// counted are simulated (TestEstimateCountsUnlistedJobs), and jobs it
// could not count are said unseen, the figures possibly early. r1 (24 of
// the 40 ml.p5.48xlarge) ends in 259200 − 252000 = 7200 s; r2 (16) runs
// to sweep's 86400 s; the target (8, search-ranking) starts when r1 ends:
// 7200 s, from what the answer shows.
func TestEstimateSaysWhatItCouldNotSee(t *testing.T) {
	p := platform.Default()
	jobs := []contract.QueueJob{
		{JobID: "r1", Team: "search-ranking", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
			Instances: 24, MaxRuntimeSeconds: 259200, RunningSeconds: 252000},
		{JobID: "r2", Team: "search-research", Class: "sweep", Status: "RUNNING", SchedulingPriority: 150, InstanceType: "ml.p5.48xlarge",
			Instances: 16, MaxRuntimeSeconds: 86400},
		{JobID: "target", Team: "search-ranking", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: "ml.p5.48xlarge",
			Instances: 8, QueuePosition: 1},
	}
	for _, tt := range []struct {
		name string
		q    contract.QueueView
		want string
	}{
		{"more jobs than the function lists and counts", contract.QueueView{Truncated: true, Uncounted: true},
			"Batch had more jobs than the queue answer counts: those are not seen, and both figures may be early"},
		{"a truncated answer that counted nothing", contract.QueueView{Truncated: true},
			"the queue answer was truncated and did not count the jobs it left out: they are not seen, and both figures may be early"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.At, q.Jobs = "2026-12-01T16:00:00Z", jobs
			e, err := EstimateStart(p, &q, &contract.Response{JobID: "target"}, EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			qe, err := EstimateQueue(p, &q, EstimateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e.Latest.StartsInSeconds != 7200 || !strings.Contains(e.Note, tt.want) {
				t.Errorf("status: latest %d s, note %q; want 7200 s and %q", e.Latest.StartsInSeconds, e.Note, tt.want)
			}
			if qe.Rows[2].Latest == nil || qe.Rows[2].Latest.StartsInSeconds != 7200 || !strings.Contains(qe.Note, tt.want) {
				t.Errorf("queue: row %+v, note %q; want 7200 s and %q", qe.Rows[2], qe.Note, tt.want)
			}
		})
	}
}
