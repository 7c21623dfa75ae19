package reroute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Rerouter runs the re-router; one value serves every invocation of a
// function instance (it keeps the per-minute bound's bucket).
type Rerouter struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	tokens   float64 // moves the per-minute bound allows now
	tokensAt time.Time
	seeded   bool // the bucket was started from Batch's listing
	// cache holds the runnable jobs' descriptions of the last run, for
	// planning only: a move describes its job again first.
	cache map[string]cached
	// notReplacement remembers jobs read by the duplicate pass that are no
	// replacement of this platform's (tags fixed at submission), so that
	// each is read once (bounded by maxNotReplacement).
	notReplacement map[string]bool
}

// New checks cfg and returns a Rerouter.
func New(cfg Config) (*Rerouter, error) {
	var errs []error
	if cfg.Platform == nil {
		errs = append(errs, errors.New("Platform is required"))
	} else if n := cfg.Platform.Rerouting.MaxMovesPerMinute; n < 1 {
		errs = append(errs, fmt.Errorf("Platform.Rerouting.MaxMovesPerMinute is %d, want 1 to %d (a platform loaded with platform.LoadFile or given ApplyDefaults has one)", n, platform.MaxMovesPerMinuteLimit))
	}
	if !batchrules.ValidJobQueueARN(cfg.JobQueue) {
		errs = append(errs, fmt.Errorf("JobQueue: got %q, want a job queue ARN", contract.Cut(cfg.JobQueue, contract.MaxShownChars)))
	}
	if cfg.Batch == nil {
		errs = append(errs, errors.New("Batch is required"))
	}
	if cfg.Now == nil {
		errs = append(errs, errors.New("Now is required"))
	}
	if cfg.Metrics == nil {
		errs = append(errs, errors.New("Metrics is required"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("rerouter: %w", errors.Join(errs...))
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.MaxPages, DefaultMaxPages)
	def(&cfg.MaxFailedPages, DefaultMaxFailedPages)
	def(&cfg.MaxDescribes, DefaultMaxDescribes)
	def(&cfg.DescribeConcurrency, DefaultDescribeConcurrency)
	if cfg.FailedLookback <= 0 {
		// At least two periods of the schedule, so that a run missed
		// (throttled, timed out) leaves the next one time to see the job.
		cfg.FailedLookback = max(DefaultFailedLookback, 2*time.Duration(cfg.Platform.Rerouting.EveryMinutes)*time.Minute)
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.DescribeTTL <= 0 {
		cfg.DescribeTTL = DefaultDescribeTTL
	}
	if cfg.DeadlineMargin <= 0 {
		cfg.DeadlineMargin = DefaultDeadlineMargin
	}
	if cfg.RelookDelays == nil {
		cfg.RelookDelays = DefaultRelookDelays
	}
	h := slog.DiscardHandler
	if cfg.Logger != nil {
		h = cfg.Logger.Handler()
	}
	r := &Rerouter{cfg: cfg, log: slog.New(contract.BoundedLog(h)), notReplacement: map[string]bool{}}
	r.tokens, r.tokensAt = float64(cfg.Platform.Rerouting.MaxMovesPerMinute), cfg.Now()
	return r, nil
}

// Summary is a run's answer.
type Summary struct {
	// Moved counts moves finished in the run: old jobs terminated after
	// their replacement was submitted (in this run or, after a crash, an
	// earlier one) and failed jobs resubmitted.
	Moved int `json:"moved"`
	// Refused counts moves decided on but not made, RefusedBy by reason.
	Refused   int            `json:"refused"`
	RefusedBy map[string]int `json:"refusedBy,omitempty"`
	// Skipped counts eligible jobs left where they are: no other type of
	// their class had room, or their replacement already ended.
	Skipped int `json:"skipped"`
	// Deferred counts planned moves not tried because the run stopped
	// early (Stopped says why); the next run decides again.
	Deferred int `json:"deferred"`
	// Stopped is why the run stopped early: "throttled" or "deadline".
	Stopped string `json:"stopped,omitempty"`
}

// Stop reasons.
const (
	stopThrottled = "throttled"
	stopDeadline  = "deadline"
)

// live are the statuses of a job that has not ended, in the order the
// re-router lists them; pending are those of a job that has not started.
var (
	liveStatuses = []types.ServiceJobStatus{types.ServiceJobStatusRunnable, types.ServiceJobStatusSubmitted, types.ServiceJobStatusPending,
		types.ServiceJobStatusScheduled, types.ServiceJobStatusStarting, types.ServiceJobStatusRunning}
	pendingStatuses = map[types.ServiceJobStatus]bool{types.ServiceJobStatusSubmitted: true, types.ServiceJobStatusPending: true, types.ServiceJobStatusRunnable: true}
)

func isLive(s types.ServiceJobStatus) bool {
	for _, l := range liveStatuses {
		if s == l {
			return true
		}
	}
	return false
}

// run is one invocation's state.
type run struct {
	// listGap is set when a listing of live jobs failed or hit its bound:
	// the duplicate pass then ends nothing (a job it did not see may be
	// one a duplicate moved to).
	listGap bool
	r       *Rerouter
	ctx     context.Context
	stopAt  time.Time // no move starts later; zero: no deadline
	// callsBy is when every Batch call must have ended, so that the run
	// answers and writes its metric lines before the invocation's
	// deadline; zero: no deadline.
	callsBy time.Time
	sum     Summary
	moved   map[moveKey]int
	stop    string
	// submitted counts the submissions of the run (at most
	// rerouting.maxMovesPerMinute).
	submitted int
}

// moveKey is the dimensions of one JobsRerouted count.
type moveKey struct{ class, team, from, to string }

// Handle is one scheduled run. The event is ignored (EventBridge's
// scheduled event carries nothing the re-router needs, and nothing in it is
// trusted). It returns an error only when the runnable jobs cannot be
// listed; every other failure is one job's, counted and logged, and the
// run goes on.
func (r *Rerouter) Handle(ctx context.Context, _ json.RawMessage) (Summary, error) {
	x := &run{r: r, ctx: ctx, moved: map[moveKey]int{}}
	x.sum.RefusedBy = map[string]int{}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		x.stopAt = dl.Add(-min(r.cfg.DeadlineMargin, left/5))
		x.callsBy = dl.Add(-min(time.Second, left/20))
	}
	err := x.do()
	x.sum.Stopped = x.stop
	for _, n := range x.sum.RefusedBy {
		x.sum.Refused += n
	}
	r.writeMetrics(x)
	r.log.Info("rerouter run", "moved", x.sum.Moved, "refused", x.sum.Refused, "skipped", x.sum.Skipped,
		"deferred", x.sum.Deferred, "stopped", x.stop, "error", err)
	if len(x.sum.RefusedBy) == 0 {
		x.sum.RefusedBy = nil
	}
	if err != nil {
		err = boundedError{err}
	}
	return x.sum, err
}

// boundedError is an error whose text is cut at contract.MaxLoggedChars:
// the run's error is the invocation's answer and a line of its log, and an
// SDK error may quote what Batch sent whole.
type boundedError struct{ err error }

func (e boundedError) Error() string { return contract.Cut(e.err.Error(), contract.MaxLoggedChars) }
func (e boundedError) Unwrap() error { return e.err }

func (x *run) do() error {
	cfg := x.r.cfg
	runnable, err := x.list(types.ServiceJobStatusRunnable, cfg.MaxPages)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			return nil
		}
		return fmt.Errorf("list runnable jobs of %s: %w", batchrules.JobQueueName(cfg.JobQueue), err)
	}
	live := append([]types.ServiceJobSummary(nil), runnable...)
	for _, st := range liveStatuses[1:] {
		jobs, err := x.list(st, cfg.MaxPages)
		if err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
				return nil
			}
			x.listGap = true
			x.r.log.Warn("list jobs failed; replacements of jobs in that status are looked for next run", "status", string(st), "error", err)
		}
		live = append(live, jobs...)
	}

	x.seed(live)

	snap, err := x.snapshot()
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			return nil
		}
		x.r.log.Warn("queue snapshot failed; no move this run", "error", err)
		return nil
	}
	// The jobs at the front of the queue and of each share are the ones
	// next to start, and those a saturated type holds up; Batch lists the
	// newest jobs first, so in a queue longer than the listing bound they
	// may not be listed: they are read as well.
	front := frontJobs(snap, runnable)
	runnable = append(runnable, front...)
	// A front job the listing missed is read fresh, never from the cache:
	// the snapshot may lag a move that ended it.
	x.r.mu.Lock()
	for _, s := range front {
		delete(x.r.cache, aws.ToString(s.JobId))
	}
	x.r.mu.Unlock()

	// Read the runnable jobs, each once (a listing whose pages shift may
	// repeat one), oldest first (a front job not listed counts as oldest),
	// as many as allowed.
	runnable = unique(runnable)
	sort.SliceStable(runnable, func(a, b int) bool { return aws.ToInt64(runnable[a].CreatedAt) < aws.ToInt64(runnable[b].CreatedAt) })
	if len(runnable) > cfg.MaxDescribes {
		x.r.log.Warn("more runnable jobs than one run reads; the youngest wait for a later run", "runnable", len(runnable), "read", cfg.MaxDescribes)
		runnable = runnable[:cfg.MaxDescribes]
	}
	described := x.describeAll(runnable)
	if x.stop != "" {
		return nil
	}

	// A front job the listing missed is live too: with its name, read now,
	// an earlier run's half-done move of it is finished like any other.
	for _, s := range front {
		if d := described[aws.ToString(s.JobId)]; d != nil && isLive(d.Status) {
			live = append(live, types.ServiceJobSummary{JobId: s.JobId, JobName: d.JobName, Status: d.Status})
		}
	}

	// Each job once: a listing whose pages shift may repeat one, and a
	// front job may be listed under another status.
	live = unique(live)

	// Finish the moves an earlier run left half done.
	busy := x.finishLeftovers(live)
	if x.stop != "" {
		return nil
	}

	usage := batchsdk.QueueUtilization(snap).Usage()
	if usage == nil {
		// No usage to judge room by: "nothing in use" would move jobs onto
		// types whatever their load.
		x.r.log.Warn("queue snapshot without capacity usage; no move this run")
		return nil
	}

	now := cfg.Now().UnixMilli()
	failed, failedNames := x.failedForCapacity(now)
	if x.stop != "" {
		return nil
	}
	// The names of the jobs listed, live or ended: a job whose replacement
	// is among them has moved once already and cannot move again (its
	// replacement's name is taken), so the plan gives it no room elsewhere.
	listed := map[string]bool{}
	for _, s := range live {
		listed[strings.ToLower(aws.ToString(s.JobName))] = true
	}
	for n := range failedNames {
		listed[n] = true
	}
	var jobs []*job
	for _, s := range runnable {
		id := aws.ToString(s.JobId)
		d := described[id]
		if d == nil || busy[id] {
			continue
		}
		if j := x.read(d, now); j != nil && pendingStatuses[d.Status] {
			j.replaced = listed[strings.ToLower(ReplacementName(j.name, j.id))]
			jobs = append(jobs, j)
		}
	}
	for _, j := range failed {
		if !listed[strings.ToLower(ReplacementName(j.name, j.id))] { // else resubmitted by an earlier run
			jobs = append(jobs, j)
		}
	}
	p := plan(cfg.Platform, jobs, usage, now)
	x.sum.Skipped += p.skipped
	for reason, n := range p.refused {
		x.sum.RefusedBy[reason] += n
	}
	for i, d := range p.moves {
		if x.late() {
			x.sum.Deferred += len(p.moves) - i
			break
		}
		x.move(d)
	}
	return nil
}

