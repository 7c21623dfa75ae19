package reroute_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/reroute"
)

// saturatedP5 is alpha holding its whole p5 quota (4 of 4), nothing else:
// alpha's headroom is p5 min(4−4, 8−4) = 0, p4d min(4−0, 8−0) = 4,
// g5 min(2−0, 4−0) = 2; beta's is p5 min(4−0, 8−4) = 4.
var saturatedP5 = map[string]map[string]float64{"alpha": {p5: 4}}

func TestWhichJobsMove(t *testing.T) {
	long := 20 * time.Minute // past research's and sweep's afterSeconds (600 s)
	capacity := batchrules.ReasonInsufficientCapacity + " - Unable to provision requested compute resources"
	for _, tc := range []struct {
		name   string
		usage  map[string]map[string]float64
		job    spec
		wantTo string // "" when the job stays
		want   reroute.Summary
	}{
		{"a research job past afterSeconds on a type saturated for its team moves to the next listed type with room",
			saturatedP5, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: long}, p4d, reroute.Summary{Moved: 1}},
		{"a job exactly at afterSeconds (600 s) moves",
			saturatedP5, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 600 * time.Second}, p4d, reroute.Summary{Moved: 1}},
		{"a job that waited 599 s stays",
			saturatedP5, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 599 * time.Second}, "", reroute.Summary{}},
		{"a job whose type is not in its class's list stays (sweep lists p5 and p4d, not g5)",
			map[string]map[string]float64{"alpha": {g5: 2}}, spec{class: "sweep", team: "alpha", priority: 150, it: g5, waited: long}, "", reroute.Summary{}},
		{"a job of a class without reroute stays",
			saturatedP5, spec{class: "production", team: "alpha", priority: 950, it: p5, waited: long}, "", reroute.Summary{}},
		{"a job of another platform stays",
			saturatedP5, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: long, platform: "other"}, "", reroute.Summary{}},
		{"a job whose type has room for it stays (alpha holds 3 of 4 p5: room 1)",
			map[string]map[string]float64{"alpha": {p5: 3}}, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: long}, "", reroute.Summary{}},
		{"a job no other type has room for stays, counted skipped (alpha holds p5 4/4, p4d 4/4, g5 2/2)",
			map[string]map[string]float64{"alpha": {p5: 4, p4d: 4, g5: 2}}, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: long}, "", reroute.Summary{Skipped: 1}},
		{"a job needing more instances than any other type has room for stays (3 on g5's room of 2; p4d full)",
			map[string]map[string]float64{"alpha": {p5: 4, p4d: 4}}, spec{class: "research", team: "alpha", priority: 550, it: p5, count: 3, waited: long}, "", reroute.Summary{Skipped: 1}},
		{"a started job is never moved",
			saturatedP5, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: long, status: "RUNNING"}, "", reroute.Summary{}},
		{"without a class tag the class is the priority's band (550: research)",
			saturatedP5, spec{team: "alpha", priority: 550, it: p5, waited: long}, p4d, reroute.Summary{Moved: 1}},
		{"another team's room does not count: beta holds p5 4/4, p4d 4/4, g5 2/2 while alpha has room",
			map[string]map[string]float64{"beta": {p5: 4, p4d: 4, g5: 2}}, spec{class: "research", team: "beta", priority: 550, it: p5, waited: long}, "", reroute.Summary{Skipped: 1}},
		{"a job SageMaker cannot place (statusReason CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY) moves although its quota has room",
			nil, spec{class: "research", team: "alpha", priority: 550, it: p5, waited: long, reason: capacity}, p4d, reroute.Summary{Moved: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.use(tc.usage)
			old := e.add(tc.job)
			got := e.run(t)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			subs := e.submitted(t)
			if tc.wantTo == "" {
				if len(subs) != 0 || len(e.fake.Calls("TerminateServiceJob")) != 0 {
					t.Fatalf("the job moved: %d submitted, %d terminated", len(subs), len(e.fake.Calls("TerminateServiceJob")))
				}
				return
			}
			if len(subs) != 1 {
				t.Fatalf("%d jobs submitted, want 1", len(subs))
			}
			if it := instanceType(t, subs[0].ServiceRequestPayload); it != tc.wantTo {
				t.Errorf("moved to %s, want %s", it, tc.wantTo)
			}
			if j, _ := e.fake.Job(old); j.Status != "FAILED" || !strings.HasPrefix(j.StatusReason, contract.ReroutedReasonPrefix) {
				t.Errorf("old job %s: %s %q, want FAILED with a reason starting %q", old, j.Status, j.StatusReason, contract.ReroutedReasonPrefix)
			}
		})
	}
}

