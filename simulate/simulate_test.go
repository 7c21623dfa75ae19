package simulate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

const p5 = "ml.p5.48xlarge"

// quotaPlatform builds a one-pool quota platform; teams is YAML for the
// teams list, classes YAML for the classes (empty: the defaults).
func mustParse(t *testing.T, y string) *platform.Platform {
	t.Helper()
	p, err := platform.Parse([]byte(y))
	if err != nil {
		t.Fatalf("parse platform: %v\n%s", err, y)
	}
	return p
}

func quotaPlatform(t *testing.T, pool int, teams string) *platform.Platform {
	return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: %d}]\nteams:\n%s", p5, pool, teams))
}

// j builds a trace job on ml.p5.48xlarge.
func j(id string, submit, dur int64, k int, class, team string) trace.Job {
	return trace.Job{ID: id, Submit: submit, Duration: dur, Instances: k, InstanceType: p5, Class: class, Team: team, Priority: trace.NoPriority}
}

// recorder keeps "kind id@time" lines.
type recorder struct{ lines []string }

func (r *recorder) Observe(e simulate.Event, _ *simulate.State) {
	kind := map[simulate.EventKind]string{simulate.EventStart: "start", simulate.EventPreempt: "preempt",
		simulate.EventComplete: "done", simulate.EventFail: "fail"}[e.Kind]
	r.lines = append(r.lines, fmt.Sprintf("%s %s@%d", kind, e.JobID, e.At))
}

func (r *recorder) only(kinds ...string) []string {
	var out []string
	for _, l := range r.lines {
		for _, k := range kinds {
			if strings.HasPrefix(l, k+" ") {
				out = append(out, l)
			}
		}
	}
	return out
}

func run(t *testing.T, p *platform.Platform, pol simulate.Policy, jobs ...trace.Job) (*simulate.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	res, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: pol, Observer: rec})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, rec
}

