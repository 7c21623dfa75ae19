package poll

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// BatchAPI is the part of the AWS Batch client the poller calls.
type BatchAPI interface {
	GetJobQueueSnapshot(ctx context.Context, in *batch.GetJobQueueSnapshotInput, opts ...func(*batch.Options)) (*batch.GetJobQueueSnapshotOutput, error)
	ListServiceJobs(ctx context.Context, in *batch.ListServiceJobsInput, opts ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error)
	DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, opts ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error)
}

// Poller defaults.
const (
	// DefaultDescribeConcurrency is how many DescribeServiceJob calls run at
	// once.
	DefaultDescribeConcurrency = 8
	// DefaultMaxPages bounds the ListServiceJobs pages (100 jobs each) of
	// one run: 200,000 runnable jobs. A listing that does not end within it
	// (or before the run's deadline) writes no backlog metric rather than a
	// wrong one.
	DefaultMaxPages = 2000
	// DefaultCallsPerSecond bounds the poller's Batch calls: half of the 50
	// calls a second AWS Batch allows an account across its API ("AWS Batch
	// API requests error", AWS re:Post knowledge center), leaving the rest
	// to submissions (their own 5 a second), the re-router and people. At
	// this rate a run lists 100,000 runnable jobs (1,000 pages) in 40 s.
	DefaultCallsPerSecond = 25
	// DefaultCallTimeout bounds one Batch call (with the SDK's retries), so
	// that one hung call costs only what it would have read.
	DefaultCallTimeout = 10 * time.Second
	// DefaultDeadlineMargin is how long before the invocation's deadline
	// every call must have ended, so that what was read is always written:
	// 5 s, or a fifth of the time left when the run starts, whichever is
	// less.
	DefaultDeadlineMargin = 5 * time.Second
)

// PollerConfig configures a Poller. Zero values take the defaults above.
type PollerConfig struct {
	Platform *platform.Platform
	// Queue is the job queue's ARN or name. Default: Platform.JobQueueName().
	Queue string
	Batch BatchAPI
	// Now is the clock. Required.
	Now func() time.Time
	// Out receives the EMF lines. Required.
	Out io.Writer
	// Log receives warnings; NewPoller bounds every string it is given
	// (contract.BoundedLog). Default: discarded.
	Log                 *slog.Logger
	DescribeConcurrency int
	MaxPages            int
	// CallsPerSecond bounds the run's Batch calls (listing and describing
	// together); negative means no bound. Default: DefaultCallsPerSecond.
	CallsPerSecond float64
	// CallTimeout bounds each Batch call. Default: DefaultCallTimeout.
	CallTimeout time.Duration
	// DeadlineMargin is kept free before the invocation's deadline for
	// writing. Default: DefaultDeadlineMargin.
	DeadlineMargin time.Duration
}

// Poller reads the queue once a minute (GetJobQueueSnapshot for the capacity
// in use, ListServiceJobs for every runnable job, DescribeServiceJob once
// for each job it has not seen) and writes the backlog and capacity gauges
// as EMF lines. It remembers each runnable job's class, instance type and
// instance count for as long as the job stays runnable: a job's class stays
// within its priority band (trainq re-prioritizes only inside it) and its
// request never changes, so each job is described once, and the describes
// a run needs are bounded by the jobs submitted since the last run (AWS
// Batch takes at most 5 SubmitServiceJob calls a second per account).
//
// Its Invoke method has the shape of aws-lambda-go's lambda.Handler.
type Poller struct {
	cfg       PollerConfig
	queueName string

	mu    sync.Mutex
	known map[string]knownJob
}

type knownJob struct {
	class        string
	instanceType string
	instances    int
	since        int64
}

