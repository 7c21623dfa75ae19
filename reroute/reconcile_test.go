package reroute_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/reroute"
)

// TestTheDecisionIsRecordedBeforeAnythingIsSubmitted: the run dies (every
// submission fails) after the decision is written; by the next run the
// job was re-prioritized (550 → 580) and p4d is saturated while g5 has
// room, so a fresh decision would differ. The next run sends the request
// decided first, byte for byte, with the same clientToken, and finishes
// the move.
func TestTheDecisionIsRecordedBeforeAnythingIsSubmitted(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	oj, _ := e.fake.Job(old)
	rec := oj.Request.Tags[contract.TagMove]
	if !strings.HasPrefix(rec, "1/"+p4d+"/550/") || len(e.submitted(t)) != 0 {
		t.Fatalf("after the failed run: decision %q, %d replacements; want 1/%s/550/…, none", rec, len(e.submitted(t)), p4d)
	}
	e.fake.SetPriority(old, 580)
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 4}})
	e.now = e.now.Add(2 * time.Minute)
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("second run %+v, want the move finished", got)
	}
	calls := e.fake.Calls("SubmitServiceJob")
	if len(calls) != 4 {
		t.Fatalf("%d submissions, want 3 failed attempts and 1 more", len(calls))
	}
	var first, retry batchtest.SubmitRequest
	if json.Unmarshal(calls[0].Body, &first) != nil || json.Unmarshal(calls[3].Body, &retry) != nil {
		t.Fatal("undecodable submissions")
	}
	if diff := cmp.Diff(first, retry); diff != "" { // the same request (JSON objects have no member order)
		t.Errorf("the retry's request differs from the first (-first +retry):\n%s", diff)
	}
	subs := e.submitted(t)
	if len(subs) != 1 || instanceType(t, subs[0].ServiceRequestPayload) != p4d || *subs[0].SchedulingPriority != 550 ||
		subs[0].ClientToken != reroute.MoveToken(old, rec) {
		t.Errorf("replacements %+v, want one on %s at the decided priority 550 with the decision's token", subs, p4d)
	}
	if live := e.fake.Live(); len(live) != 1 {
		t.Errorf("%d live jobs, want 1", len(live))
	}
}

// TestAMarkedJobIsNeverDecidedAgain: a decision recorded by an earlier run
// whose request the job's tags no longer give (someone tagged the job
// since) is not replaced by a new decision, and nothing is submitted: the
// decision is closed (its record marked refused) and counted REQUEST once;
// the job waits where it is and later runs leave it alone.
func TestAMarkedJobIsNeverDecidedAgain(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	oj, _ := e.fake.Job(old)
	rec := oj.Request.Tags[contract.TagMove]
	e.fake.TagJob(old, map[string]string{"cost-center": "42"})
	for i, want := range []int{1, 0} { // refused once, when closed
		e.now = e.now.Add(time.Minute)
		if got := e.run(t); got.RefusedBy[metrics.RefusedRequest] != want || got.Moved != 0 {
			t.Errorf("run %d: %+v, want REQUEST refused %d times", i+2, got, want)
		}
	}
	oj, _ = e.fake.Job(old)
	if oj.Request.Tags[contract.TagMove] != rec+"/refused" || len(e.submitted(t)) != 0 || oj.Status != "RUNNABLE" {
		t.Errorf("decision %q (was %q), %d replacements, old %s; want the decision closed (%q), none submitted, the job waiting",
			oj.Request.Tags[contract.TagMove], rec, len(e.submitted(t)), oj.Status, rec+"/refused")
	}
}

// TestAnOldDecisionPages: a decision not converged within DecisionTrust
// (an hour) is not submitted again: Batch is not trusted to remember its
// token that long. It is refused SUBMIT, which pages.
func TestAnOldDecisionPages(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	e.now = e.now.Add(61 * time.Minute)
	if got := e.run(t); got.RefusedBy[metrics.RefusedSubmit] != 1 {
		t.Errorf("run %+v, want SUBMIT refused", got)
	}
	if n := len(e.fake.Calls("SubmitServiceJob")); n != 3 || len(e.fake.Live()) != 1 {
		t.Errorf("%d submissions, %d live; want only the first run's 3 attempts and the old job", n, len(e.fake.Live()))
	}
}