func TestScheduling(t *testing.T) {
	oneTeam := func(q int, extra string) string {
		return fmt.Sprintf("  - {name: a, capacity: [{instanceType: %s, instances: %d}]%s}\n", p5, q, extra)
	}
	lendBorrow := fmt.Sprintf("  - {name: a, capacity: [{instanceType: %[1]s, instances: 2}]}\n  - {name: b, capacity: [{instanceType: %[1]s, instances: 2}]}\n", p5)
	tests := []struct {
		name   string
		p      func(t *testing.T) *platform.Platform
		policy simulate.Policy
		jobs   []trace.Job
		kinds  []string
		want   []string
	}{
		{
			// One instance, busy until 100 with a0. research (550) outranks
			// sweep (150), so r1 (submitted later) runs 100–200, s1 200–300.
			name: "higher priority job starts first when both wait",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 1, oneTeam(1, ", inSharePreemption: false"))
			},
			jobs:  []trace.Job{j("a0", 0, 100, 1, "sweep", "a"), j("s1", 10, 100, 1, "sweep", "a"), j("r1", 20, 100, 1, "research", "a")},
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start r1@100", "start s1@200"},
		},
		{
			// Pool 4 = quota a 2 + b 2, both lend-and-borrow, unlimited. b's 4
			// jobs take b's 2 and borrow a's idle 2 at t=0. At t=10 a's jobs are
			// within a's quota, so they reclaim it: the default rule preempts
			// the latest-submitted borrowed job first (b4, then b3; all else equal).
			name: "borrowed capacity returns to its owner by preemption",
			p:    func(t *testing.T) *platform.Platform { return quotaPlatform(t, 4, lendBorrow) },
			jobs: []trace.Job{j("b1", 0, 1000, 1, "research", "b"), j("b2", 0, 1000, 1, "research", "b"),
				j("b3", 0, 1000, 1, "research", "b"), j("b4", 0, 1000, 1, "research", "b"),
				j("a1", 10, 100, 1, "research", "a"), j("a2", 10, 100, 1, "research", "a")},
			kinds: []string{"start", "preempt"},
			want: []string{"start b1@0", "start b2@0", "start b3@0", "start b4@0",
				"preempt b4@10", "start a1@10", "preempt b3@10", "start a2@10",
				// a1, a2 end at 110 and b's requeued jobs borrow the idle capacity again.
				"start b3@110", "start b4@110"},
		},
		{
			// Pool 4 = a 2 + b 2, all running until b1 ends at 100. Then a is at
			// its quota and its production job ap could only borrow, while b's
			// research job br is within b's quota: br gets the instance although
			// ap has the higher priority (otherwise br would take it back by
			// preemption at once). ap borrows when br ends at 100+100 = 200.
			name: "a job within its quota goes before a higher-priority borrower",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 4, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %[1]s, instances: 2}], inSharePreemption: false}\n  - {name: b, capacity: [{instanceType: %[1]s, instances: 2}]}\n", p5))
			},
			jobs: []trace.Job{j("a1", 0, 1000, 1, "research", "a"), j("a2", 0, 1000, 1, "research", "a"),
				j("b1", 0, 100, 1, "research", "b"), j("b2", 0, 1000, 1, "research", "b"),
				j("ap", 50, 100, 1, "production", "a"), j("br", 60, 100, 1, "research", "b")},
			kinds: []string{"start", "preempt"},
			want:  []string{"start a1@0", "start a2@0", "start b1@0", "start b2@0", "start br@100", "start ap@200"},
		},
		{
			// b may borrow 50% of its quota of 2: 2 + 1 = 3 instances, so b4
			// waits for b1 (ends at 100) although a's 2 instances are idle.
			name: "borrow limit caps what a team borrows",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 4, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %[1]s, instances: 2}]}\n  - {name: b, capacity: [{instanceType: %[1]s, instances: 2}], borrowLimitPercent: 50}\n", p5))
			},
			jobs: []trace.Job{j("b1", 0, 100, 1, "research", "b"), j("b2", 0, 1000, 1, "research", "b"),
				j("b3", 0, 1000, 1, "research", "b"), j("b4", 0, 1000, 1, "research", "b")},
			kinds: []string{"start"},
			want:  []string{"start b1@0", "start b2@0", "start b3@0", "start b4@100"},
		},
		{
			// a reserves its 2 instances: b may not borrow them, so b3 waits
			// until b1 ends at 100.
			name: "a reserve team's idle capacity is not lent",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 4, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %[1]s, instances: 2}], sharing: reserve}\n  - {name: b, capacity: [{instanceType: %[1]s, instances: 2}]}\n", p5))
			},
			jobs:  []trace.Job{j("b1", 0, 100, 1, "research", "b"), j("b2", 0, 1000, 1, "research", "b"), j("b3", 0, 100, 1, "research", "b")},
			kinds: []string{"start"},
			want:  []string{"start b1@0", "start b2@0", "start b3@100"},
		},
		{
			// Team a's 2 instances run two sweeps; production (950) outranks
			// sweep (150) in the same share, so it preempts one: the later
			// submitted s2 (same priority, start and size as s1). s2 restarts
			// from scratch when p ends at 10+100 = 110.
			name:  "in-share preemption lets production displace a sweep",
			p:     func(t *testing.T) *platform.Platform { return quotaPlatform(t, 2, oneTeam(2, "")) },
			jobs:  []trace.Job{j("s1", 0, 1000, 1, "sweep", "a"), j("s2", 0, 1000, 1, "sweep", "a"), j("p", 10, 100, 1, "production", "a")},
			kinds: []string{"start", "preempt", "done"},
			want:  []string{"start s1@0", "start s2@0", "preempt s2@10", "start p@10", "done p@110", "start s2@110", "done s1@1000", "done s2@1110"},
		},
		{
			// With in-share preemption off, production waits for s1 to end.
			name: "without in-share preemption production waits",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 2, oneTeam(2, ", inSharePreemption: false"))
			},
			jobs:  []trace.Job{j("s1", 0, 1000, 1, "sweep", "a"), j("s2", 0, 1000, 1, "sweep", "a"), j("p", 10, 100, 1, "production", "a")},
			kinds: []string{"start"},
			want:  []string{"start s1@0", "start s2@0", "start p@1000"},
		},
		{
			// g needs all 4 instances: it starts only when j1 (2, ends 100)
			// and j2 (1, ends 50) are both done, at 100.
			name: "a gang job starts only when all its instances fit",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 4, oneTeam(4, ", inSharePreemption: false"))
			},
			jobs:  []trace.Job{j("j1", 0, 100, 2, "research", "a"), j("j2", 0, 50, 1, "research", "a"), j("g", 1, 10, 4, "research", "a")},
			kinds: []string{"start"},
			want:  []string{"start j1@0", "start j2@0", "start g@100"},
		},
		{
			// FIFO: j2 needs the whole pool and blocks j3 behind it although
			// j3 would fit; j2 runs 100–200, then j3.
			name:   "fifo blocks every job behind a head that does not fit",
			p:      func(t *testing.T) *platform.Platform { return quotaPlatform(t, 2, oneTeam(2, "")) },
			policy: simulate.PolicyFIFO,
			jobs:   []trace.Job{j("j1", 0, 100, 1, "sweep", "a"), j("j2", 1, 100, 2, "production", "a"), j("j3", 2, 100, 1, "sweep", "a")},
			kinds:  []string{"start"},
			want:   []string{"start j1@0", "start j2@100", "start j3@200"},
		},
		{
			// Fair share, decay 0: usage = weight × running instances. a
			// (weight 1) and b (weight 3) each ask for 8 one-instance jobs on
			// 8 instances; each start goes to the lower usage (ties: a):
			// a(0=0) b(1>0) a(1<3) a(2<3) a(3=3) b(4>3) a(4<6) a(5<6) → a 6, b 2,
			// the 3:1 split of weights 1:3 (lower weight, larger share).
			name: "fair share splits capacity inversely to weights",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 8}]\nscheduling: {mode: fairshare, shareDecaySeconds: 0}\nteams: [{name: a, weight: 1}, {name: b, weight: 3}]\n", p5))
			},
			jobs:  eight("a", "b"),
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start b0@0", "start a1@0", "start a2@0", "start a3@0", "start b1@0", "start a4@0", "start a5@0"},
		},
		{
			// Share decay D = 100 s. a ran 4 instances over [0, 100): its decayed
			// usage is H = 4·100·(1 − e^−1) ≈ 252.8 instance-seconds, so at t=100
			// a's key is 1 × (0 + 252.8/100) ≈ 2.53 while b's is 0. b gets
			// instances while its running count stays below 2.53 (0, 1, 2 → b),
			// then b at 3 < a's 1 + 2.53 = 3.53 → b again: b takes all 4.
			name: "fair share remembers decayed past usage",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 4}]\nscheduling: {mode: fairshare, shareDecaySeconds: 100}\nteams: [{name: a}, {name: b}]\n", p5))
			},
			jobs:  append(append(four("a", 0), four("a", 100)...), four("b", 100)...),
			kinds: []string{"start"},
			want: []string{"start a0@0", "start a1@0", "start a2@0", "start a3@0",
				"start b100@100", "start b101@100", "start b102@100", "start a100@100"},
		},
		{
			// The same trace with decay 0: only current usage counts, so at
			// t=100 both keys are 0 and the teams alternate (ties: a first).
			name: "fair share without decay forgets past usage",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 4}]\nscheduling: {mode: fairshare, shareDecaySeconds: 0}\nteams: [{name: a}, {name: b}]\n", p5))
			},
			jobs:  append(append(four("a", 0), four("a", 100)...), four("b", 100)...),
			kinds: []string{"start"},
			want: []string{"start a0@0", "start a1@0", "start a2@0", "start a3@0",
				"start a100@100", "start b100@100", "start a101@100", "start b101@100"},
		},
		{
			// computeReservation 50 with one active team of two:
			// floor(8 × 0.5^1) = 4 held back, so a starts 4 at t=0. At t=50 b
			// arrives, every team is active and nothing is held back: b (usage
			// 0) starts its 2, then a (usage 4 > b's 2) fills the last 2.
			name: "compute reservation holds capacity for an inactive team",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 8}]\nscheduling: {mode: fairshare, shareDecaySeconds: 0, computeReservation: 50}\nteams: [{name: a}, {name: b}]\n", p5))
			},
			jobs:  append(eight("a")[:8], j("b0", 50, 1000, 1, "research", "b"), j("b1", 50, 1000, 1, "research", "b")),
			kinds: []string{"start"},
			want: []string{"start a0@0", "start a1@0", "start a2@0", "start a3@0",
				"start b0@50", "start b1@50", "start a4@50", "start a5@50"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rec := run(t, tc.p(t), tc.policy, tc.jobs...)
			got := rec.only(tc.kinds...)
			if len(got) > len(tc.want) {
				got = got[:len(tc.want)]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s\nall: %v", diff, rec.lines)
			}
		})
	}
}