// maxFrontJobs bounds the front jobs a run adds to its listing: the
// snapshot lists at most 100 for the queue and 100 for each share.
const maxFrontJobs = 100 * (1 + 20)

// frontJobs are the jobs of the snapshot's frontOfQueue and
// frontOfQuotaShares that listed does not hold, in the snapshot's order,
// as summaries holding only their id (they are described like the rest).
func frontJobs(snap *batch.GetJobQueueSnapshotOutput, listed []types.ServiceJobSummary) []types.ServiceJobSummary {
	have := make(map[string]bool, len(listed))
	for _, s := range listed {
		have[aws.ToString(s.JobId)] = true
	}
	var out []types.ServiceJobSummary
	add := func(arn *string) {
		ref, err := batchrules.ParseServiceJobRef(aws.ToString(arn))
		if err != nil || have[ref.ID] || len(out) >= maxFrontJobs {
			return
		}
		have[ref.ID] = true
		out = append(out, types.ServiceJobSummary{JobId: aws.String(ref.ID)})
	}
	if f := snap.FrontOfQueue; f != nil {
		for _, j := range f.Jobs {
			add(j.JobArn)
		}
	}
	if f := snap.FrontOfQuotaShares; f != nil {
		shares := make([]string, 0, len(f.QuotaShares))
		for name := range f.QuotaShares {
			shares = append(shares, name)
		}
		sort.Strings(shares)
		for _, name := range shares {
			for _, j := range f.QuotaShares[name] {
				add(j.JobArn)
			}
		}
	}
	return out
}

