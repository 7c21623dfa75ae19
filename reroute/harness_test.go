package reroute_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/reroute"
)

// The fault harness: many seeds, each a queue of waiting jobs of both
// teams and both re-routing classes on three types, run 25 times a minute
// apart with, before each run, random changes Batch or the teams make
// (usage on p4d and g5, so that the target of a decision changes between
// runs; a job's priority; a caller's tag on a job; one job of a lineage
// starting on its own) and random faults during it (throttled, failed and
// lost answers of every call; stale, empty listings; the function killed
// between any two calls, its cache and bucket lost with it; listings that
// do not show the jobs created in the last minutes, across runs). Then runs
// without faults until nothing changes. It checks what must hold whatever
// happens: after every run, no lineage without a live job and no started
// job terminated; at rest, exactly one live job per lineage and no job
// replaced twice.

// harnessSeeds is how many seeds go test runs: 6 (2 with -short);
// TRAINQ_HARNESS_SEEDS sets it (bench/reroute/harness.sh runs 60).
func harnessSeeds(t *testing.T) int {
	if v := os.Getenv("TRAINQ_HARNESS_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("TRAINQ_HARNESS_SEEDS=%q: want a whole number of seeds, at least 1", v)
		}
		return n
	}
	if testing.Short() {
		return 2
	}
	return 6
}

func TestFaultHarness(t *testing.T) {
	n := harnessSeeds(t)
	var total harnessFigures
	for seed := range n {
		f := harnessSeed(t, uint64(seed))
		total.add(f)
		if t.Failed() {
			t.Fatalf("seed %d failed (TRAINQ_HARNESS_SEEDS=%d reproduces it)", seed, seed+1)
		}
	}
	t.Logf("fault harness: %d seeds, %d lineages, %d moves, %d submissions, %d runs killed, %d answers lost, %d stale listings, %d started on their own; "+
		"%d duplicates, %d lost, %d started jobs terminated, %d lineages with two live jobs at rest",
		n, total.lineages, total.moves, total.submissions, total.killed, total.lost, total.stale, total.started,
		total.duplicates, total.lostLineages, total.startedTerminated, total.twoLive)
	if total.moves < 5*n || total.killed == 0 || total.lost == 0 || total.stale == 0 {
		t.Errorf("the harness did not exercise what it should: %d moves, %d runs killed, %d lost answers", total.moves, total.killed, total.lost)
	}
}

type harnessFigures struct {
	lineages, moves, submissions, killed, lost, stale, started       int
	duplicates, lostLineages, startedTerminated, twoLive, movedTwice int
}

func (h *harnessFigures) add(o harnessFigures) {
	h.lineages += o.lineages
	h.moves += o.moves
	h.submissions += o.submissions
	h.killed += o.killed
	h.lost += o.lost
	h.stale += o.stale
	h.started += o.started
	h.duplicates += o.duplicates
	h.lostLineages += o.lostLineages
	h.startedTerminated += o.startedTerminated
	h.twoLive += o.twoLive
}

// errDied is what every call answers once the function instance died.
var errDied = errors.New("the function instance died")

// dying passes calls through until it has made left of them; every later
// call fails without reaching Batch, as if the instance had died between
// two calls.
type dying struct {
	*batch.Client
	mu   sync.Mutex
	left int // < 0: never dies
	died bool
	// lags hides jobs from listings for a while after their creation.
	lags   *lags
	hidden int // listings that hid a job
}

// lags is an eventually consistent listing: each job, the first time a
// listing would show it, draws how long after its creation listings keep
// hiding it (none for most, one to three minutes for a third).
type lags struct {
	mu    sync.Mutex
	rng   *rand.Rand
	now   func() time.Time
	delay map[string]time.Duration
}

func (l *lags) hides(s types.ServiceJobSummary) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := aws.ToString(s.JobId)
	d, ok := l.delay[id]
	if !ok {
		if l.rng.IntN(3) == 0 {
			d = time.Duration(1+l.rng.IntN(3)) * time.Minute
		}
		l.delay[id] = d
	}
	return l.now().UnixMilli() < aws.ToInt64(s.CreatedAt)+d.Milliseconds()
}

func (c *dying) gate() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left < 0 {
		return nil
	}
	if c.left == 0 {
		c.died = true
		return errDied
	}
	c.left--
	return nil
}

