package reroute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
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
}

// New checks cfg and returns a Rerouter.
func New(cfg Config) (*Rerouter, error) {
	var errs []error
	if cfg.Platform == nil {
		errs = append(errs, errors.New("Platform is required"))
	} else if n := cfg.Platform.Rerouting.MaxMovesPerMinute; n < 1 {
		errs = append(errs, fmt.Errorf("Platform.Rerouting.MaxMovesPerMinute is %d, want 1 to %d (a platform loaded with platform.LoadJSONFile or given ApplyDefaults has one)", n, platform.MaxMovesPerMinuteLimit))
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
	if cfg.Platform != nil {
		for _, t := range cfg.Platform.TeamNames() {
			if !batchrules.ValidRoleARN(cfg.Door.ExecutionRoles[t]) {
				errs = append(errs, fmt.Errorf("Door.ExecutionRoles[%s]: got %q, want the team's execution role ARN (door.DeployedEnv), which every replacement of its jobs must carry", t, contract.Cut(cfg.Door.ExecutionRoles[t], contract.MaxShownChars)))
			}
		}
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
	if cfg.DecisionTrust <= 0 {
		cfg.DecisionTrust = DefaultDecisionTrust
	}
	if cfg.RelookDelays == nil {
		cfg.RelookDelays = DefaultRelookDelays
	}
	h := slog.DiscardHandler
	if cfg.Logger != nil {
		h = cfg.Logger.Handler()
	}
	r := &Rerouter{cfg: cfg, log: slog.New(contract.BoundedLog(h))}
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
	r      *Rerouter
	ctx    context.Context
	stopAt time.Time // no move starts later; zero: no deadline
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
// listed, as the invocation's answer: errorType UpstreamError
// (contract.KindUpstream), the message cut at contract.MaxLoggedChars;
// every other failure is one job's, counted and logged, and the run goes
// on.
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
		// The only error is a failed listing of the runnable jobs: AWS
		// Batch's. The Lambda library answers any other error type with
		// its Go type's name as errorType, which tells a caller nothing.
		return x.sum, messages.InvokeResponse_Error{Type: string(contract.KindUpstream), Message: contract.Cut(err.Error(), contract.MaxLoggedChars)}
	}
	return x.sum, nil
}

func (x *run) do() error {
	runnable, others, err := x.listLive()
	if err != nil || x.stop != "" {
		return err
	}
	snap, err := x.snapshot()
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			return nil
		}
		x.r.log.Warn("queue snapshot failed; no move this run", "error", err)
		return nil
	}
	runnable, described := x.readRunnable(snap, runnable, others)
	if x.stop != "" {
		return nil
	}
	now := x.r.cfg.Now().UnixMilli()
	failed := x.failedForCapacity(now)
	if x.stop != "" {
		return nil
	}

	// Converge every recorded decision first: an old job carrying one (its
	// move is finished or undone), and the old job of every replacement
	// read (a decision this instance's cache may not show yet). None of the
	// jobs involved is planned again this run.
	busy := map[string]bool{}
	var ds []*batch.DescribeServiceJobOutput
	for _, s := range append(others, runnable...) {
		if d := described[aws.ToString(s.JobId)]; d != nil {
			ds = append(ds, d)
		}
	}
	for _, j := range failed {
		ds = append(ds, j.d)
	}
	x.convergeAll(ds, busy)
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
	var jobs []*job
	for _, s := range runnable {
		id := aws.ToString(s.JobId)
		if d := described[id]; d != nil && !busy[id] && pendingStatuses[d.Status] {
			if j := x.read(d, now); j != nil {
				jobs = append(jobs, j)
			}
		}
	}
	for _, j := range failed {
		if !busy[j.id] && !j.marked {
			jobs = append(jobs, j)
		}
	}
	p := plan(x.r.cfg.Platform, jobs, usage, now)
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

