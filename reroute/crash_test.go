package reroute_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/reroute"
)

// TestAResubmittedJobTakesNoRoomAgain: a job Batch ended for capacity and
// an earlier run resubmitted stays in the FAILED listing for the look-back
// hour; it must not be planned again, or it takes room nobody uses.
// alpha holds p5 4 of 4 and p4d 3 of 4: the failed job moves to p4d
// (headroom 1). Then its replacement runs (p4d 4 of 4) and job C, 2 × p5,
// has waited an hour: the only room is g5's 2, which C must get.
func TestAResubmittedJobTakesNoRoomAgain(t *testing.T) {
	e := newEnv(t, nil)
	// alpha: p5 4/4, p4d 3/4 -> p4d headroom 1, g5 headroom 2.
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 3}})
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 10 * time.Minute, status: "FAILED",
		reason: "Terminated by JobStateTimeLimit action due to reason: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"})
	s1 := e.run(t)
	t.Logf("run1 %+v", s1)
	// Now the replacement B is RUNNABLE on p4d; a new job C (2 instances of p5) waited an hour.
	for _, j := range e.fake.Live() {
		e.fake.SetStatus(j.ID, "RUNNING")
	}
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 4}})
	c := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, count: 2, waited: time.Hour})
	e.now = e.now.Add(2 * time.Minute)
	s2 := e.run(t)
	t.Logf("run2 %+v", s2)
	moved := false
	for _, r := range e.submitted(t) {
		if r.Tags[contract.TagReroutedFrom] == c {
			moved = true
		}
	}
	if !moved {
		t.Errorf("C (2 x p5) not moved to g5 (2 free): the already-resubmitted failed job took g5 room in the plan")
	}
}

// flaky fails DescribeServiceJob of one id on chosen call numbers.
type flaky struct {
	*batch.Client
	mu    sync.Mutex
	id    string
	n     int
	fails map[int]bool
}

func (f *flaky) DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, o ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error) {
	if aws.ToString(in.JobId) == f.id && f.id != "" {
		f.mu.Lock()
		f.n++
		n := f.n
		f.mu.Unlock()
		if f.fails[n] {
			t := "injected describe failure"
			return nil, errors.New(t)
		}
	}
	return f.Client.DescribeServiceJob(ctx, in, o...)
}

// TestAReplacementDoesNotMoveWhileItsOldJobLives: run 1 submits B for A
// and fails to terminate A (both live). In run 2, eleven minutes later,
// describing B fails twice (in finishLeftovers and in A's look-up), p4d
// is saturated too and g5 is free: B must not move on to C while A lives,
// or A and C stay live for good. After two clean runs one job is live.
func TestAReplacementDoesNotMoveWhileItsOldJobLives(t *testing.T) {
	e := newEnv(t, nil)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(e.fake.URL)}
	fl := &flaky{Client: reroute.NewBatchClient(cfg, fastPolicy), fails: map[int]bool{}}
	r, err := reroute.New(reroute.Config{Platform: e.p, JobQueue: testQueue, Batch: fl, Now: func() time.Time { return e.now },
		Metrics: &e.metrics, Logger: newLogger(&e.log), RelookDelays: []time.Duration{0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	e.fake.Script("TerminateServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	t.Logf("run1 %+v", e.runWith(t, r))
	var b string
	for _, j := range e.fake.Live() {
		if j.ID != a {
			b = j.ID
		}
	}
	if b == "" {
		t.Fatal("no replacement")
	}
	e.fake.SetStatus(b, "RUNNABLE")
	// 11 minutes later; p4d now saturated for alpha, g5 free.
	e.now = e.now.Add(11 * time.Minute)
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 4}})
	fl.mu.Lock()
	fl.id, fl.n = b, 0
	fl.fails = map[int]bool{2: true, 3: true} // 1: describeAll, 2: finishLeftovers, 3: move(A)'s look-up
	fl.mu.Unlock()
	t.Logf("run2 %+v", e.runWith(t, r))
	fl.mu.Lock()
	fl.id = ""
	fl.mu.Unlock()
	t.Logf("run3 %+v", e.runWith(t, r))
	t.Logf("run4 %+v", e.runWith(t, r))
	var live []string
	for _, j := range e.fake.Live() {
		live = append(live, j.ID+" from="+j.Request.Tags[contract.TagReroutedFrom])
	}
	if len(live) != 1 {
		t.Errorf("lineage of %s has %d live jobs at rest: %v", a, len(live), live)
	}
}

