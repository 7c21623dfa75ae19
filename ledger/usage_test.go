package ledger

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

// threeSweeps records three copies of the fixture's job (8 ml.p5.48xlarge
// of search-research each, preempted after 3180 s, then 3600 s to
// success), all at the same moments.
func threeSweeps(t *testing.T) *Store {
	t.Helper()
	s := newTable(t, time.UnixMilli(stop2).Add(time.Hour))
	for _, id := range []string{"job-1", "job-2", "job-3"} {
		for _, o := range lifeOf(id) {
			if _, err := s.Record(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

func TestUsageIsExactAndSplitsQuotaFromBorrowed(t *testing.T) {
	s := threeSweeps(t)
	since := time.UnixMilli(t0)
	r, err := Usage(context.Background(), s, platform.Default(), UsageQuery{Since: since, Until: since.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// Each attempt: 1 = start1..stop1 = 3180 s (preempted), 2 = 3600 s.
	// search-research's quota of ml.p5.48xlarge is 16 (the default
	// platform): job-1 and job-2 (8 each, ranked first by id at the same
	// start) are within, job-3's 8 borrowed, in both attempts.
	const ms = 1000
	want := map[showback.Key]*showback.Usage{
		{Team: "search-research", Class: "sweep", InstanceType: "ml.p5.48xlarge", Period: "2026-11-30"}: {
			Within: 16 * (3180 + 3600) * ms, Borrowed: 8 * (3180 + 3600) * ms,
			Goodput: 24 * 3600 * ms, LostPreempted: 24 * 3180 * ms,
		},
	}
	if diff := cmp.Diff(want, r.Table.Rows); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	// Wait: from t0 to stop2 (7620 s) less 6780 s run = 840 s, each job.
	wantGroups := []UsageGroup{{Team: "search-research", Class: "sweep", Outcomes: map[string]int{OutcomeSucceeded: 3},
		WaitP50: 840, WaitP95: 840, WaitMax: 840, Waited: 3}}
	if diff := cmp.Diff(wantGroups, r.Groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}

func TestARunningJobCountsToNow(t *testing.T) {
	// Only the first four events: the job runs since start1; now is one
	// hour after start1 → 8 instances × 3600 s.
	now := time.UnixMilli(start1).Add(time.Hour)
	s := newTable(t, now)
	for _, o := range lifeOf("job-1")[:4] {
		if _, err := s.Record(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Usage(context.Background(), s, platform.Default(), UsageQuery{Since: time.UnixMilli(t0), Until: time.UnixMilli(t0).Add(48 * time.Hour), Period: showback.Month})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Table.Rows[showback.Key{Team: "search-research", Class: "sweep", InstanceType: "ml.p5.48xlarge", Period: "2026-11"}]
	if got == nil || got.Running != 8*3600*1000 || got.Total() != 8*3600*1000 {
		t.Errorf("running usage %+v, want 8 × 3600 s running", got)
	}
	if r.Groups[0].Outcomes[OutcomeRunning] != 1 {
		t.Errorf("outcomes %v, want one running", r.Groups[0].Outcomes)
	}
}

func TestExportWritesTheTraceTheSimulatorReads(t *testing.T) {
	s := threeSweeps(t)
	var out bytes.Buffer
	since := time.UnixMilli(t0)
	n, err := Export(context.Background(), s, platform.Default(), since, since.Add(time.Hour), &out, func(j *Job) bool { return j.JobID != "job-3" })
	if err != nil {
		t.Fatal(err)
	}
	// Submitted at since (0 s), the completing attempt ran 3600 s; sweep's
	// band 100-199 maps request priority 50 to 100 + 50·99/99 = 150.
	want := "submit_s,duration_s,instances,instance_type,class,team,job_id,priority\n" +
		"0,3600,8,ml.p5.48xlarge,sweep,search-research,,50\n" +
		"0,3600,8,ml.p5.48xlarge,sweep,search-research,sweep-trial-42,50\n" +
		"0,3600,8,ml.p5.48xlarge,sweep,search-research,sweep-trial-42,50\n"
	if n != 3 || out.String() != want {
		t.Errorf("exported %d jobs:\n%s\nwant 3:\n%s", n, out.String(), want)
	}
}