func (c *dying) ListServiceJobs(ctx context.Context, in *batch.ListServiceJobsInput, o ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	out, err := c.Client.ListServiceJobs(ctx, in, o...)
	if err != nil || c.lags == nil {
		return out, err
	}
	kept := out.JobSummaryList[:0]
	for _, s := range out.JobSummaryList {
		if !c.lags.hides(s) {
			kept = append(kept, s)
		}
	}
	c.mu.Lock()
	if len(kept) < len(out.JobSummaryList) {
		c.hidden++
	}
	c.mu.Unlock()
	out.JobSummaryList = kept
	return out, nil
}

func (c *dying) DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, o ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Client.DescribeServiceJob(ctx, in, o...)
}

func (c *dying) GetJobQueueSnapshot(ctx context.Context, in *batch.GetJobQueueSnapshotInput, o ...func(*batch.Options)) (*batch.GetJobQueueSnapshotOutput, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Client.GetJobQueueSnapshot(ctx, in, o...)
}

func (c *dying) SubmitServiceJob(ctx context.Context, in *batch.SubmitServiceJobInput, o ...func(*batch.Options)) (*batch.SubmitServiceJobOutput, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Client.SubmitServiceJob(ctx, in, o...)
}

func (c *dying) TerminateServiceJob(ctx context.Context, in *batch.TerminateServiceJobInput, o ...func(*batch.Options)) (*batch.TerminateServiceJobOutput, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Client.TerminateServiceJob(ctx, in, o...)
}

func (c *dying) TagResource(ctx context.Context, in *batch.TagResourceInput, o ...func(*batch.Options)) (*batch.TagResourceOutput, error) {
	if err := c.gate(); err != nil {
		return nil, err
	}
	return c.Client.TagResource(ctx, in, o...)
}

// harnessOps are the calls the harness scripts faults for.
var harnessOps = []string{"ListServiceJobs", "DescribeServiceJob", "GetJobQueueSnapshot", "SubmitServiceJob", "TerminateServiceJob", "TagResource"}

// harnessSeed runs one seed and checks it.
func harnessSeed(t *testing.T, seed uint64) harnessFigures {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	e := newEnv(t, nil)
	var f harnessFigures
	teams, classes, types := []string{"alpha", "beta"}, []string{"research", "sweep"}, []string{p5, p5, p5, p4d, g5}
	const jobs = 16
	for range jobs {
		class := classes[rng.IntN(2)]
		prio := 500 + rng.IntN(100)
		if class == "sweep" {
			prio = 100 + rng.IntN(100)
		}
		it := types[rng.IntN(len(types))]
		if class == "sweep" && it == g5 {
			it = p5 // not among sweep's types
		}
		e.add(spec{class: class, team: teams[rng.IntN(2)], priority: prio, it: it, count: 1 + rng.IntN(2),
			waited: time.Duration(20+rng.IntN(120)) * time.Minute})
	}
	f.lineages = jobs
	startedLineage := map[string]bool{}

	var r *reroute.Rerouter
	var d *dying
	lag := &lags{rng: rand.New(rand.NewPCG(seed, 0x1a9)), now: func() time.Time { return e.now }, delay: map[string]time.Duration{}}
	for run := range 25 {
		// Between runs: the world changes.
		use := map[string]map[string]float64{}
		for _, team := range teams {
			use[team] = map[string]float64{p5: 4, p4d: float64(rng.IntN(5)), g5: float64(rng.IntN(3))}
		}
		e.use(use)
		for _, j := range e.fake.Live() {
			if j.Status != "RUNNABLE" {
				continue
			}
			switch x := rng.IntN(100); {
			case x < 25:
				e.fake.SetPriority(j.ID, *j.Request.SchedulingPriority+rng.IntN(20)-10)
			case x < 28:
				e.fake.TagJob(j.ID, map[string]string{"cost-center": strconv.Itoa(rng.IntN(1000))})
			}
		}
		if rng.IntN(3) == 0 {
			// One job of a lineage none of whose jobs started yet starts
			// on its own (Batch found room for it).
			var cands []batchtest.Job
			for _, j := range e.fake.Live() {
				if !startedLineage[lineageOf(e, j.ID)] && j.Status == "RUNNABLE" {
					cands = append(cands, j)
				}
			}
			if len(cands) > 0 {
				j := cands[rng.IntN(len(cands))]
				e.fake.SetStatus(j.ID, "RUNNING")
				startedLineage[lineageOf(e, j.ID)] = true
				f.started++
			}
		}
		// During the run: faults, each call's drawn in advance.
		e.fake.ClearScripts()
		scripted := map[string][]batchtest.Fault{}
		for _, op := range harnessOps {
			faults := make([]batchtest.Fault, 400)
			for i := range faults {
				switch x := rng.IntN(100); {
				case x < 4:
					faults[i] = batchtest.Throttle
				case x < 8:
					faults[i] = batchtest.ServerError
				case x < 30 && (op == "SubmitServiceJob" || op == "TerminateServiceJob" || op == "TagResource"):
					faults[i] = batchtest.Fault{LoseAnswer: true}
				case x < 16 && op == "ListServiceJobs":
					faults[i] = batchtest.Fault{Stale: true}
				}
			}
			e.fake.Script(op, faults...)
			scripted[op] = faults
		}
		// A cold instance, or the warm one again (its cache and bucket
		// kept); either may die between any two calls.
		if r == nil || rng.IntN(2) == 0 {
			d = &dying{lags: lag}
			r = newWith(t, e, func(c *batch.Client) reroute.BatchAPI { d.Client = c; return d })
		}
		d.left, d.died, d.hidden = -1, false, 0
		if rng.IntN(3) == 0 {
			d.left = rng.IntN(50)
		}
		s, _ := r.Handle(context.Background(), json.RawMessage(`{}`))
		f.moves += s.Moved
		for _, op := range harnessOps { // the faults the run's calls met
			for _, x := range scripted[op][:len(scripted[op])-e.fake.Pending(op)] {
				if x.LoseAnswer {
					f.lost++
				}
				if x.Stale {
					f.stale++
				}
			}
		}
		f.stale += d.hidden
		if d.died {
			f.killed++
			r = nil // its cache and bucket die with it
		}
		checkAfterRun(t, e, seed, run, &f)
		e.now = e.now.Add(time.Minute)
	}
	// At rest: no faults, the world still, until a run changes nothing.
	e.fake.ClearScripts()
	for range 15 {
		before := fmt.Sprint(e.fake.Jobs())
		s := e.run(t)
		f.moves += s.Moved
		e.now = e.now.Add(time.Minute)
		if fmt.Sprint(e.fake.Jobs()) == before {
			break
		}
	}
	checkAtRest(t, e, seed, &f)
	f.submissions = len(e.submitted(t))
	return f
}