// TestAJobClaimingToBeAReplacementEndsNothing: a principal that may submit
// to the queue creates jobs that claim to replace another team's waiting
// job V (V's replacement name, trainq:rerouted-from = V, a move count),
// live and waiting, one on V's own payload. V carries no decision of the
// re-router, so no run ends it, and V still moves on its own when it
// should (p5 saturated, p4d free).
func TestAJobClaimingToBeAReplacementEndsNothing(t *testing.T) {
	e := newEnv(t, nil)
	e.use(map[string]map[string]float64{"beta": {p5: 4}, "alpha": {p5: 4}})
	v := e.add(spec{class: "research", team: "beta", priority: 550, it: p5, waited: 5 * time.Minute}) // not yet due
	vj, _ := e.fake.Job(v)
	for _, it := range []string{p4d, p5} {
		f := e.add(spec{name: reroute.ReplacementName(vj.Request.JobName, v), class: "research", team: "alpha", priority: 550, it: it,
			waited: time.Hour, moves: 1})
		e.fake.TagJob(f, map[string]string{contract.TagReroutedFrom: v})
	}
	for range 3 {
		e.run(t)
		e.now = e.now.Add(time.Minute)
	}
	if j, _ := e.fake.Job(v); j.Status != "RUNNABLE" || j.Terminated {
		t.Fatalf("V is %s (terminated %v), want waiting: a job claiming to replace it ended it", j.Status, j.Terminated)
	}
	// V becomes due (10 minutes) and moves by a decision of its own.
	e.now = e.now.Add(10 * time.Minute)
	e.run(t)
	j, _ := e.fake.Job(v)
	if rec := j.Request.Tags[contract.TagMove]; j.Status != "FAILED" || !strings.HasPrefix(j.StatusReason, contract.ReroutedReasonPrefix) || rec == "" {
		t.Errorf("V is %s %q with decision %q, want moved by the re-router's own decision", j.Status, j.StatusReason, rec)
	}
}

// TestALookAlikeReplacementIsNotTakenForTheRerouters: a move is decided on
// V and its submission fails; before the next run a job appears with V's
// replacement name and lineage tags but another payload (another training
// image). The re-router does not take it for its replacement: it submits
// its own, and only then ends V.
func TestALookAlikeReplacementIsNotTakenForTheRerouters(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	v := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	vj, _ := e.fake.Job(v)
	f := e.add(spec{name: reroute.ReplacementName(vj.Request.JobName, v), class: "research", team: "alpha", priority: 550, it: p4d, moves: 1, status: "SUBMITTED"})
	fj, _ := e.fake.Job(f)
	fj.Request.ServiceRequestPayload = strings.Replace(fj.Request.ServiceRequestPayload, "2.3.0-gpu-py311", "evil", 1)
	e.fake.TagJob(f, map[string]string{contract.TagReroutedFrom: v})
	e.fake.SetPayload(f, fj.Request.ServiceRequestPayload)
	e.now = e.now.Add(time.Minute)
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("run %+v, want the move finished with the re-router's own replacement", got)
	}
	var ours int
	for _, s := range e.submitted(t) {
		if !strings.Contains(s.ServiceRequestPayload, "evil") {
			ours++
		}
	}
	if ours != 1 {
		t.Errorf("%d replacements of the re-router's, want 1", ours)
	}
	if j, _ := e.fake.Job(v); !strings.HasPrefix(j.StatusReason, contract.ReroutedReasonPrefix) || strings.Contains(j.StatusReason, f) {
		t.Errorf("V ended %q, want moved to the re-router's replacement, not %s", j.StatusReason, f)
	}
}