// TestAMoveKeepsTheJob checks the replacement's request field by field
// against the old job's, and the old job's status reason.
func TestAMoveKeepsTheJob(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{name: "train-resnet-1a2b3c4d", class: "research", team: "alpha", priority: 573, it: p5, count: 2, waited: time.Hour, moves: 1})
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("summary %+v, want 1 moved", got)
	}
	oldJob, _ := e.fake.Job(old)
	subs := e.submitted(t)
	if len(subs) != 1 {
		t.Fatalf("%d submitted, want 1", len(subs))
	}
	got := subs[0]
	want := oldJob.Request
	want.JobName = reroute.ReplacementName("train-resnet-1a2b3c4d", old)
	// The decision, on the old job: move 2 (it had moved once), to p4d, at
	// its priority 573, decided at t0.
	rec := oldJob.Request.Tags[contract.TagMove]
	if wantRec := fmt.Sprintf("2/%s/573/%d/", p4d, t0.Unix()); !strings.HasPrefix(rec, wantRec) {
		t.Errorf("decision %q, want it to start %q", rec, wantRec)
	}
	want.ClientToken = reroute.MoveToken(old, rec)
	want.ServiceRequestPayload = payload(p4d, 2) // only the instance type differs, byte for byte
	want.Tags = map[string]string{}
	for k, v := range oldJob.Request.Tags {
		if k != contract.TagMove { // the decision stays on the old job
			want.Tags[k] = v
		}
	}
	want.Tags[contract.TagReroutedFrom] = old
	want.Tags[contract.TagMoves] = "2" // the old job had moved once
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replacement request (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(got.JobName, "train-resnet-1a2b3c4d-r") || len(got.JobName) != len("train-resnet-1a2b3c4d")+10 {
		t.Errorf("name %q: want the old name, -r and 8 hex digits", got.JobName)
	}
	created := e.fake.Jobs()[1]
	if wantReason := contract.ReroutedReason(created.ID, p4d); oldJob.StatusReason != wantReason {
		t.Errorf("old job's reason %q, want %q", oldJob.StatusReason, wantReason)
	}
}

func TestNames(t *testing.T) {
	long := strings.Repeat("n", 128)
	for _, tc := range []struct{ name, oldName, oldID string }{
		{"a short name gets -r and 8 hex digits", "train-1a2b3c4d", "00000001-0000-4000-8000-000000000001"},
		{"a 128-character name is cut to keep 128", long, "00000001-0000-4000-8000-000000000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := reroute.ReplacementName(tc.oldName, tc.oldID)
			if !batchrules.ValidName(n) {
				t.Errorf("%q is no valid Batch job name", n)
			}
			if again := reroute.ReplacementName(tc.oldName, tc.oldID); again != n {
				t.Errorf("not deterministic: %q then %q", n, again)
			}
			// A second move keeps the lineage's base, not a growing name.
			second := reroute.ReplacementName(n, "00000002-0000-4000-8000-000000000002")
			if len(second) != len(n) || second[:len(n)-8] != n[:len(n)-8] {
				t.Errorf("second move's name %q, want the base of %q with other digits", second, n)
			}
		})
	}
	tok := reroute.MoveToken("00000001-0000-4000-8000-000000000001", "1/ml.p4d.24xlarge/550/1796126400/0123456789abcdef")
	if len(tok) > batchrules.MaxClientTokenLength || tok == reroute.MoveToken("00000001-0000-4000-8000-000000000001", "2/ml.p4d.24xlarge/550/1796126400/0123456789abcdef") {
		t.Errorf("token %q: want at most 64 characters, distinct per decision", tok)
	}
}