// late reports whether the run has stopped, stopping it when the
// invocation's deadline is near (the deadline is the Lambda runtime's wall
// clock, not Config.Now).
func (x *run) late() bool {
	if x.stop == "" && !x.stopAt.IsZero() && time.Now().After(x.stopAt) {
		x.halt(stopDeadline, nil)
	}
	return x.stop != ""
}

// halt stops the run: no further call is made.
func (x *run) halt(reason string, err error) {
	if x.stop == "" {
		x.stop = reason
		x.r.log.Warn("rerouter stopped early; the next run carries on", "reason", reason, "error", err)
	}
}

// list reads up to maxPages pages of the queue's jobs in status.
func (x *run) list(status types.ServiceJobStatus, maxPages int) ([]types.ServiceJobSummary, error) {
	in := &batch.ListServiceJobsInput{JobQueue: aws.String(x.r.cfg.JobQueue), JobStatus: status}
	var out []types.ServiceJobSummary
	for page := 0; page < maxPages; page++ {
		res, err := x.listPage(in)
		if err != nil {
			return out, err
		}
		out = append(out, res.JobSummaryList...)
		if res.NextToken == nil {
			return out, nil
		}
		in.NextToken = res.NextToken
	}
	x.listGap = true
	x.r.log.Warn("more jobs than one run lists", "status", string(status), "listed", len(out))
	return out, nil
}