// TestAnOldJobEndedForCapacityMidMoveKeepsItsReplacement: the queue's time
// limit action ends A for capacity right after the re-router submitted B;
// A never ran, so B carries the work on: terminating B would leave the
// lineage without a live job.
func TestAnOldJobEndedForCapacityMidMoveKeepsItsReplacement(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	once := false
	e.fake.OnSubmit(func(created batchtest.Job) {
		if !once {
			once = true
			// The queue's time limit action fires now, before the answer.
			e.fake.SetStatus(a, "FAILED")
			e.fake.SetStatusReason(a, "Terminated by JobStateTimeLimit action due to reason: CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY")
		}
	})
	for i := 0; i < 3; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if live := e.fake.Live(); len(live) == 0 {
		t.Errorf("lineage of %s has no live job (log:\n%s)", a, e.log.String())
	}
}

// TestASnapshotWithoutUsageMovesNothing: a GetJobQueueSnapshot answer
// without queueUtilization says nothing of what is in use; read as
// "nothing in use" it would move a waiting job onto a type whatever its
// load. The run moves nothing and says why.
func TestASnapshotWithoutUsageMovesNothing(t *testing.T) {
	e := newEnv(t, nil)
	e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour,
		reason: "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision requested compute resources"})
	e.fake.Handle("GetJobQueueSnapshot", func([]byte) (int, any) { return 200, map[string]any{} })
	e.run(t)
	if subs := e.submitted(t); len(subs) != 0 {
		t.Errorf("%d replacements from a snapshot without usage, want none", len(subs))
	}
	if !strings.Contains(e.log.String(), "queue snapshot without capacity usage") {
		t.Errorf("the log does not say why nothing moved:\n%s", e.log.String())
	}
}

