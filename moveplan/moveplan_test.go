package moveplan_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/moveplan"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
)

const (
	p5  = "ml.p5.48xlarge"
	p4d = "ml.p4d.24xlarge"
	g6  = "ml.g6e.48xlarge"
)

// testPlatform: pools p5 × 4, p4d × 2, g6e × 2; team a holds all of them
// (reserve); research re-routes after 600 s over p5, p4d, g6e, at most 2
// moves.
func testPlatform(t *testing.T) *platform.Platform {
	t.Helper()
	p, err := platformfile.Parse([]byte("pools: [{instanceType: ml.p5.48xlarge, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 2}, {instanceType: ml.g6e.48xlarge, instances: 2}]\n" +
		"classes:\n  - {name: production, priority: {min: 900, max: 999}}\n" +
		"  - {name: research, priority: {min: 500, max: 599}, reroute: {afterSeconds: 600, instanceTypes: [ml.p5.48xlarge, ml.p4d.24xlarge, ml.g6e.48xlarge], maxMoves: 2}}\n" +
		"teams: [{name: a, capacity: [{instanceType: ml.p5.48xlarge, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 2}, {instanceType: ml.g6e.48xlarge, instances: 2}], sharing: reserve}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecided(t *testing.T) {
	p := testPlatform(t)
	research, _ := p.Class("research")
	a, _ := p.Team("a")
	const now = 1_000_000 // ms
	waiting := func(id string, prio, k int, sinceMs int64) *moveplan.Job {
		return &moveplan.Job{ID: id, Class: &research, Team: a, Priority: prio, InstanceType: p5, Instances: k, Since: sinceMs}
	}
	full := func(p5Used int) *batchrules.Usage {
		return &batchrules.Usage{PerShare: true, ByType: map[string]float64{p5: float64(p5Used)},
			ByShare: map[string]map[string]float64{"a": {p5: float64(p5Used)}}}
	}
	tests := []struct {
		name     string
		p5Used   int
		jobs     []*moveplan.Job
		want     map[string]string
		noRoom   int
		maxMoves int
	}{
		{
			// p5 full (4 of 4). x (priority 590) goes first: p4d has 2 free,
			// it takes 1; y (550, 2 instances) then finds 1 on p4d, 2 on g6e.
			name: "higher priority job moves first and takes its room", p5Used: 4,
			jobs: []*moveplan.Job{waiting("y", 550, 2, 0), waiting("x", 590, 1, 0)},
			want: map[string]string{"x": p4d, "y": g6},
		},
		{
			// 3 of 4 p5 used: f (590, 1) fits on p5 and takes the last one,
			// so m (550, 1), which would fit alone, moves to p4d.
			name: "a job that fits on its own type takes the room before a lower one", p5Used: 3,
			jobs: []*moveplan.Job{waiting("m", 550, 1, 0), waiting("f", 590, 1, now)},
			want: map[string]string{"m": p4d},
		},
		{
			// 400 s < 600 s: it waits; the marked one never moves.
			name: "a job that has not waited long enough, or is marked, stays", p5Used: 4,
			jobs: []*moveplan.Job{waiting("young", 590, 1, now-400_000), func() *moveplan.Job { j := waiting("marked", 590, 1, 0); j.Marked = true; return j }()},
			want: map[string]string{},
		},
		{
			// 3 instances: p4d and g6e have 2 each.
			name: "a job too large for every other type has no room", p5Used: 4,
			jobs:   []*moveplan.Job{waiting("big", 590, 3, 0)},
			want:   map[string]string{},
			noRoom: 1,
		},
		{
			name: "a lineage that moved maxMoves times is refused", p5Used: 4,
			jobs:     []*moveplan.Job{func() *moveplan.Job { j := waiting("old", 590, 1, 0); j.Moves = 2; return j }()},
			want:     map[string]string{},
			maxMoves: 1,
		},
		{
			// p5 has room, but SageMaker has none for it; a failed job needs
			// no wait.
			name: "a blocked job moves despite room, a failed one at once", p5Used: 0,
			jobs: []*moveplan.Job{func() *moveplan.Job { j := waiting("blocked", 590, 1, 0); j.Blocked = true; return j }(),
				func() *moveplan.Job { j := waiting("failed", 580, 2, now); j.Failed = true; return j }()},
			want: map[string]string{"blocked": p4d, "failed": g6},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := full(tt.p5Used)
			got := moveplan.Decided(p, tt.jobs, u, now)
			moves := map[string]string{}
			for _, m := range got.Moves {
				moves[m.Job.ID] = m.To
			}
			if diff := cmp.Diff(tt.want, moves); diff != "" {
				t.Errorf("moves (-want +got):\n%s", diff)
			}
			if got.NoRoom != tt.noRoom || got.MaxMoves != tt.maxMoves {
				t.Errorf("no room %d, max moves %d; want %d, %d", got.NoRoom, got.MaxMoves, tt.noRoom, tt.maxMoves)
			}
			if u.ByType[p5] != float64(tt.p5Used) || len(u.ByType) != 1 {
				t.Errorf("the snapshot's usage changed: %v", u.ByType)
			}
		})
	}
}