// describeAll returns the descriptions of jobs: from the instance's cache
// when read within Config.DescribeTTL, else described, concurrently. A job
// whose description fails is left out (and the run stops when Batch
// throttles). The cache keeps only jobs, so it stays as large as one
// listing.
func (x *run) describeAll(jobs []types.ServiceJobSummary) map[string]*batch.DescribeServiceJobOutput {
	r := x.r
	now := r.cfg.Now()
	out := make(map[string]*batch.DescribeServiceJobOutput, len(jobs))
	keep := make(map[string]cached, len(jobs))
	var todo []string
	r.mu.Lock()
	for _, s := range jobs {
		id := aws.ToString(s.JobId)
		if c, ok := r.cache[id]; ok && now.Sub(c.at) < r.cfg.DescribeTTL && now.Sub(c.at) >= 0 {
			out[id], keep[id] = c.d, c
		} else {
			todo = append(todo, id)
		}
	}
	r.mu.Unlock()
	var mu sync.Mutex
	work := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.DescribeConcurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				d, err := x.describe(id)
				mu.Lock()
				switch {
				case err == nil:
					out[id], keep[id] = d, cached{d: d, at: now}
				case isThrottle(err):
					x.halt(stopThrottled, err)
				default:
					r.log.Warn("describe job failed; it is read again next run", "jobId", id, "error", err)
				}
				mu.Unlock()
			}
		}()
	}
	for _, id := range todo {
		mu.Lock()
		stopped := x.stop != ""
		mu.Unlock()
		if stopped {
			break
		}
		work <- id
	}
	close(work)
	wg.Wait()
	r.mu.Lock()
	r.cache = keep
	r.mu.Unlock()
	return out
}