// TestASecondReplacementIsEnded: a lost answer followed by a listing too
// stale to show the first replacement can make a run send the same token
// with another instance type, which Batch need not refuse: two
// replacements of A (B1 on p4d, B2 on g5), both waiting. Two runs later
// one is live: A and the other replacement are ended.
func TestASecondReplacementIsEnded(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	old, _ := e.fake.Job(a)
	for _, it := range []string{p4d, "ml.g5.48xlarge"} {
		e.add(spec{name: reroute.ReplacementName(old.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: it, waited: time.Minute})
	}
	for _, j := range e.fake.Jobs() {
		if j.ID != a {
			e.fake.TagJob(j.ID, map[string]string{contract.TagReroutedFrom: a, contract.TagMoves: "1"})
		}
	}
	// The first run cuts the duplicates to one; nothing of them moves or
	// finishes in that run. The second finishes A's move.
	e.run(t)
	e.run(t)
	if live := e.fake.Live(); len(live) != 1 || live[0].ID == a {
		t.Errorf("live jobs %+v, want one replacement", live)
	}
}

// TestAnOldJobBeyondTheListingMovesFromTheFront: Batch lists the newest
// jobs first, so in a queue longer than the listing bound the oldest are
// not listed — the very jobs that have waited. Here the bound is one page
// (100 jobs): O, research of alpha on p5 (alpha's 4 p5 in use), waited an
// hour; then 100 sweep jobs of beta on g5, just submitted (not past
// sweep's 600 s). O is not listed, but the snapshot has it at the front of
// alpha's share: it is read and moves to p4d (alpha's p4d headroom:
// min(4 − 0, 8 − 0) = 4 ≥ 1).
func TestAnOldJobBeyondTheListingMovesFromTheFront(t *testing.T) {
	e := newEnv(t, nil)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(e.fake.URL)}
	r, err := reroute.New(reroute.Config{Platform: e.p, JobQueue: testQueue, Batch: reroute.NewBatchClient(cfg, fastPolicy),
		Now: func() time.Time { return e.now }, Metrics: &e.metrics, Logger: newLogger(&e.log), RelookDelays: []time.Duration{0, 0, 0}, MaxPages: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.use(saturatedP5)
	o := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	for range 100 {
		e.add(spec{class: "sweep", team: "beta", priority: 150, it: "ml.g5.48xlarge"})
	}
	oj, _ := e.fake.Job(o)
	e.fake.SetFront(nil, map[string][]batchtest.Front{"alpha": {{JobARN: oj.ARN}}})
	e.runWith(t, r)
	var moved []string
	for _, s := range e.submitted(t) {
		moved = append(moved, s.Tags[contract.TagReroutedFrom]+" to "+instanceType(t, s.ServiceRequestPayload))
	}
	if len(moved) != 1 || moved[0] != o+" to "+p4d {
		t.Errorf("moves %v, want %s to %s", moved, o, p4d)
	}
}

func liveDesc(e *env) []string {
	var out []string
	for _, j := range e.fake.Live() {
		out = append(out, j.ID+"("+j.Status+" from="+j.Request.Tags[contract.TagReroutedFrom]+")")
	}
	return out
}

// Two replacements of A, the started one listed after the waiting one
// (RUNNING is listed last): the started one is kept and the waiting one
// ended; at rest one job is live.
func TestOfTwoReplacementsTheStartedOneIsKept(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	old, _ := e.fake.Job(a)
	b1 := e.add(spec{name: reroute.ReplacementName(old.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute})
	b2 := e.add(spec{name: reroute.ReplacementName(old.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: g5, waited: time.Minute, status: "RUNNING"})
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a, contract.TagMoves: "1"})
	}
	for i := 0; i < 3; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if live := e.fake.Live(); len(live) != 1 {
		t.Errorf("lineage of %s: %d live jobs at rest, want 1: %v", a, len(live), liveDesc(e))
	}
}

// Terminating the second replacement fails three times: nothing of the
// lineage is finished until the cut has worked, so a later run retries it
// and at rest one job is live.
func TestASecondReplacementIsEndedEvenAfterAFailure(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	old, _ := e.fake.Job(a)
	for _, it := range []string{p4d, g5} {
		id := e.add(spec{name: reroute.ReplacementName(old.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: it, waited: time.Minute})
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a, contract.TagMoves: "1"})
	}
	// terminate(A) succeeds, terminate(B2) fails with its retries.
	e.fake.Script("TerminateServiceJob", batchtest.Fault{}, batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	for i := 0; i < 3; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if live := e.fake.Live(); len(live) != 1 {
		t.Errorf("lineage of %s: %d live jobs at rest, want 1: %v", a, len(live), liveDesc(e))
	}
}

// A lost answer and a stale listing in run 1, a stale listing again in
// run 2 (A read from the front of its share), so run 2 sends the same token
// with another type and Batch takes it: two replacements of A. Later runs
// cut them to one, and at rest one job is live.
func TestALostAnswerAndStaleListingsLeaveOneLiveJob(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	aj, _ := e.fake.Job(a)
	e.fake.SetFront(nil, map[string][]batchtest.Front{"alpha": {{JobARN: aj.ARN}}})
	ok := batchtest.Fault{}
	stale := batchtest.Fault{Stale: true}
	// run 1: 6 live listings, FAILED, findReplacement; then relook x3 stale.
	e.fake.Script("ListServiceJobs", ok, ok, ok, ok, ok, ok, ok, ok, stale, stale, stale)
	e.fake.Script("SubmitServiceJob", batchtest.Fault{LoseAnswer: true})
	t.Logf("run1 %+v", e.run(t))
	t.Logf("after run1: %v", liveDesc(e))
	e.fake.ClearScripts()
	for _, j := range e.fake.Live() {
		e.fake.SetStatus(j.ID, "RUNNABLE")
	}
	// run 2: RUNNABLE listing stale (A comes from the front), p4d now full
	// for alpha, findReplacement stale.
	e.now = e.now.Add(5 * time.Minute)
	e.use(map[string]map[string]float64{"alpha": {p5: 4, p4d: 4}})
	e.fake.Script("ListServiceJobs", stale, ok, ok, ok, ok, ok, ok, stale)
	t.Logf("run2 %+v", e.run(t))
	t.Logf("after run2: %v\n%s", liveDesc(e), e.log.String())
	e.log.Reset()
	e.fake.SetFront(nil, nil) // a fresh snapshot: A has ended
	e.fake.ClearScripts()
	for i := 0; i < 2; i++ {
		e.now = e.now.Add(5 * time.Minute)
		t.Logf("run%d %+v", i+3, e.run(t))
	}
	if live := e.fake.Live(); len(live) != 1 {
		t.Errorf("lineage of %s: %d live jobs at rest, want 1: %v", a, len(live), liveDesc(e))
	}
}

// A replacement whose old job Batch no longer describes (long ended):
// not found is not "live", so the replacement moves like any job.
func TestAReplacementWhoseOldJobBatchNoLongerKnowsMoves(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	b := e.add(spec{name: "job-x-rdeadbeef", class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour, moves: 1})
	e.fake.TagJob(b, map[string]string{contract.TagReroutedFrom: "0a0a0a0a-0000-0000-0000-000000000000"})
	for i := 0; i < 2; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if n := len(e.submitted(t)) - 1; n != 1 {
		t.Errorf("%d moves of %s, want 1 (its old job expired, nothing else is live)", n, b)
	}
	if strings.Contains(e.log.String(), "a failed job replaced failed") {
		t.Logf("log says: describe the job a failed job replaced failed (for a waiting job)")
	}
}

// A stale snapshot still has A at the front after its move finished: A is
// read fresh, seen ended, and the move is counted once.
func TestAStaleFrontDoesNotCountAMoveTwice(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	aj, _ := e.fake.Job(a)
	e.fake.SetFront(nil, map[string][]batchtest.Front{"alpha": {{JobARN: aj.ARN}}})
	s1 := e.run(t)
	e.now = e.now.Add(5 * time.Minute)
	s2 := e.run(t)
	t.Logf("run1 %+v run2 %+v live %v", s1, s2, liveDesc(e))
	if s1.Moved+s2.Moved != 1 {
		t.Errorf("one move counted %d times", s1.Moved+s2.Moved)
	}
}

// repeatList repeats job id in the unfiltered RUNNABLE listing, as a
// listing whose pages shift does (rerouter.go says so: unique()).
type repeatList struct {
	*batch.Client
	id    string
	delay time.Duration
}

func (c *repeatList) ListServiceJobs(ctx context.Context, in *batch.ListServiceJobsInput, o ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error) {
	out, err := c.Client.ListServiceJobs(ctx, in, o...)
	if err == nil && c.id != "" && in.JobStatus == types.ServiceJobStatusRunnable && len(in.Filters) == 0 {
		for _, s := range out.JobSummaryList {
			if aws.ToString(s.JobId) == c.id {
				out.JobSummaryList = append(out.JobSummaryList, s)
				break
			}
		}
	}
	return out, err
}

func (c *repeatList) DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, o ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error) {
	if c.delay > 0 {
		time.Sleep(c.delay)
	}
	return c.Client.DescribeServiceJob(ctx, in, o...)
}