// lineageOf is the original job of id's lineage (following
// trainq:rerouted-from).
func lineageOf(e *env, id string) string {
	for range 10 {
		j, ok := e.fake.Job(id)
		if !ok {
			return id
		}
		from := j.Request.Tags[contract.TagReroutedFrom]
		if from == "" {
			return id
		}
		id = from
	}
	return id
}

// checkAfterRun: every lineage has a live job, and no job that started was
// terminated.
func checkAfterRun(t *testing.T, e *env, seed uint64, run int, f *harnessFigures) {
	t.Helper()
	live := map[string]int{}
	for _, j := range e.fake.Jobs() {
		if j.Status != "SUCCEEDED" && j.Status != "FAILED" {
			live[lineageOf(e, j.ID)]++
		}
		if j.Terminated && j.StartedAt != 0 {
			f.startedTerminated++
			t.Errorf("seed %d, run %d: job %s had started and was terminated (%s)", seed, run, j.ID, j.StatusReason)
		}
	}
	for _, j := range e.fake.Jobs() {
		if j.Request.Tags[contract.TagReroutedFrom] == "" && live[j.ID] == 0 {
			f.lostLineages++
			t.Errorf("seed %d, run %d: lineage %s has no live job", seed, run, j.ID)
		}
	}
}

// checkAtRest: exactly one live job per lineage, no job replaced twice.
func checkAtRest(t *testing.T, e *env, seed uint64, f *harnessFigures) {
	t.Helper()
	checkAfterRun(t, e, seed, -1, f)
	live := map[string][]string{}
	replacedBy := map[string][]string{}
	for _, j := range e.fake.Jobs() {
		if j.Status != "SUCCEEDED" && j.Status != "FAILED" {
			l := lineageOf(e, j.ID)
			live[l] = append(live[l], j.ID+"("+j.Status+")")
		}
		if from := j.Request.Tags[contract.TagReroutedFrom]; from != "" {
			replacedBy[from] = append(replacedBy[from], j.ID)
		}
	}
	for l, ids := range live {
		if len(ids) > 1 {
			f.twoLive++
			t.Errorf("seed %d at rest: lineage %s has %d live jobs: %v", seed, l, len(ids), ids)
		}
	}
	for from, ids := range replacedBy {
		if len(ids) > 1 {
			f.duplicates++
			t.Errorf("seed %d: job %s was replaced %d times: %v", seed, from, len(ids), ids)
		}
	}
	if t.Failed() {
		t.Logf("seed %d jobs: %v", seed, e.fake.Jobs())
	}
}
