package poll

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

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
	// DefaultMaxDescribes caps the DescribeServiceJob calls of one run; jobs
	// left over are classified in later runs.
	DefaultMaxDescribes = 200
	// DefaultMaxPages caps the ListServiceJobs pages (100 jobs each) of one
	// run.
	DefaultMaxPages = 50
	// DefaultClassTTL is how long a runnable job's class is remembered before
	// it is described again (its priority may have been updated).
	DefaultClassTTL = 10 * time.Minute
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
	MaxDescribes        int
	MaxPages            int
	ClassTTL            time.Duration
	// CallTimeout bounds each Batch call. Default: DefaultCallTimeout.
	CallTimeout time.Duration
	// DeadlineMargin is kept free before the invocation's deadline for
	// writing. Default: DefaultDeadlineMargin.
	DeadlineMargin time.Duration
}

// Poller reads the queue once a minute (GetJobQueueSnapshot for the capacity
// in use, ListServiceJobs and DescribeServiceJob for the runnable jobs) and
// writes the backlog and capacity gauges as EMF lines. It remembers the
// class of each runnable job between runs of a warm function, so that a
// large backlog is described once, not every minute.
//
// Its Invoke method has the shape of aws-lambda-go's lambda.Handler.
type Poller struct {
	cfg       PollerConfig
	queueName string

	mu    sync.Mutex
	known map[string]knownJob
}

