package reroute_test

import (
	"context"
	"errors"
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
	r, err := reroute.New(reroute.Config{Platform: e.p, JobQueue: testQueue, Door: testDoor(e.p), Batch: fl, Now: func() time.Time { return e.now },
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
	r, err := reroute.New(reroute.Config{Platform: e.p, JobQueue: testQueue, Door: testDoor(e.p), Batch: reroute.NewBatchClient(cfg, fastPolicy),
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
	r, err := reroute.New(reroute.Config{Platform: e.p, JobQueue: testQueue, Door: testDoor(e.p), Batch: wrap(reroute.NewBatchClient(cfg, fastPolicy)),
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
