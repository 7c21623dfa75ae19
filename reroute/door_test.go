package reroute_test

import (
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics"
)

// TestTheDoorRefusesAMoveOnce: a research job of team beta whose payload
// writes into team alpha's prefix of the artifacts bucket (submitted before
// the door checked reach) waits an hour on p5, which beta fills (4 of its
// 4). p4d has room for it (beta's 4 - 0 used, the pool's 8 - 0), so the
// plan moves it there; the door refuses the replacement as the submission
// function would (trainingJob.OutputDataConfig.S3OutputPath: alpha/ is not
// beta's). Nothing is submitted; the decision is recorded closed and
// counted REQUEST once; the next run neither decides nor refuses again.
func TestTheDoorRefusesAMoveOnce(t *testing.T) {
	e := newEnv(t, nil)
	e.use(map[string]map[string]float64{"beta": {p5: 4}})
	old := e.add(spec{class: "research", team: "beta", priority: 550, it: p5, waited: time.Hour})
	e.fake.SetPayload(old, payloadOf("alpha", p5, 1))
	if got := e.run(t); got.RefusedBy[metrics.RefusedRequest] != 1 || got.Moved != 0 {
		t.Errorf("first run %+v, want the move refused REQUEST", got)
	}
	oj, _ := e.fake.Job(old)
	rec := oj.Request.Tags[contract.TagMove]
	if !strings.HasPrefix(rec, "1/"+p4d+"/550/") || !strings.HasSuffix(rec, "/refused") {
		t.Errorf("decision %q, want 1/%s/550/…/refused", rec, p4d)
	}
	if !strings.Contains(e.log.String(), "trainingJob.OutputDataConfig.S3OutputPath") {
		t.Errorf("the log does not name the refused field:\n%s", e.log.String())
	}
	tags := len(e.fake.Calls("TagResource"))
	e.now = e.now.Add(time.Minute)
	if got := e.run(t); got.Refused != 0 || got.Moved != 0 {
		t.Errorf("second run %+v, want nothing decided or refused", got)
	}
	if n := len(e.fake.Calls("SubmitServiceJob")); n != 0 || len(e.fake.Calls("TagResource")) != tags {
		t.Errorf("%d submissions, %d tag writes after the first run; want none", n, len(e.fake.Calls("TagResource"))-tags)
	}
	if oj, _ = e.fake.Job(old); oj.Status != "RUNNABLE" || len(e.fake.Live()) != 1 {
		t.Errorf("old job %s, %d live jobs; want it waiting, alone", oj.Status, len(e.fake.Live()))
	}
}

// TestARecordedMoveTheDoorNowRefusesCreatesNoJob: a decision is recorded
// and its submission fails (three server errors); then the stack is
// redeployed with team alpha's own execution role, so the recorded
// request's RoleArn (the queue's role) is no longer alpha's and the door
// refuses it (Forbidden, trainingJob.RoleArn). The next run sends nothing:
// the decision is closed and counted REQUEST once, and stays closed.
func TestARecordedMoveTheDoorNowRefusesCreatesNoJob(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("SubmitServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	oj, _ := e.fake.Job(old)
	rec := oj.Request.Tags[contract.TagMove]
	if rec == "" || len(e.submitted(t)) != 0 {
		t.Fatalf("after the failed run: decision %q, %d replacements; want one decision, none", rec, len(e.submitted(t)))
	}
	redeployed := door.DeployedEnv(e.p, testQueue, testBucket, testRole, map[string]string{"alpha": "arn:aws:iam::123456789012:role/trainq-sagemaker-alpha"})
	r := e.withDoor(t, redeployed)
	for i, want := range []int{1, 0} {
		e.now = e.now.Add(time.Minute)
		if got := e.runWith(t, r); got.RefusedBy[metrics.RefusedRequest] != want || got.Refused != want || got.Moved != 0 {
			t.Errorf("run %d: %+v, want REQUEST refused %d times", i+2, got, want)
		}
	}
	oj, _ = e.fake.Job(old)
	if n := len(e.fake.Calls("SubmitServiceJob")); n != 3 || len(e.submitted(t)) != 0 || oj.Status != "RUNNABLE" || oj.Request.Tags[contract.TagMove] != rec+"/refused" {
		t.Errorf("%d submissions, %d replacements, old %s, decision %q; want the 3 failed ones only, none, RUNNABLE, %q",
			n, len(e.submitted(t)), oj.Status, oj.Request.Tags[contract.TagMove], rec+"/refused")
	}
	if !strings.Contains(e.log.String(), "trainingJob.RoleArn") {
		t.Errorf("the log does not name the refused field:\n%s", e.log.String())
	}
}

// TestAClosedDecisionWhoseReplacementExistsFinishesTheMove: a replacement
// was submitted but the old job could not be terminated (three server
// errors); its decision is then closed (as a run whose listing was too
// stale to show the replacement would close it). The next run still looks
// for the replacement, finds it and terminates the old job: never two live
// jobs of one lineage.
func TestAClosedDecisionWhoseReplacementExistsFinishesTheMove(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	old := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("TerminateServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	e.run(t)
	if live := e.fake.Live(); len(live) != 2 {
		t.Fatalf("%d live jobs after the failed termination, want the old job and its replacement", len(live))
	}
	oj, _ := e.fake.Job(old)
	e.fake.TagJob(old, map[string]string{contract.TagMove: oj.Request.Tags[contract.TagMove] + "/refused"})
	e.now = e.now.Add(time.Minute)
	if got := e.run(t); got.Moved != 1 {
		t.Errorf("run %+v, want the move finished", got)
	}
	live := e.fake.Live()
	if len(live) != 1 || live[0].Request.Tags[contract.TagReroutedFrom] != old {
		t.Errorf("live jobs %+v, want the replacement alone", live)
	}
}