func newWith(t *testing.T, e *env, wrap func(*batch.Client) reroute.BatchAPI) *reroute.Rerouter {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(e.fake.URL)}
	r, err := reroute.New(reroute.Config{Platform: e.p, JobQueue: testQueue, Batch: wrap(reroute.NewBatchClient(cfg, fastPolicy)),
		Now: func() time.Time { return e.now }, Metrics: &e.metrics, Logger: newLogger(&e.log), RelookDelays: []time.Duration{0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The move A -> B is done (A FAILED, rerouted); B waits, and the RUNNABLE
// listing repeats it (pages that shift): B is one job, not two
// duplicates, and stays the lineage's live job.
func TestARepeatedListingKeepsTheOnlyReplacement(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	aj, _ := e.fake.Job(a)
	b := e.add(spec{name: reroute.ReplacementName(aj.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 1})
	e.fake.TagJob(b, map[string]string{contract.TagReroutedFrom: a})
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b, p4d))
	r := newWith(t, e, func(c *batch.Client) reroute.BatchAPI { return &repeatList{Client: c, id: b} })
	t.Logf("run %+v", e.runWith(t, r))
	if live := e.fake.Live(); len(live) != 1 {
		t.Errorf("lineage of %s: %d live jobs at rest, want 1: %v\n%s", a, len(live), liveDesc(e), e.log.String())
	}
}

// B has started, is listed RUNNING, and a stale snapshot still has it at
// the front of its share: it is one job, and nothing pages BOTH_STARTED.
func TestAStaleFrontOfAStartedReplacementDoesNotPage(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	aj, _ := e.fake.Job(a)
	b := e.add(spec{name: reroute.ReplacementName(aj.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 1, status: "RUNNING"})
	e.fake.TagJob(b, map[string]string{contract.TagReroutedFrom: a})
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b, p4d))
	bj, _ := e.fake.Job(b)
	e.fake.SetFront(nil, map[string][]batchtest.Front{"alpha": {{JobARN: bj.ARN}}})
	s := e.run(t)
	t.Logf("run %+v", s)
	if s.RefusedBy["BOTH_STARTED"] != 0 {
		t.Errorf("BOTH_STARTED paged for a lineage with one live job (%v)", liveDesc(e))
	}
}

// B2, a duplicate of B1 (both of A), moved on to C and the run died before
// terminating B2; B1 has started. B1 is kept, and B2 is ended with C, the
// job it moved to: one live job.
func TestAnEndedDuplicateTakesItsOwnReplacementWithIt(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 2 * time.Hour})
	aj, _ := e.fake.Job(a)
	bn := reroute.ReplacementName(aj.Request.JobName, a)
	b1 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Hour, moves: 1, status: "RUNNING"})
	b2 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: g5, waited: time.Hour, moves: 1})
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a})
	}
	c := e.add(spec{name: reroute.ReplacementName(bn, b2), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 2})
	e.fake.TagJob(c, map[string]string{contract.TagReroutedFrom: b2})
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b1, p4d))
	for i := 0; i < 3; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if live := e.fake.Live(); len(live) != 1 {
		t.Errorf("lineage of %s: %d live jobs at rest, want 1: %v", a, len(live), liveDesc(e))
	}
}