// TestPriorityOrderAndRoomAccounting: three research jobs of alpha, 2
// instances each, wait on p5 (alpha holds p5 4/4) with alpha holding 1 of
// p4d. Rooms: p4d min(4−1, 8−1) = 3, g5 min(2−0, 4−0) = 2.
// In priority order: 590 takes p4d (room 3−2 = 1 left); 550 does not fit
// p4d's 1, takes g5 (2−2 = 0 left); 510 fits nowhere and is skipped.
func TestPriorityOrderAndRoomAccounting(t *testing.T) {
	e := newEnv(t, nil)
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 1}})
	low := e.add(spec{class: "research", team: "alpha", priority: 510, it: p5, count: 2, waited: 3 * time.Hour})
	high := e.add(spec{class: "research", team: "alpha", priority: 590, it: p5, count: 2, waited: time.Hour})
	mid := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, count: 2, waited: 2 * time.Hour})
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Moved: 2, Skipped: 1}, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	to := map[string]string{}
	for _, s := range e.submitted(t) {
		to[s.Tags[contract.TagReroutedFrom]] = instanceType(t, s.ServiceRequestPayload)
	}
	if diff := cmp.Diff(map[string]string{high: p4d, mid: g5}, to); diff != "" {
		t.Errorf("moves (-want +got):\n%s", diff)
	}
	if j, _ := e.fake.Job(low); j.Status != "RUNNABLE" {
		t.Errorf("lowest job %s, want RUNNABLE where it was", j.Status)
	}
}

// TestAHigherPriorityJobThatFitsTakesTheRoomFirst: alpha holds p5 4/4 and
// p4d 3/4 (room 1). A production job (no reroute) waits on p4d and fits:
// it takes the last p4d instance first, so the research job on p5 finds
// no room on p4d, and moves to g5 (room 2) instead.
func TestAHigherPriorityJobThatFitsTakesTheRoomFirst(t *testing.T) {
	e := newEnv(t, nil)
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 3}})
	e.add(spec{class: "production", team: "alpha", priority: 950, it: p4d, waited: time.Minute})
	research := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("summary %+v, want 1 moved", got)
	}
	s := e.submitted(t)[0]
	if s.Tags[contract.TagReroutedFrom] != research || instanceType(t, s.ServiceRequestPayload) != g5 {
		t.Errorf("moved %s to %s, want %s to %s", s.Tags[contract.TagReroutedFrom], instanceType(t, s.ServiceRequestPayload), research, g5)
	}
}

func TestMaxMoves(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	// research's maxMoves is 2: a job that moved twice stays.
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour, moves: 2})
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Refused: 1, RefusedBy: map[string]int{metrics.RefusedMaxMoves: 1}}, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if n := len(e.fake.Calls("SubmitServiceJob")); n != 0 {
		t.Errorf("%d submissions, want none", n)
	}
}

// TestPerMinuteBound: the platform allows 3 moves a minute. Five jobs of
// one instance each could move (alpha's p4d room 4, g5 room 2: 6).
// Run 1 at t0: 3 move, 2 refused RATE. Run 2 at t0 again: the bucket is
// empty, the 2 are refused again. Run 3 at t0+20 s: 20 × 3/60 = 1 move
// back in the bucket: 1 moves, 1 refused.
func TestPerMinuteBound(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for i := 0; i < 5; i++ {
		e.add(spec{class: "research", team: "alpha", priority: 550 + i, it: p5, waited: time.Hour})
	}
	rate := func(n int) map[string]int { return map[string]int{metrics.RefusedRate: n} }
	for _, step := range []struct {
		at   time.Duration
		want reroute.Summary
	}{
		{0, reroute.Summary{Moved: 3, Refused: 2, RefusedBy: rate(2)}},
		{0, reroute.Summary{Refused: 2, RefusedBy: rate(2)}},
		{20 * time.Second, reroute.Summary{Moved: 1, Refused: 1, RefusedBy: rate(1)}},
	} {
		e.now = t0.Add(step.at)
		if diff := cmp.Diff(step.want, e.run(t)); diff != "" {
			t.Errorf("run at t0+%v (-want +got):\n%s", step.at, diff)
		}
	}
	if n := len(e.fake.Calls("SubmitServiceJob")); n != 4 {
		t.Errorf("%d submissions, want 4", n)
	}
	// A move the bound refuses costs no call: one look-up by name per
	// submission.
	lookups := 0
	for _, c := range e.fake.Calls("ListServiceJobs") {
		if strings.Contains(string(c.Body), "JOB_NAME") {
			lookups++
		}
	}
	if lookups != 4 {
		t.Errorf("%d look-ups by name, want 4", lookups)
	}
}

