package simulate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// TestSubmitterAndSimulatorAgreeOnHeadroom shows that the submission
// function's instance-type fallback (platform.Headroom) and the simulator
// decide "fits" alike, for every sharing strategy: for two teams a and b
// sharing a pool of 10 instances, for every strategy of each, for usages
// below, at and above their quotas (including a reserve team's idle quota),
// a job of k instances that arrives starts at once in the simulator exactly
// when k is at most the submitter's headroom for its team.
func TestSubmitterAndSimulatorAgreeOnHeadroom(t *testing.T) {
	strategies := []string{
		"sharing: reserve",
		"sharing: lend",
		"sharing: lend-and-borrow, borrowLimitPercent: 50",
		"sharing: lend-and-borrow, borrowLimitPercent: -1",
	}
	const pool = 10
	checked := 0
	for _, quotas := range [][2]int{{4, 4}, {4, 6}} { // 2 instances no team is guaranteed; none
		for _, sa := range strategies {
			for _, sb := range strategies {
				p := quotaPlatform(t, pool, fmt.Sprintf(
					"  - {name: a, capacity: [{instanceType: %[1]s, instances: %[2]d}], %[3]s}\n"+
						"  - {name: b, capacity: [{instanceType: %[1]s, instances: %[4]d}], %[5]s}\n",
					p5, quotas[0], sa, quotas[1], sb))
				for usedA := 0; usedA <= 8; usedA += 2 {
					for usedB := 0; usedB <= 8; usedB += 2 {
						setup, ok := runningAt0(t, p, usedA, usedB)
						if !ok {
							continue // the simulator cannot reach this usage
						}
						u := &batchrules.Usage{PerShare: true,
							ByType:  map[string]float64{p5: float64(usedA + usedB)},
							ByShare: map[string]map[string]float64{"a": {p5: float64(usedA)}, "b": {p5: float64(usedB)}}}
						for _, team := range []string{"a", "b"} {
							tm, _ := p.Team(team)
							want := p.Headroom(tm, p5, u)
							got := simulatedHeadroom(t, p, setup, team, pool)
							checked++
							if got != want {
								t.Errorf("quotas a %d, b %d; a %q using %d, b %q using %d: team %s's job of up to %d starts in the simulator, the submitter's headroom is %d",
									quotas[0], quotas[1], sa, usedA, sb, usedB, team, got, want)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d states checked", checked)
	if checked < 200 {
		t.Errorf("only %d states checked; the usages set up are not reached", checked)
	}
}

// runningAt0 returns jobs of one instance each, submitted at 0 and running
// long, that hold usedA instances for team a and usedB for team b, and
// whether the simulator starts them all at 0.
func runningAt0(t *testing.T, p *platform.Platform, usedA, usedB int) ([]trace.Job, bool) {
	t.Helper()
	var jobs []trace.Job
	for i := range usedA {
		jobs = append(jobs, j(fmt.Sprintf("a%d", i), 0, 1000, 1, "production", "a"))
	}
	for i := range usedB {
		jobs = append(jobs, j(fmt.Sprintf("b%d", i), 0, 1000, 1, "production", "b"))
	}
	_, rec := run(t, p, simulate.PolicyPlatform, jobs...)
	starts := rec.only("start")
	if len(starts) != len(jobs) || len(rec.only("preempt")) > 0 {
		return nil, false
	}
	for _, l := range starts {
		if !strings.HasSuffix(l, "@0") {
			return nil, false
		}
	}
	return jobs, true
}

// simulatedHeadroom is the largest k for which a sweep job of k instances
// of team, arriving at 10 after setup, starts at 10 (by idle capacity or by
// preempting borrowers; never in-share, as every other job of the team has
// a higher priority).
func simulatedHeadroom(t *testing.T, p *platform.Platform, setup []trace.Job, team string, pool int) int {
	t.Helper()
	most := 0
	for k := 1; k <= pool; k++ {
		_, rec := run(t, p, simulate.PolicyPlatform, append(setup[:len(setup):len(setup)], j("probe", 10, 100, k, "sweep", team))...)
		started := false
		for _, l := range rec.only("start") {
			started = started || l == "start probe@10"
		}
		if !started {
			break
		}
		most = k
	}
	return most
}