// four gives team four one-instance research jobs of 100 s at submit.
func four(team string, submit int64) []trace.Job {
	var out []trace.Job
	for i := range 4 {
		out = append(out, j(fmt.Sprintf("%s%d", team, int(submit)+i), submit, 100, 1, "research", team))
	}
	return out
}

// eight gives each team eight one-instance research jobs at t=0.
func eight(teams ...string) []trace.Job {
	var out []trace.Job
	for _, tm := range teams {
		for i := range 8 {
			out = append(out, j(fmt.Sprintf("%s%d", tm, i), 0, 1000, 1, "research", tm))
		}
	}
	return out
}

func TestRetries(t *testing.T) {
	classes := `classes:
  - {name: production, priority: {min: 900, max: 999}}
  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 50, retries: 1}
  - {name: sweep, priority: {min: 100, max: 199}, preemptionRetries: 0}
`
	p := mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 1}]\n%steams: [{name: a, capacity: [{instanceType: %s, instances: 1}]}]\n", p5, classes, p5))
	t.Run("a sweep with no preemption retries fails when preempted", func(t *testing.T) {
		res, rec := run(t, p, "", j("s", 0, 100, 1, "sweep", "a"), j("p", 10, 100, 1, "production", "a"))
		// s is preempted at 10 with 0 retries: it fails then; p runs 10–110.
		want := []string{"start s@0", "preempt s@10", "fail s@10", "start p@10", "done p@110"}
		if diff := cmp.Diff(want, rec.lines); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if res.Classes[2].Failed != 1 || res.Classes[0].Completed != 1 {
			t.Errorf("sweep failed %d (want 1), production completed %d (want 1)", res.Classes[2].Failed, res.Classes[0].Completed)
		}
	})
	t.Run("a job longer than its class's max runtime is retried then fails", func(t *testing.T) {
		res, rec := run(t, p, "", j("r", 0, 100, 1, "research", "a"))
		// 2 attempts (retries 1), each cut at 50 s: 0–50 and 50–100.
		want := []string{"start r@0", "start r@50", "fail r@100"}
		if diff := cmp.Diff(want, rec.lines); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
		if res.Failed != 1 || len(res.Failures) != 1 {
			t.Errorf("failed %d, failures %v; want 1 failure", res.Failed, res.Failures)
		}
	})
}