// TestManyJobsSharingAReplacementLikeNameDoNotStallTheRun: 300 running
// sweeps of another kind share a name that looks like a replacement's
// ("resnet-r3f9a2b1c": "-r" and eight hex digits), and A and its
// replacement B are both live (an earlier run stopped between the two
// calls). The duplicate pass describes at most 100 of the 300 a run, not
// all of them, and the run still finishes A's move: one of A and B is
// left, with the 300.
func TestManyJobsSharingAReplacementLikeNameDoNotStallTheRun(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for range 300 {
		e.add(spec{name: "resnet-r3f9a2b1c", class: "sweep", team: "beta", priority: 150, it: g5, status: "RUNNING"})
	}
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
	aj, _ := e.fake.Job(a)
	b := e.add(spec{name: reroute.ReplacementName(aj.Request.JobName, a), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 1})
	e.fake.TagJob(b, map[string]string{contract.TagReroutedFrom: a})
	before := len(e.fake.Calls("DescribeServiceJob"))
	e.run(t)
	// A and B (the runnable jobs), at most 100 in the duplicate pass, B
	// again and A again to finish the move: well under 300.
	if n := len(e.fake.Calls("DescribeServiceJob")) - before; n > 110 {
		t.Errorf("%d descriptions in one run, want at most 110 (2 runnable, 100 in the duplicate pass, the move's few)", n)
	}
	if live := e.fake.Live(); len(live) != 301 {
		t.Errorf("live %d, want 301 (the 300 sweeps and one of A and B)", len(live))
	}
}

func liveOf(e *env, ids ...string) []string {
	var out []string
	for _, j := range e.fake.Live() {
		for _, id := range ids {
			if j.ID == id {
				out = append(out, fmt.Sprintf("%s(%s)", id, j.Status))
			}
		}
	}
	return out
}

// 300 jobs of another platform share a replacement-like name that sorts
// before the lineage's, more than a run's 100 reads: they are remembered
// as no replacements, so later runs reach the real duplicates (B1, B2 of
// ended A) and cut them to one.
func TestDuplicatesAreReachedPastNamesOfOtherJobs(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for range 300 {
		e.add(spec{name: "aaa-r3f9a2b1c", class: "sweep", team: "beta", priority: 150, it: g5, status: "RUNNING", platform: "other"})
	}
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 2 * time.Hour})
	aj, _ := e.fake.Job(a)
	bn := reroute.ReplacementName(aj.Request.JobName, a)
	b1 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 1})
	b2 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: g5, waited: time.Minute, moves: 1})
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a})
	}
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b1, p4d))
	for i := 0; i < 5; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if l := liveOf(e, a, b1, b2); len(l) != 1 {
		t.Errorf("lineage of %s: live %v, want 1", a, l)
	}
}