// TestCrashBetweenSubmitAndTerminate: the old job's termination fails
// three times (all the SDK's attempts), as if the run died after the
// submission. The next run finds the replacement by its name, terminates
// the old job and submits nothing.
func TestCrashBetweenSubmitAndTerminate(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("TerminateServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Refused: 1, RefusedBy: map[string]int{metrics.RefusedTerminate: 1}}, got); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	if live := e.fake.Live(); len(live) != 2 {
		t.Fatalf("%d live jobs after the crash, want 2 (old and new)", len(live))
	}
	got = e.run(t)
	if diff := cmp.Diff(reroute.Summary{Moved: 1}, got); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	if n := len(e.fake.Calls("SubmitServiceJob")); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
	live := e.fake.Live()
	if len(live) != 1 || live[0].Request.Tags[contract.TagReroutedFrom] != old {
		t.Errorf("live jobs %v, want only the replacement of %s", live, old)
	}
}

// TestLostSubmitAnswer: the first submission creates the job but its
// answer is lost; the SDK's retry repeats the token and is refused; the
// re-router finds the job by name and finishes the move.
func TestLostSubmitAnswer(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.Fault{LoseAnswer: true})
	if diff := cmp.Diff(reroute.Summary{Moved: 1}, e.run(t)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	jobs := e.fake.Jobs()
	if len(jobs) != 2 {
		t.Fatalf("%d jobs, want the old and one replacement", len(jobs))
	}
	if j, _ := e.fake.Job(old); j.Status != "FAILED" || j.StatusReason != contract.ReroutedReason(jobs[1].ID, p4d) {
		t.Errorf("old job %s %q, want terminated as moved to %s", j.Status, j.StatusReason, jobs[1].ID)
	}
}

// TestLostAnswerAndStaleListing: the answer is lost, and the first look
// by name sees a listing that does not show the new job yet; the repeated
// token's refusal makes the re-router look again, and it finds it.
func TestLostAnswerAndStaleListing(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.Fault{LoseAnswer: true}, batchtest.Fault{LoseAnswer: true}, batchtest.Fault{LoseAnswer: true})
	// RUNNABLE and 5 other statuses, the FAILED look-back and the look
	// before submitting pass; the first look after the failure is stale.
	e.fake.Script("ListServiceJobs", batchtest.Fault{}, batchtest.Fault{}, batchtest.Fault{}, batchtest.Fault{}, batchtest.Fault{}, batchtest.Fault{},
		batchtest.Fault{}, batchtest.Fault{}, batchtest.Fault{Stale: true})
	if diff := cmp.Diff(reroute.Summary{Moved: 1}, e.run(t)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if n := len(e.fake.Jobs()); n != 2 {
		t.Errorf("%d jobs, want the old and one replacement", n)
	}
}

// TestOldJobStartsBeforeTerminate: the old job starts while its
// replacement is submitted; the re-router sees it when it describes the old
// job again, terminates the replacement instead and counts the move
// refused (STARTED).
func TestOldJobStartsBeforeTerminate(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.OnSubmit(func(batchtest.Job) { e.fake.SetStatus(old, "RUNNING") })
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Refused: 1, RefusedBy: map[string]int{metrics.RefusedStarted: 1}}, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	jobs := e.fake.Jobs()
	if j, _ := e.fake.Job(old); j.Status != "RUNNING" || j.Terminated {
		t.Errorf("old job %s terminated=%v, want RUNNING untouched", j.Status, j.Terminated)
	}
	if n := jobs[1]; n.Status != "FAILED" || n.StatusReason != contract.RerouteAbandonedReason(old, "RUNNING") {
		t.Errorf("replacement %s %q, want terminated as abandoned", n.Status, n.StatusReason)
	}
}

