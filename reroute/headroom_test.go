package reroute_test

import (
	"fmt"
	"testing"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/reroute"
	"github.com/trainq/trainq/submit"
)

// TestHeadroomIsTheSubmittersRule holds reroute.Headroom equal to
// submit.Headroom (the submitter's instance-type fallback, itself held equal
// to the simulator's) over every sharing strategy pair, usages of 0 to 8
// of a 10-instance pool, with and without per-share usage, and in
// fair-share mode: a job the re-router moves to a type is one the
// submitter would have sent there.
func TestHeadroomIsTheSubmittersRule(t *testing.T) {
	strategies := []string{"sharing: reserve", "sharing: lend", "sharing: lend-and-borrow, borrowLimitPercent: 50", "sharing: lend-and-borrow, borrowLimitPercent: -1"}
	checked := 0
	check := func(p *platform.Platform, u *batchrules.Usage) {
		for _, tm := range p.Teams {
			for _, it := range []string{p5, g5} {
				checked++
				if got, want := reroute.Headroom(p, tm, it, u), submit.Headroom(p, tm, it, u); got != want {
					t.Errorf("team %s on %s, usage %+v: re-router %d, submitter %d", tm.Name, it, u, got, want)
				}
			}
		}
	}
	for _, sa := range strategies {
		for _, sb := range strategies {
			p := parse(t, fmt.Sprintf(`
pools: [{instanceType: %[1]s, instances: 10}, {instanceType: %[2]s, instances: 4}]
teams:
  - {name: a, capacity: [{instanceType: %[1]s, instances: 4}], %[3]s}
  - {name: b, capacity: [{instanceType: %[1]s, instances: 6}, {instanceType: %[2]s, instances: 2}], %[4]s}
`, p5, g5, sa, sb))
			for ua := 0; ua <= 8; ua += 2 {
				for ub := 0; ub <= 8; ub += 2 {
					check(p, &batchrules.Usage{PerShare: true, ByType: map[string]float64{p5: float64(ua + ub)},
						ByShare: map[string]map[string]float64{"a": {p5: float64(ua)}, "b": {p5: float64(ub)}}})
					check(p, &batchrules.Usage{ByType: map[string]float64{p5: float64(ua + ub)}, ByShare: map[string]map[string]float64{}})
				}
			}
			check(p, nil)
		}
	}
	fs := parse(t, fmt.Sprintf(`
pools: [{instanceType: %s, instances: 10}]
scheduling: {mode: fairshare}
teams: [{name: a}, {name: b}]
`, p5))
	for used := 0; used <= 10; used += 5 {
		check(fs, &batchrules.Usage{ByType: map[string]float64{p5: float64(used)}, ByShare: map[string]map[string]float64{}})
	}
	t.Logf("%d states checked", checked)
}

func parse(t *testing.T, yaml string) *platform.Platform {
	t.Helper()
	p, err := platform.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