// startedLineOfADuplicate adds A, ended by its move to B1; B1 and B2, two
// waiting replacements of A (added in that order, or B2 first), waited
// for waited; and C, which B2 moved on to and which runs (the run died
// before terminating B2). It returns the four ids.
func startedLineOfADuplicate(e *env, waited time.Duration, b2First bool) (a, b1, b2, c string) {
	a = e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 2 * time.Hour})
	aj, _ := e.fake.Job(a)
	bn := reroute.ReplacementName(aj.Request.JobName, a)
	add := func(it string) string {
		return e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: it, waited: waited, moves: 1})
	}
	if b2First {
		b2, b1 = add(g5), add(p4d)
	} else {
		b1, b2 = add(p4d), add(g5)
	}
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a})
	}
	c = e.add(spec{name: reroute.ReplacementName(bn, b2), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 2, status: "RUNNING"})
	e.fake.TagJob(c, map[string]string{contract.TagReroutedFrom: b2})
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b1, p4d))
	return a, b1, b2, c
}

// B1 and B2 are duplicates of ended A, both waiting; B2 moved on to C,
// which has started. Whichever of B1 and B2 is listed first, the line that
// started is kept (B1 is ended), and a later run finishes B2's move to C:
// one live job.
func TestTheDuplicateKeptIsTheOneWhoseMoveStarted(t *testing.T) {
	for _, b2First := range []bool{false, true} {
		t.Run(fmt.Sprint("b2First=", b2First), func(t *testing.T) {
			e := newEnv(t, nil)
			e.use(saturatedP5)
			a, b1, b2, c := startedLineOfADuplicate(e, time.Hour, b2First)
			for i := 0; i < 3; i++ {
				t.Logf("run%d %+v", i+1, e.run(t))
				e.now = e.now.Add(5 * time.Minute)
			}
			if l := liveOf(e, a, b1, b2, c); len(l) != 1 {
				t.Errorf("lineage: live %v (b1=%s b2=%s c=%s), want 1", l, b1, b2, c)
			}
		})
	}
}

// B1 (started) and B2 are duplicates of ended A, and B2 moved on to C. The
// budget runs out before C is read (98 other jobs first): nothing of the
// pair is ended or finished this run, so the next run, which knows the 98
// are no replacements, reads the whole subtree, keeps B1 and ends C, then
// B2: one live job.
func TestAPassStoppedMidwayLosesNoPair(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for range 98 {
		e.add(spec{name: "aaa-r3f9a2b1c", class: "sweep", team: "beta", priority: 150, it: g5, status: "RUNNING", platform: "other"})
	}
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 2 * time.Hour})
	aj, _ := e.fake.Job(a)
	bn := reroute.ReplacementName(aj.Request.JobName, a)
	b1 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Hour, moves: 1, status: "RUNNING"})
	b2 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: g5, waited: time.Hour, moves: 1})
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a})
	}
	c := e.add(spec{name: reroute.ReplacementName(bn, b2), class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 2})
	e.fake.TagJob(c, map[string]string{contract.TagReroutedFrom: b2})
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b1, p4d))
	for i := 0; i < 4; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if l := liveOf(e, a, b1, b2, c); len(l) != 1 {
		t.Errorf("lineage: live %v (b1=%s b2=%s c=%s), want 1", l, b1, b2, c)
	}
}