// TestBothStarted: the old job and the replacement both start during the
// submission; neither is terminated (a started job never is).
func TestBothStarted(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.OnSubmit(func(created batchtest.Job) {
		e.fake.SetStatus(old, "RUNNING")
		e.fake.SetStatus(created.ID, "RUNNING")
	})
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Refused: 1, RefusedBy: map[string]int{metrics.RefusedBothStarted: 1}}, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if n := len(e.fake.Calls("TerminateServiceJob")); n != 0 {
		t.Errorf("%d terminations, want none", n)
	}
}

// TestLeftoverWhoseOldJobStarted: a run died after submitting; by the next
// run the old job has started. The next run terminates the replacement.
func TestLeftoverWhoseOldJobStarted(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("TerminateServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	e.fake.SetStatus(old, "RUNNING")
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Refused: 1, RefusedBy: map[string]int{metrics.RefusedStarted: 1}}, got); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	live := e.fake.Live()
	if len(live) != 1 || live[0].ID != old {
		t.Errorf("live %v, want only the old job %s", live, old)
	}
}

// TestThrottledRunStopsCleanly: every attempt of the first submission is
// throttled; the run stops without another call and defers the rest;
// the next run moves both.
func TestThrottledRunStopsCleanly(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	e.add(spec{class: "research", team: "alpha", priority: 560, it: p5, waited: time.Hour})
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.Throttle, batchtest.Throttle, batchtest.Throttle)
	got := e.run(t)
	if diff := cmp.Diff(reroute.Summary{Refused: 1, RefusedBy: map[string]int{metrics.RefusedSubmit: 1}, Deferred: 1, Stopped: "throttled"}, got); diff != "" {
		t.Errorf("throttled run (-want +got):\n%s", diff)
	}
	if n := len(e.fake.Calls("TerminateServiceJob")); n != 0 {
		t.Errorf("%d terminations, want none", n)
	}
	e.now = e.now.Add(time.Minute)
	if diff := cmp.Diff(reroute.Summary{Moved: 2}, e.run(t)); diff != "" {
		t.Errorf("next run (-want +got):\n%s", diff)
	}
}

// TestFailedForCapacity: a research job that AWS Batch's time limit action
// ended for capacity on p5 is resubmitted on p4d, nothing terminated; a
// second run finds the replacement and submits nothing. A job that failed
// for another reason, and one cancelled, are left alone.
func TestFailedForCapacity(t *testing.T) {
	e := newEnv(t, nil)
	failed := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 10 * time.Minute, status: "FAILED",
		reason: "Terminated by JobStateTimeLimit action due to reason: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"})
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 10 * time.Minute, status: "FAILED", reason: "AlgorithmError: exit 1"})
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 10 * time.Minute, status: "FAILED", reason: contract.CancelReason("", "")})
	if diff := cmp.Diff(reroute.Summary{Moved: 1}, e.run(t)); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	subs := e.submitted(t)
	if len(subs) != 1 || subs[0].Tags[contract.TagReroutedFrom] != failed || instanceType(t, subs[0].ServiceRequestPayload) != p4d {
		t.Fatalf("submitted %+v, want the failed job on %s", subs, p4d)
	}
	if n := len(e.fake.Calls("TerminateServiceJob")); n != 0 {
		t.Errorf("%d terminations, want none", n)
	}
	// The replacement's name is among the listed jobs: the failed job is
	// not planned at all (nothing skipped, no room taken).
	if diff := cmp.Diff(reroute.Summary{}, e.run(t)); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	if n := len(e.submitted(t)); n != 1 {
		t.Errorf("%d replacements after the second run, want 1", n)
	}
}

