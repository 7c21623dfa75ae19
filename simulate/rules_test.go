package simulate_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// TestRules has one case (or a few) per modelled AWS Batch rule, keyed by
// the rule's id in the audit table of docs/simulate.md and a sentence. The
// expected events come from the arithmetic in each comment. The default
// classes are production (900–999), research (500–599) and sweep (100–199);
// a row without a priority gets request priority 50: production 950,
// research 550, sweep 150.
func TestRules(t *testing.T) {
	twoTeams := func(a, b string) func(t *testing.T) *platform.Platform {
		return func(t *testing.T) *platform.Platform {
			return quotaPlatform(t, 4, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %[1]s, instances: 2}]%[2]s}\n  - {name: b, capacity: [{instanceType: %[1]s, instances: 2}]%[3]s}\n", p5, a, b))
		}
	}
	oneTeam := func(pool, q int, extra string) func(t *testing.T) *platform.Platform {
		return func(t *testing.T) *platform.Platform {
			return quotaPlatform(t, pool, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %s, instances: %d}]%s}\n", p5, q, extra))
		}
	}
	fair := func(pool int, scheduling, teams string) func(t *testing.T) *platform.Platform {
		return func(t *testing.T) *platform.Platform {
			return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: %d}]\nscheduling: {mode: fairshare, %s}\nteams: [%s]\n", p5, pool, scheduling, teams))
		}
	}
	tests := []struct {
		name   string
		p      func(t *testing.T) *platform.Platform
		policy simulate.Policy
		jobs   []trace.Job
		kinds  []string
		want   []string
	}{
		{
			// g needs all 4 instances: it starts only when j1 (2, ends 100)
			// and j2 (1, ends 50) are both done, at 100.
			name:  "R1 a gang job starts only when all its instances fit",
			p:     oneTeam(4, 4, ", inSharePreemption: false"),
			jobs:  []trace.Job{job("j1", "a").gang(2).runs(100).Job(), job("j2", "a").runs(50).Job(), job("g", "a").at(1).gang(4).runs(10).Job()},
			kinds: []string{"start"},
			want:  []string{"start j1@0", "start j2@0", "start g@100"},
		},
		{
			// Pool 1 × p5 (full until 100 with a0) and 1 × p4d: q on p4d starts
			// at once; r on p5 waits for a0.
			name: "R2 a job uses only the pool of its own instance type",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}, {instanceType: %[2]s, instances: 1}]\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}, {instanceType: %[2]s, instances: 1}]}]\n", p5, p4d))
			},
			jobs:  []trace.Job{job("a0", "a").runs(100).Job(), job("r", "a").at(1).Job(), job("q", "a").at(2).on(p4d).Job()},
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start q@2", "start r@100"},
		},
		{
			// Pool 4 = a 2 + b 2, all running until b1 ends at 100. Then a is at
			// its quota and its production job ap could only borrow, while b's
			// research job br is within b's quota: br gets the instance although
			// ap has the higher priority (950 > 550). ap borrows when br ends
			// at 100 + 100 = 200.
			name: "R3 a job within its quota goes before a higher-priority borrower",
			p:    twoTeams(", inSharePreemption: false", ""),
			jobs: []trace.Job{job("a1", "a").Job(), job("a2", "a").Job(), job("b1", "b").runs(100).Job(), job("b2", "b").Job(),
				job("ap", "a").at(50).class("production").runs(100).Job(), job("br", "b").at(60).runs(100).Job()},
			kinds: []string{"start", "preempt"},
			want:  []string{"start a1@0", "start a2@0", "start b1@0", "start b2@0", "start br@100", "start ap@200"},
		},
		{
			// a reserves its 2 instances: b may not borrow them, so b3 waits
			// until b1 ends at 100.
			name:  "R4 a RESERVE share's idle capacity is not lent",
			p:     twoTeams(", sharing: reserve", ""),
			jobs:  []trace.Job{job("b1", "b").runs(100).Job(), job("b2", "b").Job(), job("b3", "b").Job()},
			kinds: []string{"start"},
			want:  []string{"start b1@0", "start b2@0", "start b3@100"},
		},
		{
			// b lends but never borrows: a's 2 idle instances stay idle and
			// b3 waits for b1 (ends at 100).
			name:  "R4 a LEND share never borrows",
			p:     twoTeams("", ", sharing: lend"),
			jobs:  []trace.Job{job("b1", "b").runs(100).Job(), job("b2", "b").Job(), job("b3", "b").Job()},
			kinds: []string{"start"},
			want:  []string{"start b1@0", "start b2@0", "start b3@100"},
		},
		{
			// b (lend-and-borrow, borrow limit -1, the default) holds its 2
			// and borrows a's idle 2: all four start at 0.
			name:  "R4 a LEND_AND_BORROW share borrows idle capacity, unlimited by default",
			p:     twoTeams("", ""),
			jobs:  []trace.Job{job("b1", "b").Job(), job("b2", "b").Job(), job("b3", "b").Job(), job("b4", "b").Job()},
			kinds: []string{"start"},
			want:  []string{"start b1@0", "start b2@0", "start b3@0", "start b4@0"},
		},
		{
			// b may borrow 50% of its quota of 2: ⌊2 × 50/100⌋ = 1, so it holds
			// at most 3; b4 waits for b1 (ends at 100) though a's 2 are idle.
			name:  "R5 the borrow limit is a percentage of the share's capacity",
			p:     twoTeams("", ", borrowLimitPercent: 50"),
			jobs:  []trace.Job{job("b1", "b").runs(100).Job(), job("b2", "b").Job(), job("b3", "b").Job(), job("b4", "b").Job()},
			kinds: []string{"start"},
			want:  []string{"start b1@0", "start b2@0", "start b3@0", "start b4@100"},
		},
		{
			// Pool 3 = a 1 + b 1 + c 1 (c lends). a0, b0, c0 fill it; a1
			// (sweep, 150) waits from 10, b1 (production, 950) from 20. c0 ends
			// at 100 and its idle instance goes to the borrower submitted
			// first, a1, whatever the priorities; b1 starts when b0 ends at
			// 1000 (b0 is production too, so b1 cannot preempt it in-share).
			name: "R6 idle capacity goes to borrowers first in, first out",
			p: func(t *testing.T) *platform.Platform {
				return quotaPlatform(t, 3, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %[1]s, instances: 1}]}\n  - {name: b, capacity: [{instanceType: %[1]s, instances: 1}]}\n  - {name: c, capacity: [{instanceType: %[1]s, instances: 1}], sharing: lend}\n", p5))
			},
			jobs: []trace.Job{job("a0", "a").runs(2000).Job(), job("b0", "b").class("production").Job(), job("c0", "c").runs(100).Job(),
				job("a1", "a").at(10).class("sweep").runs(5000).Job(), job("b1", "b").at(20).class("production").Job()},
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start b0@0", "start c0@0", "start a1@100", "start b1@1000"},
		},
		{
			// Pool 4 = a 2 + b 2. b's 4 jobs take b's 2 and borrow a's idle 2 at
			// t=0. At t=10 a's jobs are within a's quota, so they reclaim it:
			// the default rule preempts the latest-submitted borrowed job first
			// (b4, then b3; all else equal). a1 and a2 end at 110 and b3, b4
			// borrow again.
			name: "R7 borrowed capacity returns to its owner by cross-share preemption",
			p:    twoTeams("", ""),
			jobs: []trace.Job{job("b1", "b").Job(), job("b2", "b").Job(), job("b3", "b").Job(), job("b4", "b").Job(),
				job("a1", "a").at(10).runs(100).Job(), job("a2", "a").at(10).runs(100).Job()},
			kinds: []string{"start", "preempt"},
			want: []string{"start b1@0", "start b2@0", "start b3@0", "start b4@0",
				"preempt b4@10", "start a1@10", "preempt b3@10", "start a2@10", "start b3@110", "start b4@110"},
		},
		{
			// Team a's 2 instances run two sweeps; production (950) outranks
			// sweep (150) in the same share, so it preempts one: the later
			// submitted s2 (same priority, start and size as s1). s2 restarts
			// from scratch when p ends at 10 + 100 = 110 and ends at 1110.
			name:  "R8 in-share preemption lets a higher-priority job displace a lower one",
			p:     oneTeam(2, 2, ""),
			jobs:  []trace.Job{job("s1", "a").class("sweep").Job(), job("s2", "a").class("sweep").Job(), job("p", "a").at(10).class("production").runs(100).Job()},
			kinds: []string{"start", "preempt", "done"},
			want:  []string{"start s1@0", "start s2@0", "preempt s2@10", "start p@10", "done p@110", "start s2@110", "done s1@1000", "done s2@1110"},
		},
		{
			// With in-share preemption off, production waits for s1 to end.
			name:  "R8 without in-share preemption a higher-priority job waits",
			p:     oneTeam(2, 2, ", inSharePreemption: false"),
			jobs:  []trace.Job{job("s1", "a").class("sweep").Job(), job("s2", "a").class("sweep").Job(), job("p", "a").at(10).class("production").Job()},
			kinds: []string{"start"},
			want:  []string{"start s1@0", "start s2@0", "start p@1000"},
		},
		{
			// Two sweeps (150) run, r (research 550) started at 0 and s (sweep)
			// started at 5. A production job needs 1 instance: the default
			// rule takes the lowest priority first (the sweeps), then the most
			// recently started of them, s@5.
			name:  "R9 the default victim is the lowest-priority, most recently started job",
			p:     oneTeam(3, 3, ""),
			jobs:  []trace.Job{job("r", "a").Job(), job("s0", "a").class("sweep").Job(), job("s", "a").at(5).class("sweep").Job(), job("p", "a").at(10).class("production").runs(10).Job()},
			kinds: []string{"preempt"},
			want:  []string{"preempt s@10"},
		},
		{
			// One instance; x (research, unlimited preemption retries) is
			// preempted by p1 at 10 and by p2 at 30 and still completes: it
			// runs 0–10, 20–30 and 40–1040.
			name: "R10 preempted jobs are requeued without limit when preemption retries are unset",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}]\nclasses:\n  - {name: production, priority: {min: 900, max: 999}}\n  - {name: research, priority: {min: 500, max: 599}}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}]\n", p5))
			},
			jobs: []trace.Job{job("x", "a").Job(), job("p1", "a").at(10).class("production").runs(10).Job(), job("p2", "a").at(30).class("production").runs(10).Job()},
			want: []string{"start x@0", "preempt x@10", "start p1@10", "done p1@20", "start x@20", "preempt x@30", "start p2@30",
				"done p2@40", "start x@40", "done x@1040"},
		},
		{
			// preemptionRetries 1: requeued after the first preemption (at 10),
			// terminated at the second (at 30).
			name: "R10 a job fails when its preemption retries are exhausted",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}]\nclasses:\n  - {name: production, priority: {min: 900, max: 999}}\n  - {name: research, priority: {min: 500, max: 599}, preemptionRetries: 1}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}]\n", p5))
			},
			jobs:  []trace.Job{job("x", "a").Job(), job("p1", "a").at(10).class("production").runs(10).Job(), job("p2", "a").at(30).class("production").runs(10).Job()},
			kinds: []string{"preempt", "fail"},
			want:  []string{"preempt x@10", "preempt x@30", "fail x@30"},
		},
		{
			// preemptionRetries 0: "jobs go to FAILED on their first preemption".
			name: "R10 with zero preemption retries a job fails at its first preemption",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}]\nclasses:\n  - {name: production, priority: {min: 900, max: 999}}\n  - {name: sweep, priority: {min: 100, max: 199}, preemptionRetries: 0}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}]\n", p5))
			},
			jobs: []trace.Job{job("s", "a").class("sweep").runs(100).Job(), job("p", "a").at(10).class("production").runs(100).Job()},
			want: []string{"start s@0", "preempt s@10", "fail s@10", "start p@10", "done p@110"},
		},
		{
			// One instance, busy until 100 with a0. research (550) outranks
			// sweep (150), so r1 (submitted later) runs 100–200, s1 200–300.
			name:  "R11 a higher scheduling priority starts first",
			p:     oneTeam(1, 1, ", inSharePreemption: false"),
			jobs:  []trace.Job{job("a0", "a").class("sweep").runs(100).Job(), job("s1", "a").at(10).class("sweep").runs(100).Job(), job("r1", "a").at(20).runs(100).Job()},
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start r1@100", "start s1@200"},
		},
		{
			// Request priorities 10 and 90 of research map to 510 and 590: hi
			// (submitted last) runs first when a0 ends at 100.
			name:  "R11 the request priority orders jobs within a class",
			p:     oneTeam(1, 1, ", inSharePreemption: false"),
			jobs:  []trace.Job{job("a0", "a").runs(100).Job(), job("lo", "a").at(10).prio(10).Job(), job("hi", "a").at(20).prio(90).Job()},
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start hi@100", "start lo@1100"},
		},
		{
			// research: maxRuntimeSeconds 50, retries 1 → attempts = 2. A
			// 100 s job times out at 50, is retried (50–100), times out
			// again and fails at 100.
			name: "R12 a timed-out attempt is retried while attempts remain, then the job fails",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}]\nclasses:\n  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 50, retries: 1}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}]\n", p5))
			},
			jobs: []trace.Job{job("r", "a").runs(100).Job()},
			want: []string{"start r@0", "timeout r@50", "start r@50", "timeout r@100", "fail r@100"},
		},
		{
			// maxRuntimeSeconds 50, retries 0 → one attempt: terminated at 50.
			name: "R13 an attempt runs at most the class's maximum runtime",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}]\nclasses:\n  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 50}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}]\n", p5))
			},
			jobs: []trace.Job{job("r", "a").runs(100).Job(), job("q", "a").at(1).runs(50).Job()},
			want: []string{"start r@0", "timeout r@50", "fail r@50", "start q@50", "done q@100"},
		},
		{
			// Nothing ran yet, so usage = weight × running instances. a
			// (weight 1) and b (weight 3) each ask for 8 one-instance jobs on
			// 8 instances; each start goes to the lower usage (ties: a):
			// a(0=0) b(1>0) a(1<3) a(2<3) a(3=3) b(4>3) a(4<6) a(5<6) → a 6, b 2,
			// the 3:1 split of weights 1:3 (lower weight, larger share).
			name:  "R14 fair share splits capacity inversely to the weights",
			p:     fair(8, "shareDecaySeconds: 600", "{name: a, weight: 1}, {name: b, weight: 3}"),
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
			name:  "R15 fair share remembers decayed past usage",
			p:     fair(4, "shareDecaySeconds: 100", "{name: a}, {name: b}"),
			jobs:  append(append(four("a", 0), four("a", 100)...), four("b", 100)...),
			kinds: []string{"start"},
			want: []string{"start a0@0", "start a1@0", "start a2@0", "start a3@0",
				"start b100@100", "start b101@100", "start b102@100", "start a100@100"},
		},
		{
			// shareDecaySeconds 0 is the 600 s window. One instance, weights a 3,
			// b 1, 100 s jobs. Let x = e^(−100/600) = 0.846482 and
			// c = 600·(1 − x) = 92.111 (one instance for 100 s). Usage is
			// weight × H/600 when the instance frees (nothing runs):
			//   t=0:   a 0 = b 0 → a (platform order)
			//   t=100: a 3·c/600 = 0.461,        b 0              → b
			//   t=200: a 3·c·x/600 = 0.390,      b c/600 = 0.154  → b
			//   t=300: a 3·c·x²/600 = 0.330,     b c(1+x)/600 = 0.283 → b
			//   t=400: a 3·c·x³/600 = 0.279,     b (c(1+x)x+c)/600 = 0.393 → a
			// b gets 3 of the first 4 turns after a's: weights count. (Read as
			// "current usage only", a and b would tie at 0 every time and a
			// would get every instance.)
			name:  "R16 shareDecaySeconds 0 means the 600 s minimum window, so weights count on a one-instance pool",
			p:     fair(1, "shareDecaySeconds: 0", "{name: a, weight: 3}, {name: b, weight: 1}"),
			jobs:  append(tenOf("a", 100), tenOf("b", 100)...),
			kinds: []string{"start"},
			want:  []string{"start a0@0", "start b0@100", "start b1@200", "start b2@300", "start a1@400"},
		},
		{
			// shareDecaySeconds 0 → D = 600. a ran 4 instances over [0, 100):
			// H = 4·600·(1 − e^(−1/6)) = 368.4, H/D = 0.614. At t=100 a runs
			// nothing, so the keys are a 0.614, b 0. Each start adds 1 to its
			// share's key: b (0 < 0.614) → b 1; a (0.614 < 1) → a 1.614;
			// b (1 < 1.614) → b 2; a (1.614 < 2): b100, a100, b101, a101.
			name:  "R16 shareDecaySeconds 0 still remembers the last 600 s",
			p:     fair(4, "shareDecaySeconds: 0", "{name: a}, {name: b}"),
			jobs:  append(append(four("a", 0), four("a", 100)...), four("b", 100)...),
			kinds: []string{"start"},
			want: []string{"start a0@0", "start a1@0", "start a2@0", "start a3@0",
				"start b100@100", "start a100@100", "start b101@100", "start a101@100"},
		},
		{
			// computeReservation 50, pool 8, D = 600. a is not active at 0, so
			// its first job may use the whole pool; then a is active (1 share):
			// ⌊8 × 0.5¹⌋ = 4 held back, a holds 4. At 50 b is not active: b0
			// starts (5 in use); now 2 are active: ⌊8 × 0.5²⌋ = 2 held back, so
			// active shares may fill 6. Keys: a 4 + 4·600·(1 − e^(−50/600))/600
			// = 4.32, b 1 → b1 starts (6 in use); then b2 and a would make 7 > 6.
			// At 1000 a's four jobs end: a runs nothing (not active, may use all
			// 8), b 2 (active; 2 active shares once a starts, limit 6). Keys:
			// a 0 + 2400·(1 − e^(−1000/600))/600 = 3.244, b 2 + 1200·(1 −
			// e^(−950/600))/600 = 3.589 → a4 (a 4.244) → b2 (b 4.589) → a5 (a
			// 5.244) → a6 fills 6 → a7 would make 7.
			name:  "R17 the compute reservation holds (r/100)^active of the pool for shares not yet active",
			p:     fair(8, "shareDecaySeconds: 600, computeReservation: 50", "{name: a}, {name: b}"),
			jobs:  append(eight("a")[:8], job("b0", "b").at(50).Job(), job("b1", "b").at(50).Job(), job("b2", "b").at(50).Job()),
			kinds: []string{"start"},
			want: []string{"start a0@0", "start a1@0", "start a2@0", "start a3@0",
				"start b0@50", "start b1@50", "start a4@1000", "start b2@1000", "start a5@1000", "start a6@1000"},
		},
		{
			// Pool 4, computeReservation 50, b never comes: a's 3-instance job
			// starts at once (a is not active, it may use all 4); then a is
			// active and ⌊4 × 0.5⌋ = 2 are held back, so small (2) waits until
			// big ends at 100.
			name:  "R17 a share that is not active may use the reserved capacity",
			p:     fair(4, "computeReservation: 50", "{name: a}, {name: b}"),
			jobs:  []trace.Job{job("big", "a").gang(3).runs(100).Job(), job("small", "a").gang(2).runs(100).Job()},
			kinds: []string{"start"},
			want:  []string{"start big@0", "start small@100"},
		},
		{
			// Fair share: b's production job waits for a's sweep although it
			// outranks it; nothing is preempted.
			name:  "R18 fair share never preempts",
			p:     fair(1, "shareDecaySeconds: 600", "{name: a}, {name: b}"),
			jobs:  []trace.Job{job("s", "a").class("sweep").runs(100).Job(), job("p", "b").at(10).class("production").runs(10).Job()},
			kinds: []string{"start", "preempt"},
			want:  []string{"start s@0", "start p@100"},
		},
		{
			// FIFO: j2 needs the whole pool and blocks j3 behind it although
			// j3 would fit; j2 runs 100–200, then j3.
			name:   "R19 FIFO blocks every job behind a head that does not fit",
			p:      oneTeam(2, 2, ""),
			policy: simulate.PolicyFIFO,
			jobs:   []trace.Job{job("j1", "a").class("sweep").runs(100).Job(), job("j2", "a").at(1).class("production").gang(2).runs(100).Job(), job("j3", "a").at(2).class("sweep").runs(100).Job()},
			kinds:  []string{"start"},
			want:   []string{"start j1@0", "start j2@100", "start j3@200"},
		},
		{
			// FIFO ignores priorities: production p, submitted after sweep s,
			// waits for s although it outranks it.
			name:   "R19 FIFO ignores scheduling priority",
			p:      oneTeam(1, 1, ""),
			policy: simulate.PolicyFIFO,
			jobs:   []trace.Job{job("a0", "a").runs(100).Job(), job("s", "a").at(1).class("sweep").runs(100).Job(), job("p", "a").at(2).class("production").runs(100).Job()},
			kinds:  []string{"start"},
			want:   []string{"start a0@0", "start s@100", "start p@200"},
		},
		{
			// Pool 4: a 5-instance job can never start; a's quota is 2 with a
			// 50% borrow limit (ceiling 3), so a 4-instance job never can
			// either. Both fail when submitted; the 3-instance job runs.
			name:  "R20 a job that can never fit fails when it is submitted",
			p:     twoTeams(", borrowLimitPercent: 50", ""),
			jobs:  []trace.Job{job("pool", "a").gang(5).Job(), job("quota", "a").gang(4).Job(), job("ok", "a").gang(3).runs(10).Job()},
			kinds: []string{"start", "fail"},
			want:  []string{"fail pool@0", "fail quota@0", "start ok@0"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rec := run(t, tc.p(t), tc.policy, tc.jobs...)
			got := rec.lines
			if tc.kinds != nil {
				got = rec.only(tc.kinds...)
			}
			if len(got) > len(tc.want) {
				got = got[:len(tc.want)]
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s\nall: %v", diff, rec.lines)
			}
		})
	}
}

