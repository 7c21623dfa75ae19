package platform

import "testing"

// TestClassForPriorityNeverReturnsTheWrongClass tries every Batch scheduling
// priority: the class returned holds it, and none is returned in gaps.
func TestClassForPriorityNeverReturnsTheWrongClass(t *testing.T) {
	for name, p := range map[string]*Platform{"the default": Default(), "unusual band widths": mustParse(t, []byte(bandsPlatform))} {
		t.Run(name, func(t *testing.T) {
			for sp := 0; sp <= MaxSchedulingPriority; sp++ {
				c, ok := p.ClassForPriority(sp)
				if ok && !c.Priority.Contains(sp) {
					t.Fatalf("ClassForPriority(%d) = %s, whose band %d-%d does not hold it", sp, c.Name, c.Priority.Min, c.Priority.Max)
				}
				if !ok {
					for _, o := range p.Classes {
						if o.Priority.Contains(sp) {
							t.Fatalf("ClassForPriority(%d) found nothing, but %s's band holds it", sp, o.Name)
						}
					}
				}
			}
		})
	}
	// Between the default bands there are gaps: sweep ends at 199, research
	// starts at 500, and nothing lies above production's 999.
	p := Default()
	for _, sp := range []int{0, 99, 200, 499, 600, 899, 1000, 9999} {
		if c, ok := p.ClassForPriority(sp); ok {
			t.Errorf("ClassForPriority(%d) = %s, want no class (a gap between the default bands)", sp, c.Name)
		}
	}
}

func TestSmallAccessors(t *testing.T) {
	p := Default()
	// 40 + 60 = 100 instances in all.
	if got := p.TotalInstances(); got != 100 {
		t.Errorf("TotalInstances = %d, want 100", got)
	}
	if got := p.PoolInstances("ml.g5.48xlarge"); got != 0 {
		t.Errorf("PoolInstances(type outside the pool) = %d, want 0", got)
	}
	if _, ok := p.Team("nobody"); ok {
		t.Error("Team(unknown) found a team")
	}
	if _, ok := p.Class("nothing"); ok {
		t.Error("Class(unknown) found a class")
	}
	team, ok := p.Team("search-research")
	if !ok || team.CapacityOf("ml.p5.48xlarge") != 16 || team.CapacityOf("ml.g5.48xlarge") != 0 {
		t.Errorf("Team(search-research) = %+v, %v; want 16 × ml.p5.48xlarge and no ml.g5.48xlarge", team, ok)
	}
	for s, want := range map[Strategy]string{StrategyReserve: "RESERVE", StrategyLend: "LEND", StrategyLendAndBorrow: "LEND_AND_BORROW", "other": ""} {
		if got := s.BatchStrategy(); got != want {
			t.Errorf("Strategy(%q).BatchStrategy() = %q, want %q", s, got, want)
		}
	}
	// Batch attempts are retries + 1; no retries set means one attempt.
	for _, tc := range []struct {
		retries *int
		want    int
	}{{nil, 1}, {ptr(0), 1}, {ptr(2), 3}, {ptr(9), 10}} {
		if got := (Class{Retries: tc.retries}).Attempts(); got != tc.want {
			t.Errorf("Attempts with retries %v = %d, want %d", tc.retries, got, tc.want)
		}
	}
	if got := (Team{}).BorrowLimit(); got != -1 {
		t.Errorf("BorrowLimit with none set = %d, want -1 (unlimited)", got)
	}
}