type knownJob struct {
	class       string
	since       int64
	describedAt time.Time
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
	if cfg.MaxDescribes <= 0 {
		cfg.MaxDescribes = DefaultMaxDescribes
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.ClassTTL <= 0 {
		cfg.ClassTTL = DefaultClassTTL
	}
	return &Poller{cfg: cfg, queueName: batchrules.JobQueueName(cfg.Queue), known: map[string]knownJob{}}, nil
}

// Answer is a scheduled run's answer.
type Answer struct {
	RunnableJobs int `json:"runnableJobs"`
	Records      int `json:"records"`
}

// Handle is one scheduled run, aws-lambda-go's typed handler like the other
// functions': it runs Poll, ignoring the scheduler's payload (nothing in it
// is trusted), and answers a short summary; a failed run's error is cut at
// contract.MaxLoggedChars.
func (p *Poller) Handle(ctx context.Context, _ json.RawMessage) (Answer, error) {
	s, err := p.Poll(ctx)
	if err != nil {
		// What Batch answered is in the error: bounded, like every line.
		return Answer{}, errors.New(contract.Cut(err.Error(), contract.MaxLoggedChars))
	}
	return Answer{RunnableJobs: s.Runnable, Records: s.Records}, nil
}

// PollSummary says what one run saw and wrote.
type PollSummary struct {
	Runnable int
	Records  int
}

// Poll reads the queue and writes the gauges. The snapshot and the runnable
// jobs are read side by side, each Batch call bounded by CallTimeout and all
// of them ending DeadlineMargin before ctx's deadline, so that a failed or
// hung call costs only what it would have read: what could be read is
// written, and the error names every call that failed. Odd entries of a
// snapshot (batchrules' Usage.Skipped) are left out and logged.
func (p *Poller) Poll(ctx context.Context) (PollSummary, error) {
	now := p.cfg.Now()
	calls, cancel := p.budget(ctx)
	defer cancel()

	var (
		usage    *batchrules.Usage
		snapErr  error
		runnable []RunnableJob
		listed   bool
		listErrs []error
		wg       sync.WaitGroup
	)
	wg.Go(func() {
		usage, snapErr = p.readUsage(calls)
	})
	wg.Go(func() {
		summaries, err := p.listRunnable(calls)
		if err != nil {
			listErrs = append(listErrs, err)
			return
		}
		listed = true
		runnable, err = p.classify(calls, now, summaries)
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
	for _, r := range recs {
		line, err := r.Encode()
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
	s := PollSummary{Runnable: len(runnable), Records: written}
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

// call runs one Batch call under CallTimeout.
func call[T any](p *Poller, ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.CallTimeout)
	defer cancel()
	return f(ctx)
}

// readUsage reads the snapshot's capacity in use; nil when the snapshot
// carries none.
func (p *Poller) readUsage(ctx context.Context) (*batchrules.Usage, error) {
	snap, err := call(p, ctx, func(ctx context.Context) (*batch.GetJobQueueSnapshotOutput, error) {
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

// listRunnable lists the queue's RUNNABLE jobs, page by page, up to
// MaxPages, each job once (a job Batch lists on two pages counts once).
func (p *Poller) listRunnable(ctx context.Context) ([]types.ServiceJobSummary, error) {
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
			p.cfg.Log.Warn("runnable jobs truncated", "queue", p.cfg.Queue, "pages", n, "jobs", len(jobs))
			break
		}
		page, err := call(p, ctx, func(ctx context.Context) (*batch.ListServiceJobsOutput, error) { return pages.NextPage(ctx) })
		if err != nil {
			return nil, fmt.Errorf("list runnable service jobs of %s (page %d): %w", p.cfg.Queue, n+1, err)
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

// classify turns job summaries into runnable jobs with team, class and
// runnable-since. The summary has the share but not the priority, so the
// class needs DescribeServiceJob: at most MaxDescribes calls a run,
// DescribeConcurrency at once, and a job's class is remembered for ClassTTL.
func (p *Poller) classify(ctx context.Context, now time.Time, summaries []types.ServiceJobSummary) ([]RunnableJob, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	var todo []string
	for _, s := range summaries {
		id := aws.ToString(s.JobId)
		seen[id] = true
		if !batchrules.ValidJobID(id) {
			p.cfg.Log.Warn("runnable job not described: its id is no Batch job id", "jobId", id)
			continue
		}
		k, ok := p.known[id]
		if (!ok || now.Sub(k.describedAt) > p.cfg.ClassTTL) && len(todo) < p.cfg.MaxDescribes {
			todo = append(todo, id)
		}
	}
	for id := range p.known {
		if !seen[id] {
			delete(p.known, id)
		}
	}
	if len(todo) < len(summaries) && len(todo) == p.cfg.MaxDescribes {
		p.cfg.Log.Warn("describe cap reached; remaining jobs are classified in later runs", "queue", p.cfg.Queue, "described", len(todo))
	}

	type result struct {
		id  string
		job knownJob
		err error
	}
	results := make(chan result, len(todo))
	sem := make(chan struct{}, p.cfg.DescribeConcurrency)
	var wg sync.WaitGroup
	for _, id := range todo {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := call(p, ctx, func(ctx context.Context) (*batch.DescribeServiceJobOutput, error) {
				return p.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(id)})
			})
			if err != nil {
				results <- result{id: id, err: fmt.Errorf("describe service job %s: %w", id, err)}
				return
			}
			since, _ := batchsdk.RunnableSince(out, now.UnixMilli())
			if since != 0 && batchrules.CheckTime("runnable since", since, now) != nil {
				since = 0
			}
			k := knownJob{describedAt: now, since: since}
			if out.SchedulingPriority != nil {
				if c, ok := p.cfg.Platform.ClassForPriority(int(*out.SchedulingPriority)); ok {
					k.class = c.Name
				}
			}
			if k.class == "" {
				p.cfg.Log.Warn("runnable job has no class", "jobId", id, "schedulingPriority", out.SchedulingPriority)
			}
			results <- result{id: id, job: k}
		})
	}
	wg.Wait()
	close(results)
	var errs []error
	for r := range results {
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		p.known[r.id] = r.job
	}

	jobs := make([]RunnableJob, 0, len(summaries))
	for _, s := range summaries {
		id := aws.ToString(s.JobId)
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
		if k, ok := p.known[id]; ok {
			j.Class = k.class
			since = max(since, k.since)
		}
		if since > 0 {
			j.Since = time.UnixMilli(since).UTC()
		}
		jobs = append(jobs, j)
	}
	if len(errs) > 0 {
		return jobs, errors.Join(errs...)
	}
	return jobs, nil
}