func TestCapacityFailure(t *testing.T) {
	for reason, want := range map[string]bool{
		"Terminated by JobStateTimeLimit action due to reason: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY":                      true,
		"CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision requested compute resources":                          true,
		"CapacityError: Unable to provision requested ML compute capacity. Please retry using a different ML instance type.": true,
		"Terminated by JobStateTimeLimit action due to reason: MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED":             false,
		"AlgorithmError: exit 1":                    false,
		contract.CancelReason("", "through trainq"): false,
		contract.ReroutedReason("00000001", p4d):    false,
		"":                                          false,
	} {
		if got := reroute.CapacityFailure(reason); got != want {
			t.Errorf("CapacityFailure(%q) = %v, want %v", reason, got, want)
		}
	}
}

// TestEveryLineageKeepsOneLiveJob moves a job twice (its own maxMoves)
// over two runs and checks the lineage tags and the move count.
func TestEveryLineageKeepsOneLiveJob(t *testing.T) {
	e := newEnv(t, nil)
	// alpha holds p5 4/4 and g5 2/2: p4d (room 4) is the only way out.
	e.use(map[string]map[string]float64{"alpha": {p5: 4, g5: 2}})
	first := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.run(t)
	// Now p4d fills up and p5 frees: the replacement, waiting past the
	// threshold an hour later, moves back.
	e.use(map[string]map[string]float64{"alpha": {p4d: 4, g5: 2}})
	e.fake.SetStatus(e.fake.Jobs()[1].ID, "RUNNABLE") // Batch's scheduler took it in
	e.now = e.now.Add(time.Hour)
	e.run(t)
	live := e.fake.Live()
	if len(live) != 1 {
		t.Fatalf("live %v, want one", live)
	}
	last := live[0]
	if last.Request.Tags[contract.TagMoves] != "2" || instanceType(t, last.Request.ServiceRequestPayload) != p5 {
		t.Errorf("last job: moves %q on %s, want 2 on %s", last.Request.Tags[contract.TagMoves], instanceType(t, last.Request.ServiceRequestPayload), p5)
	}
	second := e.fake.Jobs()[1]
	if second.Request.Tags[contract.TagReroutedFrom] != first || last.Request.Tags[contract.TagReroutedFrom] != second.ID {
		t.Errorf("lineage %s <- %s <- %s broken", first, second.ID, last.ID)
	}
	if !strings.HasPrefix(last.Request.JobName, strings.TrimSuffix(second.Request.JobName, second.Request.JobName[len(second.Request.JobName)-8:])) {
		t.Errorf("names %q and %q do not share the lineage's base", second.Request.JobName, last.Request.JobName)
	}
}

