package simulate

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/trace"
)

// TestStuckRerouterSkipsOnlyUselessRuns: after a run that could move
// nothing more, the re-router waits for freed capacity or a job coming due
// (R24's runs it skips could not have moved anything). Running it every
// period instead must give the same moves, waits and records, on generated
// traces of the re-routing benchmark platform, under quota and fair share.
func TestStuckRerouterSkipsOnlyUselessRuns(t *testing.T) {
	rr, err := platformfile.LoadFileOrDefault("../bench/simulate/reroute.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fair, err := platformfile.Parse([]byte(`pools: [{instanceType: ml.p5.48xlarge, instances: 6}, {instanceType: ml.p4d.24xlarge, instances: 6}]
scheduling: {mode: fairshare, shareDecaySeconds: 600, computeReservation: 30}
classes:
  - {name: production, priority: {min: 900, max: 999}}
  - {name: research, priority: {min: 500, max: 599}, reroute: {afterSeconds: 120, instanceTypes: [ml.p5.48xlarge, ml.p4d.24xlarge]}}
  - {name: sweep, priority: {min: 100, max: 199}, reroute: {afterSeconds: 60, instanceTypes: [ml.p4d.24xlarge, ml.p5.48xlarge]}}
teams: [{name: a, weight: 0.5}, {name: b}, {name: c, weight: 2}]
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*platform.Platform{"quota": rr, "fair share": fair} {
		for _, tc := range []struct {
			seed uint64
			load float64
		}{{5, 0.7}, {5, 1.3}, {6, 0.9}, {7, 0.7}, {8, 1.1}} {
			seed, load := tc.seed, tc.load
			var jobs []trace.Job
			if err := trace.Generate(p, trace.GenerateOptions{Seed: seed, Jobs: 3000, Load: load}, func(j trace.Job) error {
				jobs = append(jobs, j)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("%s seed %d load %g", name, seed, load), func(t *testing.T) {
				records := func(every bool) ([]JobRecord, int) {
					var out []JobRecord
					e := newEngine(p, Options{Policy: PolicyPlatform, Victims: DefaultVictims,
						Jobs: func(r JobRecord) error { out = append(out, r); return nil }})
					e.rr.everyPeriod = every
					if err := e.loop(&SliceSource{Jobs: jobs}); err != nil {
						t.Fatal(err)
					}
					return out, int(e.rr.runs)
				}
				skipping, runsSkipping := records(false)
				every, runsEvery := records(true)
				if diff := cmp.Diff(every, skipping); diff != "" {
					t.Errorf("records differ (-every period +skipping):\n%s", diff)
				}
				moves := 0
				for _, r := range every {
					moves += r.Moves
				}
				if moves == 0 || runsSkipping >= runsEvery {
					t.Errorf("%d moves, %d runs skipping, %d every period: want moves, and fewer runs", moves, runsSkipping, runsEvery)
				}
				t.Logf("%d moves; %d runs, %d every period", moves, runsSkipping, runsEvery)
			})
		}
	}
}