// jobBuilder builds a trace job fluently. Default: 1 × ml.p5.48xlarge,
// research, submitted at 0, running 1000 s, no request priority.
type jobBuilder struct{ j trace.Job }

func job(id, team string) *jobBuilder {
	return &jobBuilder{trace.Job{ID: id, Team: team, Class: "research", InstanceType: p5, Instances: 1, Duration: 1000, Priority: trace.NoPriority}}
}

func (b *jobBuilder) at(s int64) *jobBuilder       { b.j.Submit = s; return b }
func (b *jobBuilder) runs(d int64) *jobBuilder     { b.j.Duration = d; return b }
func (b *jobBuilder) gang(k int) *jobBuilder       { b.j.Instances = k; return b }
func (b *jobBuilder) class(c string) *jobBuilder   { b.j.Class = c; return b }
func (b *jobBuilder) on(it string) *jobBuilder     { b.j.InstanceType = it; return b }
func (b *jobBuilder) prio(p int) *jobBuilder       { b.j.Priority = p; return b }
func (b *jobBuilder) Job() trace.Job               { return b.j }
func (b *jobBuilder) team(name string) *jobBuilder { b.j.Team = name; return b }

// four gives team four one-instance research jobs of 100 s at submit.
func four(team string, submit int64) []trace.Job {
	var out []trace.Job
	for i := range 4 {
		out = append(out, job(fmt.Sprintf("%s%d", team, int(submit)+i), team).at(submit).runs(100).Job())
	}
	return out
}