// cached is a runnable job's description and when it was read.
type cached struct {
	d  *batch.DescribeServiceJobOutput
	at time.Time
}

// read turns a description into a job of the platform, or nil for a job of
// another platform, of no known class or team, or with a payload the
// re-router cannot read. now is Unix ms.
func (x *run) read(d *batch.DescribeServiceJobOutput, now int64) *job {
	p := x.r.cfg.Platform
	if d.Tags[contract.TagPlatform] != p.Name {
		return nil
	}
	j := &job{id: aws.ToString(d.JobId), name: aws.ToString(d.JobName), status: string(d.Status),
		priority: int(aws.ToInt32(d.SchedulingPriority)), payload: aws.ToString(d.ServiceRequestPayload), d: d}
	var ok bool
	if c := d.Tags[contract.TagClass]; c != "" {
		j.class, ok = p.Class(c)
	} else if d.SchedulingPriority != nil {
		j.class, ok = p.ClassForPriority(j.priority)
	}
	if !ok {
		return nil
	}
	if j.team, ok = p.Team(batchrules.ShareOfJob(aws.ToString(d.QuotaShareName), aws.ToString(d.ShareIdentifier))); !ok {
		return nil
	}
	rc, err := resourceConfig(j.payload)
	if err != nil {
		x.r.log.Warn("payload unreadable; the job is not moved", "jobId", j.id, "error", err)
		return nil
	}
	j.instanceType, j.instances = rc.instanceType, rc.instances
	j.moves = 0
	if v, has := d.Tags[contract.TagMoves]; has {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			n = platform.MaxRerouteMoves // an unreadable count never moves again
		}
		j.moves = n
	}
	if since, found := batchsdk.RunnableSince(d, now); found {
		j.since = since
	} else {
		j.since = now
	}
	reason := aws.ToString(d.StatusReason)
	j.blocked = batchrules.BlockedReason(reason) == batchrules.ReasonInsufficientCapacity
	return j
}

// maxDuplicateDescribes bounds the descriptions the duplicate pass makes in
// one run: jobs of other platforms or of no move may share a name that
// looks like a replacement's, and the pass must leave the run its time.
// Such jobs are remembered (Rerouter.notReplacement), so a later run
// reads the others.
const maxDuplicateDescribes = 100

// maxNotReplacement bounds Rerouter.notReplacement; past it the memory
// starts again.
const maxNotReplacement = 50000

