package client

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// TestKernelWidth: runtimes 100·e^k s, k = 0…4, have logs ln 100 + k. Their
// standard deviation is √(10/4) = 1.581; their IQR, logs[3·5/4 = 3] −
// logs[5/4 = 1] = 2, over 1.34 is 1.4925, the smaller; Silverman's width is
// 0.9 × 1.4925 × 5^(−1/5) = 1.3433 × 0.72478 = 0.97358. One runtime (or
// several equal) has no spread: width 0, drawn as it is.
func TestKernelWidth(t *testing.T) {
	p := runPool{}
	for k := range 5 {
		p.runs = append(p.runs, int64(math.Round(100*math.Exp(float64(k)))))
	}
	p.sort()
	if math.Abs(p.bw-0.97358) > 1e-3 {
		t.Errorf("width %.5f, want 0.97358", p.bw)
	}
	same := runPool{runs: []int64{3600, 3600, 3600}}
	same.sort()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		if r := same.draw(rng); r != 3600 {
			t.Fatalf("equal runtimes drawn as %d s, want 3600", r)
		}
	}
}

// TestFirstOfManyRunningJobsToEnd: ten sweeps of search-research hold the
// 60 ml.p4d.24xlarge (6 each: its quota 30 and 30 borrowed, the most it may
// hold), each has run 4500 s; the target, a sweep of the same team and
// priority, waits for one of them to end. Past sweeps ran 1000, 2000, …,
// 10000 s. Drawn among the past runtimes only, a running job has at least
// 5000 − 4500 = 500 s left, so the target never starts before 500 s. The
// kernel (width 0.9 × min(0.733, 0.981/1.34 = 0.732) × 10^(−1/5) = 0.416 on
// the logs of 1…10 thousand) gives each running job about a one in three
// chance of ending within 500 s (a draw of 5000 s scaled by 0.9 to 1 alone
// is about 0.10 of all draws, of the ~0.6 above 4500 s), so the first of
// ten ends within 500 s in about 1 − (2/3)^10 = 98% of runs: both the
// likely start and its low end are under 500 s. The latest start is a
// sweep's limit less 4500 s: 86400 − 4500 = 81900 s.
func TestFirstOfManyRunningJobsToEnd(t *testing.T) {
	p := platform.Default()
	q := &contract.QueueView{At: "2026-12-01T16:00:00Z", History: &contract.History{Source: "test", From: "2026-11-24T16:00:00Z",
		To: "2026-12-01T16:00:00Z", Groups: []contract.HistoryGroup{{Class: "sweep", Team: "search-research", Completed: 10}}}}
	for k := range 10 {
		q.History.Groups[0].Jobs = append(q.History.Groups[0].Jobs, contract.HistoryJob{InstanceType: "ml.p4d.24xlarge", Instances: 6,
			SchedulingPriority: 150, RunSeconds: int64(k+1) * 1000})
		q.Jobs = append(q.Jobs, contract.QueueJob{JobID: "r" + string(rune('a'+k)), Team: "search-research", Class: "sweep", Status: "RUNNING",
			SchedulingPriority: 150, InstanceType: "ml.p4d.24xlarge", Instances: 6, MaxRuntimeSeconds: 86400, RunningSeconds: 4500})
	}
	q.Jobs = append(q.Jobs, contract.QueueJob{JobID: "target", Team: "search-research", Class: "sweep", Status: "RUNNABLE", SchedulingPriority: 150,
		InstanceType: "ml.p4d.24xlarge", Instances: 6, QueuePosition: 1, AgeSeconds: 60})
	e, err := EstimateStart(p, q, &contract.Response{JobID: "target"}, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Likely == nil {
		t.Fatalf("no likely start: %s", e.LikelyUnavailable)
	}
	if e.Likely.StartsInSeconds >= 500 || e.Likely.LowSeconds >= 500 {
		t.Errorf("likely %d s, range from %d s: want both under 500 s", e.Likely.StartsInSeconds, e.Likely.LowSeconds)
	}
	if e.Latest.StartsInSeconds != 81900 {
		t.Errorf("latest %d s, want 81900", e.Latest.StartsInSeconds)
	}
}

// TestArrivalsComeInBatches: a group that submitted 70,000 jobs in 14,000
// batches over the week arrives in batches of 70000/14000 = 5 jobs on average
// (geometric: 1 + ⌊ln U / ln(1 − 1/5)⌋), every job of a batch at the same
// second, on the same instance type and count. Over
// 2000 batches the mean size is within 5 ± 0.5 (its standard error is
// √(1 − 1/5)·5/√2000 = 0.1); the batches' rate, with the run's factor
// (rateSpread), is the history's in the mean, so it is not checked here.
func TestArrivalsComeInBatches(t *testing.T) {
	p := platform.Default()
	hist := &contract.History{Source: "test", From: "2026-11-24T16:00:00Z", To: "2026-12-01T16:00:00Z", Groups: []contract.HistoryGroup{{
		Class: "sweep", Team: "search-research", Submitted: 70000, Batches: 14000, Completed: 3, Jobs: []contract.HistoryJob{
			{InstanceType: "ml.p4d.24xlarge", Instances: 1, SchedulingPriority: 150, RunSeconds: 600},
			{InstanceType: "ml.p5.48xlarge", Instances: 2, SchedulingPriority: 150, RunSeconds: 1200},
			{InstanceType: "ml.p4d.24xlarge", Instances: 4, SchedulingPriority: 150, RunSeconds: 1800}}}}}
	h, why := newHistoryModel(p, &contract.QueueView{History: hist})
	if h == nil {
		t.Fatal(why)
	}
	a := newArrivals(h, mustTime(t, "2026-12-01T16:00:00Z"), rand.New(rand.NewPCG(3, 4)), newStartWatch([]string{targetID}))
	batches, jobs := 0, 0
	last := int64(-1)
	for batches < 2000 {
		j, err := a.Next()
		if err != nil {
			t.Fatalf("after %d batches: %v", batches, err)
		}
		if j.Submit < last {
			t.Fatalf("job %s submitted at %d, before the previous one's %d", j.ID, j.Submit, last)
		}
		last = j.Submit
		// The rest of its batch is pending: drawn at the same second.
		for range len(a.pending) {
			b, err := a.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b.Submit != j.Submit || b.InstanceType != j.InstanceType || b.Instances != j.Instances {
				t.Fatalf("a batch of %s × %d at %d s holds a job of %s × %d at %d s", j.InstanceType, j.Instances, j.Submit, b.InstanceType,
					b.Instances, b.Submit)
			}
			jobs++
		}
		batches++
		jobs++
	}
	if mean := float64(jobs) / float64(batches); mean < 4.5 || mean > 5.5 {
		t.Errorf("mean batch %.2f jobs, want 5 ± 0.5", mean)
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestDailyCycleCountsTheHoursTheWindowHeld: a queue that submits at a
// flat rate has a flat cycle, whatever the window. A window of 12 hours
// (00:00 to 12:00 UTC) with 12 submissions in each of its hours holds
// hours 0–11 once and 12–23 never: the mean rate is 144 / 12 = 12 an hour,
// hour 5 had 12 in 1 hour (12 expected: (12 + 2) / (12 + 2) = 1), hour 11
// with its neighbours (12 + 2·12 + 0) / 4 = 9 in (1 + 2 + 0) / 4 = 0.75
// hours (9 expected: 1), hour 18 none in none (0 expected: (0 + 2) /
// (0 + 2) = 1). Counted over the day instead (144 / 24 = 6 an hour), hour 5
// would be (12 + 2) / (6 + 2) = 1.75 and hour 18 (0 + 2) / (6 + 2) = 0.25:
// seven times fewer arrivals in the evening for no reason but the window.
// A window of 2.5 days (00:00 on day 1 to 12:00 on day 3) at one
// submission an hour holds hours 0–11 three times (3 submissions each) and
// 12–23 twice (2 each): flat too.
func TestDailyCycleCountsTheHoursTheWindowHeld(t *testing.T) {
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		to       time.Time
		byHour   func(hr int) int
		exposure func(hr int) float64
	}{
		{"12 hours", from.Add(12 * time.Hour), func(hr int) int { return 12 * b2i(hr < 12) }, func(hr int) float64 { return float64(b2i(hr < 12)) }},
		{"2.5 days", from.Add(60 * time.Hour), func(hr int) int { return 2 + b2i(hr < 12) }, func(hr int) float64 { return float64(2 + b2i(hr < 12)) }},
	} {
		g := contract.HistoryGroup{Class: "sweep", Team: "search-research", SubmittedByHour: make([]int, 24)}
		for hr := range 24 {
			g.SubmittedByHour[hr] = tc.byHour(hr)
		}
		e := hourExposure(from, tc.to)
		c := dailyCycle([]contract.HistoryGroup{g}, from, tc.to)
		for hr := range 24 {
			if math.Abs(e[hr]-tc.exposure(hr)) > 1e-9 {
				t.Errorf("%s: hour %d held %.3f h, want %.0f", tc.name, hr, e[hr], tc.exposure(hr))
			}
			if math.Abs(c[hr]-1) > 1e-9 {
				t.Errorf("%s: hour %d's cycle %.3f, want 1 (a flat rate)", tc.name, hr, c[hr])
			}
		}
	}
	// A window starting mid-hour: 10:30 to 12:15 holds 0.5 h of hour 10,
	// 1 h of hour 11 and 0.25 h of hour 12.
	e := hourExposure(from.Add(630*time.Minute), from.Add(735*time.Minute))
	if e[10] != 0.5 || e[11] != 1 || e[12] != 0.25 || e[9] != 0 || e[13] != 0 {
		t.Errorf("10:30 to 12:15 held %v, want 0.5 h of 10, 1 h of 11, 0.25 h of 12", e)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
