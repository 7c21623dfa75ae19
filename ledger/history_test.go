package ledger

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
)

// TestHistorySummarizesTheWindow records lifeOf's job (created at t0,
// 16:00 UTC; preempted after its first attempt ran 7 min to 1 h, 3180 s;
// its second ran 4020 s to 7620 s after t0, 3600 s; succeeded) and one of
// another class still running, and reads the day to t0 + 3 h.
func TestHistorySummarizesTheWindow(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(t0).Add(3 * time.Hour)
	s := newTable(t, now)
	for _, o := range lifeOf("done-1") {
		if _, err := s.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	running := Observation{JobID: "run-1", Team: "search-ranking", Class: "research", Priority: 550, InstanceType: "ml.p4d.24xlarge",
		Instances: 2, Status: "RUNNING", CreatedAt: t0 + 3_600_000, StartedAt: t0 + 3_660_000}
	if _, err := s.Record(ctx, running); err != nil {
		t.Fatal(err)
	}
	h, err := s.History(ctx, now.Add(-24*time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	hours := func(hr int) []int {
		out := make([]int, 24)
		out[hr] = 1
		return out
	}
	want := []contract.HistoryGroup{
		// Submitted 17:00 UTC, still running: an arrival, no runtime.
		{Class: "research", Team: "search-ranking", Submitted: 1, SubmittedByHour: hours(17), Batches: 1, Jobs: []contract.HistoryJob{}},
		// Submitted 16:00 UTC; held its instances 3180 + 3600 = 6780 s.
		{Class: "sweep", Team: "search-research", Submitted: 1, Completed: 1, SubmittedByHour: hours(16), Batches: 1,
			Jobs: []contract.HistoryJob{{InstanceType: "ml.p5.48xlarge", Instances: 8, SchedulingPriority: 150, RunSeconds: 6780}}},
	}
	if d := cmp.Diff(want, h.Groups); d != "" {
		t.Errorf("groups (-want +got):\n%s", d)
	}
	if h.From != "2026-11-29T19:00:00Z" || h.To != "2026-11-30T19:00:00Z" {
		t.Errorf("window %s to %s", h.From, h.To)
	}
	// A window that ends before the job completed counts its submission only.
	early, err := s.History(ctx, time.UnixMilli(t0), time.UnixMilli(t0).Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range early.Groups {
		if g.Class == "sweep" && (g.Submitted != 1 || g.Completed != 0 || len(g.Jobs) != 0) {
			t.Errorf("window before it completed: %+v", g)
		}
	}
}

// TestHistoryCountsBatches records a sweep submitted together (three jobs
// at 16:00:10, 16:00:20 and 16:00:50 UTC, one minute of the clock) and
// one more at 16:01:10: four submitted in two batches, so that the likely
// start draws them as batches of 4/2 = 2 on average.
func TestHistoryCountsBatches(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(t0).Add(time.Hour)
	s := newTable(t, now)
	for i, at := range []int64{10_000, 20_000, 50_000, 70_000} {
		o := Observation{JobID: fmt.Sprintf("sweep-%d", i), Team: "search-research", Class: "sweep", Priority: 150,
			InstanceType: "ml.p4d.24xlarge", Instances: 1, Status: "RUNNABLE", CreatedAt: t0 + at}
		if _, err := s.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.History(ctx, now.Add(-2*time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Groups) != 1 || h.Groups[0].Submitted != 4 || h.Groups[0].Batches != 2 {
		t.Errorf("groups: got %+v, want one of 4 submitted in 2 batches", h.Groups)
	}
}