// cutDuplicates ends all but one live replacement of each old job, with
// what each ended one had moved to in turn (its live subtree), marking
// every job it ends busy. The replacement kept is the one whose subtree
// holds a started job, else the first listed. A subtree is read whole
// before anything of it is ended, and ended deepest first, so that a run
// that stops midway leaves every pair visible to the next.
func (x *run) cutDuplicates(byName map[string][]types.ServiceJobSummary, busy map[string]bool) {
	r := x.r
	budget, warned := maxDuplicateDescribes, false
	describe := func(id string) (*batch.DescribeServiceJobOutput, bool) {
		if x.stop != "" || x.late() {
			return nil, false
		}
		if budget == 0 {
			if !warned {
				warned = true
				r.log.Warn("duplicate replacements not all checked; the rest next run", "describes", maxDuplicateDescribes)
			}
			return nil, false
		}
		budget--
		d, err := x.describe(id)
		if err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			return nil, false
		}
		if d.Tags[contract.TagReroutedFrom] == "" || d.Tags[contract.TagPlatform] != r.cfg.Platform.Name {
			r.mu.Lock()
			if len(r.notReplacement) >= maxNotReplacement {
				r.notReplacement = map[string]bool{}
			}
			r.notReplacement[id] = true // its tags never change
			r.mu.Unlock()
		}
		return d, true
	}
	known := func(id string) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.notReplacement[id]
	}
	// children are the live replacements of d that the listing holds.
	children := func(d *batch.DescribeServiceJobOutput) (out []*batch.DescribeServiceJobOutput, ok bool) {
		id := aws.ToString(d.JobId)
		for _, c := range byName[strings.ToLower(ReplacementName(aws.ToString(d.JobName), id))] {
			cid := aws.ToString(c.JobId)
			if cid == id || busy[cid] || known(cid) {
				continue
			}
			cd, read := describe(cid)
			if !read {
				return nil, false
			}
			if cd.Tags[contract.TagReroutedFrom] == id && cd.Tags[contract.TagPlatform] == r.cfg.Platform.Name && isLive(cd.Status) {
				out = append(out, cd)
			}
		}
		return out, true
	}
	// subtree is d and every live job moved from it, deepest last.
	var subtree func(d *batch.DescribeServiceJobOutput, depth int) ([]*batch.DescribeServiceJobOutput, bool)
	subtree = func(d *batch.DescribeServiceJobOutput, depth int) ([]*batch.DescribeServiceJobOutput, bool) {
		out := []*batch.DescribeServiceJobOutput{d}
		if depth >= platform.MaxRerouteMoves {
			return out, true
		}
		kids, ok := children(d)
		if !ok {
			return nil, false
		}
		for _, k := range kids {
			sub, ok := subtree(k, depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		}
		return out, true
	}

	names := make([]string, 0, len(byName))
	for n, cands := range byName {
		if len(cands) >= 2 && replacedSuffix.MatchString(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		seen := map[string]bool{}
		byOld := map[string][]*batch.DescribeServiceJobOutput{}
		var olds []string
		for _, c := range byName[n] {
			id := aws.ToString(c.JobId)
			if seen[id] || busy[id] || known(id) {
				continue // a listing may repeat a job; others are no replacements
			}
			seen[id] = true
			d, ok := describe(id)
			if x.stop != "" {
				return
			}
			if !ok {
				continue
			}
			from := d.Tags[contract.TagReroutedFrom]
			if from == "" || d.Tags[contract.TagPlatform] != r.cfg.Platform.Name || !isLive(d.Status) {
				continue
			}
			if byOld[from] == nil {
				olds = append(olds, from)
			}
			byOld[from] = append(byOld[from], d)
		}
		for _, from := range olds {
			ds := byOld[from]
			if len(ds) < 2 {
				continue
			}
			trees := make([][]*batch.DescribeServiceJobOutput, len(ds))
			complete := true
			for i, d := range ds {
				if trees[i], complete = subtree(d, 1); !complete {
					break
				}
			}
			// None of them moves or finishes a move of its own this run,
			// whatever comes of the cut: the next run sees what it left.
			for _, t := range trees {
				for _, d := range t {
					busy[aws.ToString(d.JobId)] = true
				}
			}
			for _, d := range ds {
				busy[aws.ToString(d.JobId)] = true
			}
			busy[from] = true // the old job, if it lives, is not moved either
			if !complete || x.listGap {
				// A subtree not read whole, or a listing with a gap (a
				// failed or capped listing may hide a job moved from one
				// of them): read again next run; nothing ended.
				continue
			}
			keep := 0
		pick:
			for i, t := range trees {
				for _, d := range t {
					if !pendingStatuses[d.Status] {
						keep = i
						break pick
					}
				}
			}
			keepID := aws.ToString(ds[keep].JobId)
			for i, t := range trees {
				if i == keep {
					continue
				}
				for k := len(t) - 1; k >= 0 && x.stop == ""; k-- { // deepest first
					busy[aws.ToString(t[k].JobId)] = true
					x.dropDuplicate(from, keepID, t[k])
				}
			}
			if x.stop != "" {
				return
			}
		}
	}
}

// finishLeftovers finds, among the live jobs, pairs an earlier run left:
// an old job and its replacement both live (the run stopped between the
// submission and the termination). It finishes each (finish) and returns
// the ids of the jobs involved, which this run does not move again.
// A replacement is recognised by its name (ReplacementName of the old
// job's name and id) and confirmed by its TagReroutedFrom tag.
func (x *run) finishLeftovers(live []types.ServiceJobSummary) map[string]bool {
	byName := map[string][]types.ServiceJobSummary{}
	for _, s := range live {
		n := strings.ToLower(aws.ToString(s.JobName))
		byName[n] = append(byName[n], s)
	}
	busy := map[string]bool{}
	// Replacements of one old job share its replacement's name: two live
	// jobs of that name with the same TagReroutedFrom are duplicates,
	// whether or not the old job is still live. One is kept (a started one
	// first) and the others are ended before any old job is finished, so
	// that a failure or a crash leaves a state the next run sees again.
	x.cutDuplicates(byName, busy)
	if x.stop != "" {
		return busy
	}
	for _, old := range live {
		oldID := aws.ToString(old.JobId)
		if busy[oldID] {
			continue
		}
		if x.late() {
			return busy
		}
		var confirmed []*batch.DescribeServiceJobOutput
		for _, cand := range byName[strings.ToLower(ReplacementName(aws.ToString(old.JobName), oldID))] {
			newID := aws.ToString(cand.JobId)
			if newID == oldID || busy[newID] {
				continue
			}
			nd, err := x.describe(newID)
			if err != nil {
				if isThrottle(err) {
					x.halt(stopThrottled, err)
					return busy
				}
				// Perhaps old's replacement: neither moves this run.
				busy[oldID], busy[newID] = true, true
				x.r.log.Warn("describe job failed; it is read again next run", "jobId", newID, "error", err)
				continue
			}
			if nd.Tags[contract.TagReroutedFrom] != oldID || nd.Tags[contract.TagPlatform] != x.r.cfg.Platform.Name {
				continue
			}
			busy[oldID], busy[newID] = true, true
			confirmed = append(confirmed, nd)
		}
		switch len(confirmed) {
		case 0:
		case 1:
			nd := confirmed[0]
			x.finish(pair{oldID: oldID, newID: aws.ToString(nd.JobId), newStatus: nd.Status, to: payloadType(nd), resumed: true})
			if x.stop != "" {
				return busy
			}
		default:
			// Duplicates the pass did not get to this run: it cuts them
			// in a later one; until then nothing of them moves.
		}
	}
	return busy
}

// failedForCapacity reads the platform's jobs that AWS Batch ended for
// lack of SageMaker capacity, stopped within the look-back window.
//
// AWS Batch retries a SageMaker training job that fails for capacity by
// itself, without spending the job's retry attempts, for as long as the job
// stays RUNNABLE ("When a SageMaker Training job fails due to insufficient
// capacity, AWS Batch retries the job automatically until capacity becomes
// available", https://docs.aws.amazon.com/batch/latest/userguide/service-job-retries.html);
// while it waits its statusReason is "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY
// - Unable to provision requested compute resources" (the SageMaker
// training job's failedReason begins with CapacityError). It ends FAILED
// for capacity when the queue's jobStateTimeLimitActions terminate it:
// "Terminated by JobStateTimeLimit action due to reason:
// CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"
// (https://docs.aws.amazon.com/batch/latest/userguide/sm_job_stuck_in_runnable_capacity.html).
// Such a job, and a FAILED job whose statusReason still carries the capacity
// reason or SageMaker's CapacityError, is resubmitted on another type.
func (x *run) failedForCapacity(now int64) (out []*job, names map[string]bool) {
	failed, err := x.list(types.ServiceJobStatusFailed, x.r.cfg.MaxFailedPages)
	names = map[string]bool{}
	for _, s := range failed {
		names[strings.ToLower(aws.ToString(s.JobName))] = true
	}
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			return nil, names
		}
		x.r.log.Warn("list failed jobs failed; they are looked at next run", "error", err)
	}
	from := now - x.r.cfg.FailedLookback.Milliseconds()
	for _, s := range failed {
		if stopped := aws.ToInt64(s.StoppedAt); stopped != 0 && stopped < from || aws.ToInt64(s.StoppedAt) == 0 && aws.ToInt64(s.CreatedAt) < from {
			continue
		}
		if !CapacityFailure(aws.ToString(s.StatusReason)) {
			continue
		}
		if x.late() {
			return out, names
		}
		d, err := x.describe(aws.ToString(s.JobId))
		if err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
				return out, names
			}
			x.r.log.Warn("describe job failed; it is read again next run", "jobId", aws.ToString(s.JobId), "error", err)
			continue
		}
		if d.Status != types.ServiceJobStatusFailed || !CapacityFailure(aws.ToString(d.StatusReason)) {
			continue
		}
		if j := x.read(d, now); j != nil {
			j.failed = true
			j.since = aws.ToInt64(d.StoppedAt)
			out = append(out, j)
		}
	}
	return out, names
}