// NewPoller checks cfg and fills its defaults.
func NewPoller(cfg PollerConfig) (*Poller, error) {
	var missing []string
	for _, f := range []struct {
		name  string
		unset bool
	}{
		{"Platform", cfg.Platform == nil}, {"Batch", cfg.Batch == nil}, {"Now", cfg.Now == nil}, {"Out", cfg.Out == nil},
	} {
		if f.unset {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("new poller: PollerConfig.%s not set; Platform, Batch (client), Now (clock) and Out (output) are required",
			strings.Join(missing, ", PollerConfig."))
	}
	if cfg.Queue == "" {
		cfg.Queue = cfg.Platform.JobQueueName()
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	cfg.Log = slog.New(contract.BoundedLog(cfg.Log.Handler()))
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.DeadlineMargin <= 0 {
		cfg.DeadlineMargin = DefaultDeadlineMargin
	}
	if cfg.DescribeConcurrency <= 0 {
		cfg.DescribeConcurrency = DefaultDescribeConcurrency
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.CallsPerSecond == 0 {
		cfg.CallsPerSecond = DefaultCallsPerSecond
	}
	return &Poller{cfg: cfg, queueName: batchrules.JobQueueName(cfg.Queue), known: map[string]knownJob{}}, nil
}

// Answer is a scheduled run's answer.
type Answer struct {
	RunnableJobs  int `json:"runnableJobs"`
	Undescribed   int `json:"undescribed"`
	Records       int `json:"records"`
	ListCalls     int `json:"listCalls"`
	DescribeCalls int `json:"describeCalls"`
}

// Handle is one scheduled run, aws-lambda-go's typed handler like the other
// functions': it runs Poll, ignoring the scheduler's payload (nothing in it
// is trusted), and answers a short summary; a failed run's error is cut at
// contract.MaxLoggedChars.
func (p *Poller) Handle(ctx context.Context, _ json.RawMessage) (Answer, error) {
	s, err := p.Poll(ctx)
	if err != nil {
		// Every error is a Batch call's: UpstreamError, as the submission
		// function answers it (the Lambda library would answer any other
		// error type with its Go type's name). What Batch answered is in
		// the message: bounded, like every line.
		return Answer{}, messages.InvokeResponse_Error{Type: string(contract.KindUpstream), Message: contract.Cut(err.Error(), contract.MaxLoggedChars)}
	}
	return Answer{RunnableJobs: s.Runnable, Undescribed: s.Undescribed, Records: s.Records, ListCalls: s.ListCalls, DescribeCalls: s.DescribeCalls}, nil
}

// PollSummary says what one run saw, called and wrote.
type PollSummary struct {
	// Runnable is how many runnable jobs were listed; Undescribed how many
	// of them have no known class and instance type yet.
	Runnable, Undescribed int
	// Records is how many EMF records were written.
	Records int
	// ListCalls and DescribeCalls are the Batch calls the run made.
	ListCalls, DescribeCalls int
}

// Poll reads the queue and writes the gauges. The snapshot and the runnable
// jobs are read side by side, every Batch call under the run's rate
// (CallsPerSecond), each bounded by CallTimeout and all of them ending
// DeadlineMargin before ctx's deadline, so that a failed or hung call costs
// only what it would have read: what could be read is written, and the
// error names every call that failed. A listing that could not reach its
// last page writes no backlog metric (RunnableJobs, OldestRunnableSeconds):
// no number rather than a wrong one. Odd entries of a snapshot
// (batchrules' Usage.Skipped) are left out and logged.
func (p *Poller) Poll(ctx context.Context) (PollSummary, error) {
	now := p.cfg.Now()
	calls, cancel := p.budget(ctx)
	defer cancel()
	r := &run{p: p, ctx: calls, rate: newLimiter(p.cfg.CallsPerSecond)}

	var (
		usage    *batchrules.Usage
		snapErr  error
		runnable []RunnableJob
		listed   bool
		listErrs []error
		wg       sync.WaitGroup
	)
	wg.Go(func() {
		usage, snapErr = r.readUsage()
	})
	wg.Go(func() {
		summaries, err := r.listRunnable()
		if err != nil {
			listErrs = append(listErrs, err)
			return
		}
		listed = true
		runnable, err = r.classify(now, summaries)
		if err != nil {
			listErrs = append(listErrs, err)
		}
	})
	wg.Wait()
	var errs []error
	if snapErr != nil {
		errs = append(errs, snapErr)
	}
	errs = append(errs, listErrs...)

	g := Gauges{Platform: p.cfg.Platform, Queue: p.queueName, Now: now, Usage: usage, Runnable: runnable, RunnableKnown: listed}
	recs := g.Records()
	var buf bytes.Buffer
	written := 0
	for _, rec := range recs {
		line, err := rec.Encode()
		if err != nil {
			// One record trainq cannot encode costs that record only.
			errs = append(errs, fmt.Errorf("encode metrics: %w", err))
			continue
		}
		buf.Write(line)
		buf.WriteByte('\n')
		written++
	}
	if _, err := p.cfg.Out.Write(buf.Bytes()); err != nil {
		errs = append(errs, fmt.Errorf("write metrics: %w", err))
	}
	s := PollSummary{Runnable: len(runnable), Records: written, ListCalls: int(r.listCalls.Load()), DescribeCalls: int(r.describeCalls.Load())}
	for _, j := range runnable {
		if !j.Described {
			s.Undescribed++
		}
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("poll %s: %w", p.cfg.Queue, errors.Join(errs...))
	}
	return s, nil
}

// budget is the context of a run's calls: ctx, ending DeadlineMargin (at
// most a fifth of the time left) before ctx's deadline.
func (p *Poller) budget(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	margin := min(p.cfg.DeadlineMargin, time.Until(deadline)/5)
	return context.WithDeadline(ctx, deadline.Add(-margin))
}

// run is one Poll: its calls' context, rate and counts.
type run struct {
	p                        *Poller
	ctx                      context.Context
	rate                     *limiter
	listCalls, describeCalls atomic.Int64
}

// errNoTime is the error of a call the run had no time left to start.
var errNoTime = errors.New("not started: the run's time is up")

// call runs one Batch call at the run's rate, under CallTimeout; it
// answers errNoTime (wrapping the context's error) when the run ends before
// the call may start.
func call[T any](r *run, f func(context.Context) (T, error)) (T, error) {
	var zero T
	if err := r.rate.wait(r.ctx); err != nil {
		return zero, fmt.Errorf("%w: %w", errNoTime, err)
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.p.cfg.CallTimeout)
	defer cancel()
	return f(ctx)
}

// readUsage reads the snapshot's capacity in use; nil when the snapshot
// carries none.
func (r *run) readUsage() (*batchrules.Usage, error) {
	p := r.p
	snap, err := call(r, func(ctx context.Context) (*batch.GetJobQueueSnapshotOutput, error) {
		return p.cfg.Batch.GetJobQueueSnapshot(ctx, &batch.GetJobQueueSnapshotInput{JobQueue: aws.String(p.cfg.Queue)})
	})
	if err != nil {
		return nil, fmt.Errorf("get job queue snapshot of %s: %w", p.cfg.Queue, err)
	}
	usage := batchsdk.QueueUtilization(snap).Usage()
	if usage == nil {
		p.cfg.Log.Warn("queue snapshot carries no queueUtilization; capacity metrics skipped", "queue", p.cfg.Queue)
		return nil, nil
	}
	for _, skipped := range usage.Skipped {
		p.cfg.Log.Warn("queue snapshot entry left out", "queue", p.cfg.Queue, "entry", skipped)
	}
	return usage, nil
}

// listRunnable lists every RUNNABLE job of the queue, page by page, each
// job once (a job Batch lists on two pages counts once). A listing that
// does not reach its last page within MaxPages is an error: no backlog is
// written from part of it.
func (r *run) listRunnable() ([]types.ServiceJobSummary, error) {
	p := r.p
	in := &batch.ListServiceJobsInput{
		JobQueue:   aws.String(p.cfg.Queue),
		JobStatus:  types.ServiceJobStatusRunnable,
		MaxResults: aws.Int32(100),
	}
	pages := batch.NewListServiceJobsPaginator(p.cfg.Batch, in, func(o *batch.ListServiceJobsPaginatorOptions) {
		o.StopOnDuplicateToken = true
	})
	jobs := []types.ServiceJobSummary{}
	seen := map[string]bool{}
	repeated := 0
	for n := 0; pages.HasMorePages(); n++ {
		if n == p.cfg.MaxPages {
			return nil, fmt.Errorf("list runnable service jobs of %s: more than %d pages (%d jobs so far); no backlog written", p.cfg.Queue, n, len(jobs))
		}
		page, err := call(r, func(ctx context.Context) (*batch.ListServiceJobsOutput, error) { return pages.NextPage(ctx) })
		r.listCalls.Add(1)
		if err != nil {
			return nil, fmt.Errorf("list runnable service jobs of %s (page %d, %d jobs so far): %w", p.cfg.Queue, n+1, len(jobs), err)
		}
		for _, j := range page.JobSummaryList {
			id := aws.ToString(j.JobId)
			if id == "" || seen[id] {
				repeated++
				continue
			}
			seen[id] = true
			jobs = append(jobs, j)
		}
	}
	if repeated > 0 {
		p.cfg.Log.Warn("runnable jobs listed twice or without id were counted once or not at all", "queue", p.cfg.Queue, "entries", repeated)
	}
	return jobs, nil
}

// classify turns job summaries into runnable jobs with team, class,
// instance type and runnable-since. The summary has the share but neither
// the priority nor the request, so each job the poller does not know is
// described once, oldest first, DescribeConcurrency at once, as many as the
// run's rate and deadline allow; the rest are described in later runs and
// count meanwhile for the queue and their team only (RunnableUndescribed).
func (r *run) classify(now time.Time, summaries []types.ServiceJobSummary) ([]RunnableJob, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	jobs := make([]RunnableJob, 0, len(summaries))
	seen := make(map[string]bool, len(summaries))
	var todo []int
	for _, s := range summaries {
		id := aws.ToString(s.JobId)
		seen[id] = true
		share := batchrules.ShareOfJob(aws.ToString(s.QuotaShareName), aws.ToString(s.ShareIdentifier))
		j := RunnableJob{ID: id}
		if t, ok := p.cfg.Platform.Team(share); ok {
			j.Team = t.Name
		} else {
			p.cfg.Log.Warn("runnable job's share is not a team", "jobId", id, "share", share)
		}
		// Runnable since the latest plausible moment; a job with none counts
		// in RunnableJobs but not in OldestRunnableSeconds.
		var since int64
		for _, ms := range []int64{aws.ToInt64(s.CreatedAt), aws.ToInt64(s.StoppedAt)} {
			if ms != 0 && ms <= now.UnixMilli() {
				if err := batchrules.CheckTime("createdAt or stoppedAt", ms, now); err == nil {
					since = max(since, ms)
				} else {
					p.cfg.Log.Warn("runnable job's time is implausible", "jobId", id, "error", err)
				}
			}
		}
		if since > 0 {
			j.Since = time.UnixMilli(since).UTC()
		}
		if _, ok := p.known[id]; !ok {
			if batchrules.ValidJobID(id) {
				todo = append(todo, len(jobs))
			} else {
				p.cfg.Log.Warn("runnable job not described: its id is no Batch job id", "jobId", id)
			}
		}
		jobs = append(jobs, j)
	}
	for id := range p.known {
		if !seen[id] {
			delete(p.known, id)
		}
	}
	// Oldest first: the oldest waits are what the alarms read.
	slices.SortStableFunc(todo, func(a, b int) int { return jobs[a].Since.Compare(jobs[b].Since) })

	var (
		mu       sync.Mutex
		errs     []error
		deferred atomic.Int64
		wg       sync.WaitGroup
	)
	work := make(chan int)
	for range min(p.cfg.DescribeConcurrency, len(todo)) {
		wg.Go(func() {
			for i := range work {
				id := jobs[i].ID
				out, err := call(r, func(ctx context.Context) (*batch.DescribeServiceJobOutput, error) {
					return p.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(id)})
				})
				if errors.Is(err, errNoTime) {
					// Described in a later run.
					deferred.Add(1)
					continue
				}
				r.describeCalls.Add(1)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("describe service job %s: %w", id, err))
					mu.Unlock()
					continue
				}
				k := p.describe(id, out, now)
				mu.Lock()
				p.known[id] = k
				mu.Unlock()
			}
		})
	}
	for _, i := range todo {
		if r.ctx.Err() != nil {
			deferred.Add(1)
			continue
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if n := deferred.Load(); n > 0 {
		p.cfg.Log.Warn("run ended before every new runnable job was described; they are described in later runs", "queue", p.cfg.Queue, "left", n)
	}

	for i := range jobs {
		k, ok := p.known[jobs[i].ID]
		if !ok {
			continue
		}
		j := &jobs[i]
		j.Described = true
		j.Class, j.InstanceType, j.Instances = k.class, k.instanceType, k.instances
		if k.since > 0 && (j.Since.IsZero() || k.since > j.Since.UnixMilli()) {
			j.Since = time.UnixMilli(k.since).UTC()
		}
	}
	if len(errs) > 0 {
		return jobs, errors.Join(errs...)
	}
	return jobs, nil
}

// describe reads what the poller remembers of a runnable job from its
// description: the class of its priority, the instance type and count of
// its request, and when it last became runnable.
func (p *Poller) describe(id string, out *batch.DescribeServiceJobOutput, now time.Time) knownJob {
	since, _ := batchsdk.RunnableSince(out, now.UnixMilli())
	if since != 0 && batchrules.CheckTime("runnable since", since, now) != nil {
		since = 0
	}
	k := knownJob{since: since}
	if out.SchedulingPriority != nil {
		if c, ok := p.cfg.Platform.ClassForPriority(int(*out.SchedulingPriority)); ok {
			k.class = c.Name
		}
	}
	if k.class == "" {
		p.cfg.Log.Warn("runnable job has no class", "jobId", id, "schedulingPriority", out.SchedulingPriority)
	}
	if typ, n, ok := batchrules.RequestedInstances(aws.ToString(out.ServiceRequestPayload)); ok {
		k.instanceType, k.instances = typ, n
	} else {
		p.cfg.Log.Warn("runnable job's request names no instance type and count", "jobId", id)
	}
	return k
}

// limiter spaces calls at most perSecond a second; nil spaces nothing.
type limiter struct {
	mu    sync.Mutex
	every time.Duration
	next  time.Time
}

func newLimiter(perSecond float64) *limiter {
	if perSecond <= 0 {
		return nil
	}
	return &limiter{every: time.Duration(float64(time.Second) / perSecond)}
}

// wait returns when the next call may start, or ctx's error.
func (l *limiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l == nil {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	if l.next.Before(now) {
		l.next = now
	}
	at := l.next
	l.next = l.next.Add(l.every)
	l.mu.Unlock()
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