// eight gives each team eight one-instance research jobs at t=0.
func eight(teams ...string) []trace.Job {
	var out []trace.Job
	for _, tm := range teams {
		for i := range 8 {
			out = append(out, job(fmt.Sprintf("%s%d", tm, i), tm).Job())
		}
	}
	return out
}

// tenOf gives team ten one-instance research jobs of dur seconds at t=0.
func tenOf(team string, dur int64) []trace.Job {
	var out []trace.Job
	for i := range 10 {
		out = append(out, job(fmt.Sprintf("%s%d", team, i), team).runs(dur).Job())
	}
	return out
}

// TestDefaultLoadDrains: a generated trace at the generator's default load
// (0.5 of the pools; the daily peak 0.75 is below what FIFO serves, about
// 0.82) drains under both the default platform and FIFO: no job of any class
// waits a day, and goodput is the offered load (0.5, here within 5%: the
// makespan runs a little past the last submission, and a job may fail when
// its class's preemption retries run out).
func TestDefaultLoadDrains(t *testing.T) {
	p := platform.Default()
	var jobs []trace.Job
	if err := trace.Generate(p, trace.GenerateOptions{Seed: 9, Jobs: 20000}, func(j trace.Job) error {
		jobs = append(jobs, j)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, pol := range []simulate.Policy{simulate.PolicyPlatform, simulate.PolicyFIFO} {
		res, _ := run(t, p, pol, jobs...)
		for _, c := range res.Classes {
			if c.Wait.Max >= 86400 {
				t.Errorf("%s: %s waited up to %s", pol, c.Name, simulate.Duration(c.Wait.Max))
			}
		}
		if res.Goodput < 0.5*0.95 || res.Goodput > 0.5*1.05 {
			t.Errorf("%s: goodput %.4f (%d of %d jobs completed), want about 0.5", pol, res.Goodput, res.Completed, len(jobs))
		}
	}
}