// CapacityFailure reports whether a FAILED job's statusReason says AWS
// Batch ended it for lack of SageMaker capacity (see failedForCapacity):
// a time limit action for CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY, that
// reason itself, or SageMaker's CapacityError.
func CapacityFailure(statusReason string) bool {
	if r, ok := batchrules.EndedByTimeLimit(statusReason); ok {
		return r == batchrules.ReasonInsufficientCapacity
	}
	return batchrules.BlockedReason(statusReason) == batchrules.ReasonInsufficientCapacity ||
		strings.HasPrefix(statusReason, "CapacityError")
}

// writeMetrics writes the run's EMF lines: one for the run (totals per
// queue, always, so that alarms see data), one per (class, team, from, to)
// that moved and one per refusal reason. EMF gives a metric one value per
// line, so each dimension combination needs a line of its own.
func (r *Rerouter) writeMetrics(x *run) {
	queue := batchrules.JobQueueName(r.cfg.JobQueue)
	now := r.cfg.Now()
	total := newRecord(now, queue)
	total.Properties = map[string]any{"moved": x.sum.Moved, "refused": x.sum.Refused, "skipped": x.sum.Skipped, "deferred": x.sum.Deferred}
	if x.stop != "" {
		total.Properties["stopped"] = x.stop
	}
	total.Add(metrics.JobsRerouted, float64(x.sum.Moved), []string{metrics.Queue})
	total.Add(metrics.ReroutesRefused, float64(x.sum.Refused), []string{metrics.Queue})
	r.emit(total)
	keys := make([]moveKey, 0, len(x.moved))
	for k := range x.moved {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		ka, kb := keys[a], keys[b]
		return strings.Join([]string{ka.class, ka.team, ka.from, ka.to}, "\x00") < strings.Join([]string{kb.class, kb.team, kb.from, kb.to}, "\x00")
	})
	for _, k := range keys {
		rec := newRecord(now, queue)
		rec.Dimensions[metrics.Class], rec.Dimensions[metrics.Team] = k.class, k.team
		rec.Dimensions[metrics.FromInstanceType], rec.Dimensions[metrics.ToInstanceType] = k.from, k.to
		rec.Add(metrics.JobsRerouted, float64(x.moved[k]), []string{metrics.Queue, metrics.Class, metrics.Team, metrics.FromInstanceType, metrics.ToInstanceType}, []string{metrics.Queue, metrics.Class})
		r.emit(rec)
	}
	reasons := make([]string, 0, len(x.sum.RefusedBy))
	for k := range x.sum.RefusedBy {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		if x.sum.RefusedBy[reason] == 0 {
			continue
		}
		rec := newRecord(now, queue)
		rec.Dimensions[metrics.Reason] = reason
		rec.Add(metrics.ReroutesRefused, float64(x.sum.RefusedBy[reason]), []string{metrics.Queue, metrics.Reason})
		r.emit(rec)
	}
}

func (r *Rerouter) emit(rec *metrics.Record) {
	line, err := rec.Encode()
	if err != nil {
		r.log.Error("metric line not written", "error", err)
		return
	}
	if _, err := io.WriteString(r.cfg.Metrics, string(line)+"\n"); err != nil {
		r.log.Error("metric line not written", "error", err)
	}
}

func newRecord(now time.Time, queue string) *metrics.Record {
	return &metrics.Record{Time: now, Dimensions: map[string]string{metrics.Queue: queue}}
}

// unique keeps the first summary of each job id.
func unique(jobs []types.ServiceJobSummary) []types.ServiceJobSummary {
	seen := make(map[string]bool, len(jobs))
	out := jobs[:0]
	for _, s := range jobs {
		if id := aws.ToString(s.JobId); !seen[id] {
			seen[id] = true
			out = append(out, s)
		}
	}
	return out
}