func TestStrandedJobsFail(t *testing.T) {
	// computeReservation 50 while b never comes: floor(4 × 0.5^1) = 2 of 4
	// instances are held back for ever, so a's 3-instance job can never
	// start. It must be reported failed, not lost.
	p := mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 4}]\nscheduling: {mode: fairshare, computeReservation: 50}\nteams: [{name: a}, {name: b}]\n", p5))
	res, rec := run(t, p, "", j("big", 0, 100, 3, "research", "a"), j("small", 0, 100, 2, "research", "a"))
	want := []string{"start small@0", "done small@100", "fail big@100"}
	if diff := cmp.Diff(want, rec.lines); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if res.Failed != 1 || res.Completed != 1 {
		t.Errorf("failed %d completed %d, want 1 and 1", res.Failed, res.Completed)
	}
}

func TestRowErrorsNameTheLine(t *testing.T) {
	p := platform.Default()
	for _, tc := range []struct {
		name string
		job  trace.Job
		want string
	}{
		{"unknown team", trace.Job{Line: 7, Team: "nope", Class: "sweep", InstanceType: p5, Instances: 1, Duration: 1}, "line 7: column team"},
		{"unknown class", trace.Job{Line: 8, Team: "search-ranking", Class: "urgent", InstanceType: p5, Instances: 1, Duration: 1}, "line 8: column class"},
		{"unknown instance type", trace.Job{Line: 9, Team: "search-ranking", Class: "sweep", InstanceType: "ml.g5.xlarge", Instances: 1, Duration: 1}, "line 9: column instance_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := simulate.Run(p, &simulate.SliceSource{Jobs: []trace.Job{tc.job}}, simulate.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
