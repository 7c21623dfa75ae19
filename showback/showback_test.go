package showback

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const hour = int64(3_600_000)

// d0 is 2026-12-01T00:00:00Z in Unix ms.
const d0 = int64(1796083200000)

func TestAJobThatStartsBeyondItsTeamsQuotaBorrowsUntilEarlierJobsEnd(t *testing.T) {
	// Team a's quota of ml.p5.48xlarge is 10. job-1 (4 instances) runs
	// 0-4 h, job-2 (8) 1-3 h, job-3 (2) 2-5 h; team b's job-4 (20) 0-1 h
	// has no bearing on a.
	ivs := []Interval{
		{Team: "a", Class: "research", InstanceType: "ml.p5.48xlarge", Start: d0, End: d0 + 4*hour, StartedAt: d0, Instances: 4, JobID: "job-1", Kind: Goodput},
		{Team: "a", Class: "research", InstanceType: "ml.p5.48xlarge", Start: d0 + hour, End: d0 + 3*hour, StartedAt: d0 + hour, Instances: 8, JobID: "job-2", Kind: LostPreempted},
		{Team: "a", Class: "sweep", InstanceType: "ml.p5.48xlarge", Start: d0 + 2*hour, End: d0 + 5*hour, StartedAt: d0 + 2*hour, Instances: 2, JobID: "job-3", Kind: Goodput},
		{Team: "b", Class: "sweep", InstanceType: "ml.p5.48xlarge", Start: d0, End: d0 + hour, StartedAt: d0, Instances: 20, JobID: "job-4", Kind: Goodput},
	}
	quota := func(team, _ string) int {
		if team == "a" {
			return 10
		}
		return 16
	}
	tab := NewTable(Day)
	tab.Tally(ivs, quota)
	// By hand, instances within / borrowed:
	//   0-1 h: job-1 4/0
	//   1-2 h: job-1 4/0, job-2 min(8, 10-4)=6/2
	//   2-3 h: job-1 4/0, job-2 6/2, job-3 (12 in use) 0/2
	//   3-4 h: job-1 4/0, job-3 2/0
	//   4-5 h: job-3 2/0
	// research: within 4·4 + 6·2 = 28 h, borrowed 2·2 = 4 h; goodput
	// 16 h (job-1), lost to preemption 16 h (job-2).
	// sweep of a: within 0 + 2 + 2 = 4 h, borrowed 2 h.
	// b: 20 instances 1 h, quota 16: within 16 h, borrowed 4 h.
	want := map[Key]*Usage{
		{Team: "a", Class: "research", InstanceType: "ml.p5.48xlarge", Period: "2026-12-01"}: {Within: 28 * hour, Borrowed: 4 * hour, Goodput: 16 * hour, LostPreempted: 16 * hour},
		{Team: "a", Class: "sweep", InstanceType: "ml.p5.48xlarge", Period: "2026-12-01"}:    {Within: 4 * hour, Borrowed: 2 * hour, Goodput: 6 * hour},
		{Team: "b", Class: "sweep", InstanceType: "ml.p5.48xlarge", Period: "2026-12-01"}:    {Within: 16 * hour, Borrowed: 4 * hour, Goodput: 20 * hour},
	}
	if diff := cmp.Diff(want, tab.Rows); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestARunAcrossMidnightCountsOnBothDays(t *testing.T) {
	// 3 instances from 23:00 to 01:00: 3 instance-hours on each day; the
	// month table has all 6 in 2026-12.
	ivs := []Interval{{Team: "a", Class: "c", InstanceType: "ml.p4d.24xlarge", Start: d0 + 23*hour, End: d0 + 25*hour, StartedAt: d0 + 23*hour, Instances: 3, JobID: "j", Kind: Running}}
	day := NewTable(Day)
	day.Tally(ivs, func(string, string) int { return NoQuota })
	want := map[Key]*Usage{
		{Team: "a", Class: "c", InstanceType: "ml.p4d.24xlarge", Period: "2026-12-01"}: {Within: 3 * hour, Running: 3 * hour},
		{Team: "a", Class: "c", InstanceType: "ml.p4d.24xlarge", Period: "2026-12-02"}: {Within: 3 * hour, Running: 3 * hour},
	}
	if diff := cmp.Diff(want, day.Rows); diff != "" {
		t.Errorf("by day (-want +got):\n%s", diff)
	}
	month := NewTable(Month)
	month.Tally(ivs, func(string, string) int { return NoQuota })
	if got := month.Rows[Key{Team: "a", Class: "c", InstanceType: "ml.p4d.24xlarge", Period: "2026-12"}]; got == nil || got.Total() != 6*hour {
		t.Errorf("by month: %+v, want 6 instance-hours in 2026-12", got)
	}
}

func TestAJobThatStartedBeforeAWindowKeepsItsRank(t *testing.T) {
	// Quota 4. job-1 (4) started at 0 h, job-2 (4) at 1 h; a window from
	// 2 h clips both to start at 2 h, but job-1 still ranks first: job-1
	// within, job-2 borrowed.
	ivs := []Interval{
		{Team: "a", Class: "c", InstanceType: "t", Start: d0 + 2*hour, End: d0 + 3*hour, StartedAt: d0 + hour, Instances: 4, JobID: "job-2", Kind: Goodput},
		{Team: "a", Class: "c", InstanceType: "t", Start: d0 + 2*hour, End: d0 + 3*hour, StartedAt: d0, Instances: 4, JobID: "job-1", Kind: Goodput},
	}
	got := map[string][2]int{}
	Attribute(ivs, func(string, string) int { return 4 }, func(i int, _, _ int64, w, b int) { got[ivs[i].JobID] = [2]int{w, b} })
	want := map[string][2]int{"job-1": {4, 0}, "job-2": {0, 4}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