func TestRunWritesMetrics(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.add(spec{class: "research", team: "alpha", priority: 551, it: p5, waited: time.Hour, moves: 2})
	e.run(t)
	got := map[string][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(e.metrics.String()), "\n") {
		var root map[string]any
		if err := json.Unmarshal([]byte(line), &root); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
	}
	for k, v := range emfValues(t, e.metrics.Bytes()) {
		got[k] = v
	}
	want := map[string][]float64{
		"trainq/JobsRerouted{Queue=trainq-training}":    {1},
		"trainq/ReroutesRefused{Queue=trainq-training}": {1},
		"trainq/JobsRerouted{Class=research,FromInstanceType=ml.p5.48xlarge,Queue=trainq-training,Team=alpha,ToInstanceType=ml.p4d.24xlarge}": {1},
		"trainq/JobsRerouted{Class=research,Queue=trainq-training}":                                                                           {1},
		"trainq/ReroutesRefused{Queue=trainq-training,Reason=MAX_MOVES}":                                                                      {1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
	if n := strings.Count(e.log.String(), `"msg":"rerouted"`); n != 1 {
		t.Errorf("%d rerouted log lines, want 1:\n%s", n, e.log.String())
	}
}

// TestReplacementFailedBeforeTheMoveFinished: a run stopped between the
// submission and the termination, then the replacement failed for
// capacity. The old job is the lineage's live job: the next run neither
// moves it again (its replacement's name is taken) nor resubmits the
// failed replacement.
func TestReplacementFailedBeforeTheMoveFinished(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("TerminateServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	repl := e.fake.Jobs()[1]
	e.fake.SetStatus(repl.ID, "FAILED")
	e.fake.SetStatusReason(repl.ID, "Terminated by JobStateTimeLimit action due to reason: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY")
	// The old job's replacement name is taken: it is not planned. The
	// failed replacement is planned, and skipped because the job it
	// replaced is live.
	if diff := cmp.Diff(reroute.Summary{Skipped: 1}, e.run(t)); diff != "" {
		t.Errorf("second run (-want +got):\n%s", diff)
	}
	live := e.fake.Live()
	if len(live) != 1 || live[0].ID != old || len(e.fake.Jobs()) != 2 {
		t.Errorf("live %v of %d jobs, want only the old job %s of 2", live, len(e.fake.Jobs()), old)
	}
}

// TestAColdStartCountsTheLastMinutesMoves: one function instance moves 3
// jobs at t0 (the platform's 3 a minute); a new instance (a cold start,
// its own bucket) running at t0+30 s sees the 3 replacements Batch created
// within the last minute and starts with an empty bucket, refilled at 3 a
// minute from then: none of the 2 left moves; at t0+50 s, 20 s later, 1
// does (20 × 3/60 = 1).
func TestAColdStartCountsTheLastMinutesMoves(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for i := 0; i < 5; i++ {
		e.add(spec{class: "research", team: "alpha", priority: 550 + i, it: p5, waited: time.Hour})
	}
	if got := e.run(t); got.Moved != 3 {
		t.Fatalf("first instance: %+v, want 3 moved", got)
	}
	cold := e.again(t)
	e.now = t0.Add(30 * time.Second)
	rate := func(n int) map[string]int { return map[string]int{metrics.RefusedRate: n} }
	if diff := cmp.Diff(reroute.Summary{Refused: 2, RefusedBy: rate(2)}, e.runWith(t, cold)); diff != "" {
		t.Errorf("cold instance at t0+30 s (-want +got):\n%s", diff)
	}
	e.now = t0.Add(50 * time.Second)
	if diff := cmp.Diff(reroute.Summary{Moved: 1, Refused: 1, RefusedBy: rate(1)}, e.runWith(t, cold)); diff != "" {
		t.Errorf("cold instance at t0+50 s (-want +got):\n%s", diff)
	}
}

// TestARunMakesAtMostTheMinutesMoves: with a clock that jumps a minute at
// every reading, the bucket is full at every move; the run still stops at
// 3 submissions (the platform's 3 a minute), the 2 others refused RATE.
func TestARunMakesAtMostTheMinutesMoves(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for i := 0; i < 5; i++ {
		e.add(spec{class: "research", team: "alpha", priority: 550 + i, it: p5, waited: time.Hour})
	}
	r := e.againWith(t, func() time.Time { e.now = e.now.Add(time.Minute); return e.now })
	got := e.runWith(t, r)
	if diff := cmp.Diff(reroute.Summary{Moved: 3, Refused: 2, RefusedBy: map[string]int{metrics.RefusedRate: 2}}, got); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestOneJobsErrorDoesNotStopTheOthers: Batch refuses the first
// submission (a ClientException that is no repeated token); no replacement
// is found after it, the move is refused SUBMIT, and the next job moves.
func TestOneJobsErrorDoesNotStopTheOthers(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	e.add(spec{class: "research", team: "alpha", priority: 560, it: p5, waited: time.Hour})
	second := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.Fault{Status: 400, Code: "ClientException"})
	if diff := cmp.Diff(reroute.Summary{Moved: 1, Refused: 1, RefusedBy: map[string]int{metrics.RefusedSubmit: 1}}, e.run(t)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if subs := e.submitted(t); len(subs) != 1 || subs[0].Tags[contract.TagReroutedFrom] != second {
		t.Errorf("replacements %+v, want the second job's only", subs)
	}
}

// TestJobsTheRerouterCannotReadStay: runnable jobs of the platform whose
// payload or tags are not what the submission function writes are left
// where they are (logged), and the one readable job still moves.
func TestJobsTheRerouterCannotReadStay(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	good := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	prio, team := 551, "alpha"
	// 10,240 bytes on p5 (14 characters): 10,241 on p4d (15), over Batch's
	// limit: refused REQUEST.
	tail := `","ResourceConfig":{"InstanceCount":1,"InstanceType":"ml.p5.48xlarge"}}`
	atLimit := `{"Pad":"` + strings.Repeat("x", 10*1024-len(`{"Pad":"`)-len(tail)) + tail
	for _, bad := range []struct{ payload, moves string }{
		{payload: `not json`},
		{payload: `{"AlgorithmSpecification":{}}`},
		{payload: `{"ResourceConfig":{"InstanceCount":-1,"InstanceType":"ml.p5.48xlarge"}}`},
		{payload: `{"ResourceConfig":{"InstanceCount":1.5,"InstanceType":"ml.p5.48xlarge"}}`},
		{payload: `{"ResourceConfig":{"InstanceCount":1e400,"InstanceType":"ml.p5.48xlarge"}}`},
		{payload: `{"ResourceConfig":{"InstanceCount":1,"InstanceType":"<script>"}}`},
		{payload: `{"ResourceConfig":{"InstanceCount":1,"InstanceGroups":[{"InstanceCount":1,"InstanceGroupName":"a","InstanceType":"ml.p5.48xlarge"}]}}`},
		{payload: atLimit},
		{payload: payload(p5, 1), moves: "many"},
		{payload: payload(p5, 1), moves: "-3"},
	} {
		tags := map[string]string{contract.TagPlatform: "trainq", contract.TagClass: "research", contract.TagTeam: team}
		if bad.moves != "" {
			tags[contract.TagMoves] = bad.moves
		}
		e.fake.Add(batchtest.Job{Request: batchtest.SubmitRequest{JobName: "bad-1a2b3c4d", JobQueue: testQueue, ServiceJobType: "SAGEMAKER_TRAINING",
			ServiceRequestPayload: bad.payload, SchedulingPriority: &prio, QuotaShareName: &team, Tags: tags},
			Status: "RUNNABLE", CreatedAt: t0.Add(-time.Hour).UnixMilli()})
	}
	got := e.run(t)
	want := reroute.Summary{Moved: 1, Refused: 3, RefusedBy: map[string]int{metrics.RefusedMaxMoves: 2, metrics.RefusedRequest: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("summary (-want +got): the unreadable move counts are at any bound, the payload at the limit cannot grow\n%s", diff)
	}
	if subs := e.submitted(t); len(subs) != 1 || subs[0].Tags[contract.TagReroutedFrom] != good {
		t.Errorf("replacements %d, want the good job's only", len(subs))
	}
}

// TestAWarmInstancePlansFromItsCacheAndMovesWhatBatchSaysNow: a warm
// instance does not describe again a runnable job it read within the TTL
// (10 minutes), but describes a job again before moving it, so that the
// replacement gets the priority the job has now.
func TestAWarmInstancePlansFromItsCacheAndMovesWhatBatchSaysNow(t *testing.T) {
	e := newEnv(t, nil)
	full := map[string]map[string]float64{"alpha": {p5: 4, p4d: 4, g5: 2}}
	e.use(full)
	id := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.run(t) // nowhere to go: skipped, described once
	describes := len(e.fake.Calls("DescribeServiceJob"))
	e.now = e.now.Add(time.Minute)
	if got := e.run(t); got.Skipped != 1 || len(e.fake.Calls("DescribeServiceJob")) != describes {
		t.Errorf("warm run: %+v, %d descriptions, want skipped and none", got, len(e.fake.Calls("DescribeServiceJob"))-describes)
	}
	e.fake.SetPriority(id, 590)
	e.use(saturatedP5)
	e.now = e.now.Add(time.Minute)
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("run after p4d freed: %+v, want 1 moved", got)
	}
	if s := e.submitted(t)[0]; s.SchedulingPriority == nil || *s.SchedulingPriority != 590 {
		t.Errorf("replacement priority %v, want the job's current 590", s.SchedulingPriority)
	}
}