// B2, the duplicate dropped, has two live replacements C1 and C2
// (duplicates themselves): both are ended with it.
func TestEveryReplacementOfADroppedDuplicateIsEnded(t *testing.T) {
	id := func(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", n, n) }
	k := 0
	for ; reroute.ReplacementName("x", id(k)) >= reroute.ReplacementName("x", id(k+2)); k++ {
	}
	e := newEnv(t, nil)
	e.use(saturatedP5)
	for range k {
		e.add(spec{class: "sweep", team: "beta", priority: 150, it: g5, status: "SUCCEEDED", platform: "other"})
	}
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 2 * time.Hour})
	aj, _ := e.fake.Job(a)
	bn := reroute.ReplacementName(aj.Request.JobName, a)
	b1 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Hour, moves: 1, status: "RUNNING"})
	b2 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: g5, waited: time.Hour, moves: 1})
	cn := reroute.ReplacementName(bn, b2)
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a})
	}
	t.Logf("bn=%s cn=%s bn<cn=%v", bn, cn, bn < cn)
	c1 := e.add(spec{name: cn, class: "research", team: "alpha", priority: 550, it: p4d, waited: time.Minute, moves: 2})
	c2 := e.add(spec{name: cn, class: "research", team: "alpha", priority: 550, it: g5, waited: time.Minute, moves: 2})
	for _, id := range []string{c1, c2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: b2})
	}
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b1, p4d))
	for i := 0; i < 3; i++ {
		t.Logf("run%d %+v", i+1, e.run(t))
		e.now = e.now.Add(5 * time.Minute)
	}
	if l := liveOf(e, a, b1, b2, c1, c2); len(l) != 1 {
		t.Errorf("lineage: live %v, want 1", l)
	}
}

// B1, B2 duplicates of ended A, both waiting on saturated p5; ending the
// dropped one fails (500 three times). The kept one must not move on in the
// same run (the dropped one and its new job would never be paired again):
// the next run cuts again, and at rest one job is live.
func TestAFailedCutLeavesTheKeptDuplicateWhereItIs(t *testing.T) {
	e := newEnv(t, nil)
	e.use(saturatedP5)
	a := e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: 3 * time.Hour})
	aj, _ := e.fake.Job(a)
	bn := reroute.ReplacementName(aj.Request.JobName, a)
	b1 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour, moves: 1})
	b2 := e.add(spec{name: bn, class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour, moves: 1})
	for _, id := range []string{b1, b2} {
		e.fake.TagJob(id, map[string]string{contract.TagReroutedFrom: a})
	}
	e.fake.SetStatus(a, "FAILED")
	e.fake.SetStatusReason(a, contract.ReroutedReason(b1, p4d))
	e.fake.Script("TerminateServiceJob", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	t.Logf("run1 %+v", e.run(t))
	for i := 0; i < 4; i++ {
		e.now = e.now.Add(15 * time.Minute)
		t.Logf("run%d %+v", i+2, e.run(t))
	}
	var l []string
	for _, j := range e.fake.Live() {
		l = append(l, fmt.Sprintf("%s(%s from=%s)", j.ID, j.Status, j.Request.Tags[contract.TagReroutedFrom]))
	}
	if len(l) != 1 {
		t.Errorf("lineage of %s: live %v (b1=%s b2=%s), want 1", a, l, b1, b2)
	}
}

// failList fails (non-throttle) the plain listing of one status.
type failList struct {
	*batch.Client
	status types.ServiceJobStatus
}

func (c *failList) ListServiceJobs(ctx context.Context, in *batch.ListServiceJobsInput, o ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error) {
	if c.status != "" && in.JobStatus == c.status && len(in.Filters) == 0 {
		return nil, errors.New("injected list failure")
	}
	return c.Client.ListServiceJobs(ctx, in, o...)
}

// B1, B2 duplicates of ended A; B2 moved on to C, which runs. The RUNNING
// listing fails (not a throttle; the run goes on), so C is not seen: with
// a gap in the listings no duplicate is ended (else B1 might be kept and
// B2, C's origin, ended); once the listing works, C's line is kept.
func TestAListingGapEndsNoDuplicate(t *testing.T) {
	for _, b2First := range []bool{false, true} {
		t.Run(fmt.Sprint("b2First=", b2First), func(t *testing.T) {
			e := newEnv(t, nil)
			e.use(saturatedP5)
			a, b1, b2, c := startedLineOfADuplicate(e, time.Minute, b2First)
			fl := &failList{}
			r := newWith(t, e, func(cl *batch.Client) reroute.BatchAPI { fl.Client = cl; return fl })
			fl.status = types.ServiceJobStatusRunning
			t.Logf("run1 %+v", e.runWith(t, r))
			fl.status = ""
			for i := 0; i < 3; i++ {
				e.now = e.now.Add(5 * time.Minute)
				t.Logf("run%d %+v", i+2, e.runWith(t, r))
			}
			if l := liveOf(e, a, b1, b2, c); len(l) != 1 {
				t.Errorf("lineage: live %v (b1=%s b2=%s c=%s), want 1", l, b1, b2, c)
			}
		})
	}
}