// listLive lists the queue's live jobs: the runnable ones, and of the
// others those whose names are replacements' (each converges its old
// job's decision: an old job that started, say, is described by nobody
// else), at most maxReplacementReads. It starts a cold instance's bucket
// from them (seed). It returns an error only when the runnable jobs cannot
// be listed.
func (x *run) listLive() (runnable, others []types.ServiceJobSummary, err error) {
	cfg := x.r.cfg
	runnable, err = x.list(types.ServiceJobStatusRunnable, cfg.MaxPages)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("list runnable jobs of %s: %w", batchrules.JobQueueName(cfg.JobQueue), err)
	}
	live := append([]types.ServiceJobSummary(nil), runnable...)
	for _, st := range liveStatuses[1:] {
		jobs, err := x.list(st, cfg.MaxPages)
		if err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
				return nil, nil, nil
			}
			x.r.log.Warn("list jobs failed; jobs in that status are looked at next run", "status", string(st), "error", err)
		}
		for _, s := range jobs {
			if len(others) < maxReplacementReads && replacedSuffix().MatchString(aws.ToString(s.JobName)) {
				others = append(others, s)
			}
		}
		live = append(live, jobs...)
	}
	x.seed(live)
	return runnable, others, nil
}

// readRunnable describes the runnable jobs and others: the runnable ones
// each once (a listing whose pages shift may repeat one), with the jobs at
// the front of the queue and of each share, oldest first (a front job not
// listed counts as oldest), as many as Config.MaxDescribes. It returns the
// runnable jobs read and the descriptions.
func (x *run) readRunnable(snap *batch.GetJobQueueSnapshotOutput, runnable, others []types.ServiceJobSummary) ([]types.ServiceJobSummary, map[string]*batch.DescribeServiceJobOutput) {
	// The jobs at the front of the queue and of each share are the ones
	// next to start, and those a saturated type holds up; Batch lists the
	// newest jobs first, so in a queue longer than the listing bound they
	// may not be listed: they are read as well, fresh, never from the
	// cache (the snapshot may lag a move that ended one).
	front := frontJobs(snap, runnable)
	runnable = append(runnable, front...)
	for _, s := range front {
		x.r.forget(aws.ToString(s.JobId))
	}
	runnable = unique(runnable)
	sort.SliceStable(runnable, func(a, b int) bool { return aws.ToInt64(runnable[a].CreatedAt) < aws.ToInt64(runnable[b].CreatedAt) })
	if n := x.r.cfg.MaxDescribes; len(runnable) > n {
		x.r.log.Warn("more runnable jobs than one run reads; the youngest wait for a later run", "runnable", len(runnable), "read", n)
		runnable = runnable[:n]
	}
	return runnable, x.describeAll(unique(append(append([]types.ServiceJobSummary(nil), others...), runnable...)))
}

// maxReplacementReads bounds the live jobs in statuses other than
// RUNNABLE that a run reads because their names are replacements' (others
// may take such names).
const maxReplacementReads = 500

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
	rc, err := batchrules.ReadRequested(j.payload)
	if err != nil {
		x.r.log.Warn("payload unreadable; the job is not moved", "jobId", j.id, "error", err)
		return nil
	}
	j.instanceType, j.instances = rc.InstanceType, rc.Count
	j.moves = movesOf(d)
	j.marked = d.Tags[contract.TagMove] != ""
	if since, found := batchsdk.RunnableSince(d, now); found {
		j.since = since
	} else {
		j.since = now
	}
	reason := aws.ToString(d.StatusReason)
	j.blocked = batchrules.BlockedReason(reason) == batchrules.ReasonInsufficientCapacity
	return j
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
func (x *run) failedForCapacity(now int64) (out []*job) {
	failed, err := x.list(types.ServiceJobStatusFailed, x.r.cfg.MaxFailedPages)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			return nil
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
			return out
		}
		d, err := x.describe(aws.ToString(s.JobId))
		if err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
				return out
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
	return out
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
