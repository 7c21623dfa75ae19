// Package reconcile completes the job ledger from AWS Batch: a job whose
// state-change events were lost (EventBridge delivers at least once, but
// an event can still miss the observer: a rule disabled during a deploy,
// the observer throttled past its retries) stays open in the ledger, so a
// reconciling pass describes open jobs (DescribeServiceJob) and records
// what Batch says, through the same conditional merge as the observer
// (ledger.Store.Record), so that the pass and the observer never undo
// each other and a description that adds nothing writes nothing.
//
// The pass runs in the snapshot poller (bin/poller), every Interval
// (15 minutes): the poller already reads the queue on a schedule and may
// describe jobs. Its calls are bounded: one read of the ledger's open jobs
// (at most MaxQueries queries of the index's open partition), then at most
// MaxDescribes descriptions, for the open jobs not seen for Grace: first
// those the ledger holds as scheduled, starting or running (a lost end
// leaves exactly those open; the pool bounds how many run at once), then
// the waiting ones in turns (by job id, each pass the ones after the
// previous pass's, so that every waiting job is described once every
// waiting/MaxDescribes passes).
//
// A job whose every event was lost is not in the ledger at all, so the
// pass also lists the queue's recent jobs (ListServiceJobs, at most
// MaxListPages pages of 100 for each of ListedStatuses, newest first) and
// describes those the ledger lacks, after the open jobs it holds as
// active and before the waiting ones, within the same MaxDescribes.
//
// It is run-time code: it must never import the AWS CDK, jsii or
// constructs, nor a function's package.
package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

// BatchAPI is the part of the AWS Batch client the pass calls.
type BatchAPI interface {
	DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, opts ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error)
	ListServiceJobs(ctx context.Context, in *batch.ListServiceJobsInput, opts ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error)
}

// Defaults of a pass.
const (
	// DefaultInterval is how often the poller runs a pass.
	DefaultInterval = 15 * time.Minute
	// DefaultGrace is how long after its last event a job is left to its
	// events: an event in flight is not a lost one.
	DefaultGrace = 10 * time.Minute
	// DefaultMaxDescribes bounds a pass's DescribeServiceJob calls: 100
	// every 15 minutes is 0.11 a second, beside the 50 a second AWS Batch
	// allows an account across its API.
	DefaultMaxDescribes = 100
	// DefaultMaxQueries bounds the reads of the open partition: 200 pages
	// of up to 1 MB, some 250,000 open jobs.
	DefaultMaxQueries = 200
	// DefaultDeadlineMargin is kept free before the invocation's
	// deadline: the poller's own margin.
	DefaultDeadlineMargin = 5 * time.Second
	// DefaultMaxListPages bounds the ListServiceJobs pages read for each
	// of ListedStatuses: the newest 200 jobs of each status, 10 list calls
	// and at most 1,000 ledger reads (GetItem) a pass.
	DefaultMaxListPages = 2
)

// ListedStatuses are the statuses whose recent jobs a pass lists to find
// jobs the ledger never saw: the ended ones (their usage is complete) and
// the ones holding capacity (counted as running to now). Jobs still
// waiting are not listed: a backlog can hold 100,000, they use nothing
// yet, and the pass finds them once they run or end.
var ListedStatuses = []types.ServiceJobStatus{types.ServiceJobStatusSucceeded, types.ServiceJobStatusFailed,
	types.ServiceJobStatusRunning, types.ServiceJobStatusStarting, types.ServiceJobStatusScheduled}

// Config configures a pass. Zero values take the defaults above.
type Config struct {
	Platform *platform.Platform
	Ledger   *ledger.Store
	Batch    BatchAPI
	// Queue is the job queue's ARN or name (default the platform's).
	Queue    string
	Now      func() time.Time
	Interval time.Duration
	Grace    time.Duration
	// MaxDescribes, MaxQueries and MaxListPages bound the pass's calls.
	MaxDescribes, MaxQueries, MaxListPages int
	// DeadlineMargin is how long before ctx's deadline every call must
	// have ended (default DefaultDeadlineMargin).
	DeadlineMargin time.Duration
}

// Summary is what a pass did.
type Summary struct {
	// Open is how many open jobs the ledger holds (read), Stale how many
	// of them had no event for Grace.
	Open, Stale int
	// Described is how many were described, Changed how many of those
	// the description changed, Gone how many Batch no longer knows
	// (past its retention: left open).
	Described, Changed, Gone int
	// Truncated is true when the open jobs were not all read.
	Truncated bool
	// Listed is how many recent jobs of the queue were listed, Unknown how
	// many of them the ledger lacked (seen before Grace, of a team of the
	// platform): each is described when the pass has room, and recorded
	// when it is one of the platform's (Foreign counts those that are
	// not: a share or priority the platform does not place).
	Listed, Unknown, Foreign int
	// ListTruncated is true when a status had more jobs than the pages
	// read.
	ListTruncated bool
	// Cut is true when the pass ran out of time (DeadlineMargin before
	// the invocation's deadline) and stopped where it was.
	Cut bool
}

// Due reports whether the pass runs at now: once every Interval, on the
// poller's first run of it.
func (c Config) Due(now time.Time) bool {
	iv := c.interval()
	return now.Truncate(iv).Equal(now.Truncate(time.Minute))
}

func (c Config) interval() time.Duration {
	if c.Interval <= 0 {
		return DefaultInterval
	}
	return c.Interval
}

// Run makes one pass. When ctx has a deadline, every call ends
// DeadlineMargin before it: a pass that runs out of time stops where it is
// (Summary.Cut), keeps what it recorded, and the next pass starts again,
// so that the poller it runs in answers before Lambda ends it.
func Run(ctx context.Context, c Config) (Summary, error) {
	calls := ctx
	if d, ok := ctx.Deadline(); ok {
		margin := c.DeadlineMargin
		if margin <= 0 {
			margin = DefaultDeadlineMargin
		}
		var cancel context.CancelFunc
		calls, cancel = context.WithDeadline(ctx, d.Add(-margin))
		defer cancel()
	}
	sum, err := c.run(calls)
	if err != nil && calls.Err() != nil && ctx.Err() == nil {
		sum.Cut = true
		return sum, nil
	}
	return sum, err
}

func (c Config) run(ctx context.Context) (Summary, error) {
	var sum Summary
	if c.Platform == nil || c.Ledger == nil || c.Batch == nil {
		return sum, errors.New("reconcile: the platform, the ledger and the Batch client are required")
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	grace, maxDescribes, maxQueries := c.Grace, c.MaxDescribes, c.MaxQueries
	if grace <= 0 {
		grace = DefaultGrace
	}
	if maxDescribes <= 0 {
		maxDescribes = DefaultMaxDescribes
	}
	if maxQueries <= 0 {
		maxQueries = DefaultMaxQueries
	}
	at := now()
	before := at.Add(-grace).UnixMilli()
	type open struct {
		id      string
		seen    int64
		unknown bool // listed by Batch, not in the ledger
	}
	var active, waiting []open
	next, err := c.Ledger.OpenJobs(ctx, "", maxQueries, func(j *ledger.Job) (bool, error) {
		sum.Open++
		if j.LastSeen() > before {
			return true, nil
		}
		sum.Stale++
		o := open{id: j.JobID, seen: j.LastSeen()}
		switch j.Status {
		case "SCHEDULED", "STARTING", "RUNNING":
			active = append(active, o)
		default:
			waiting = append(waiting, o)
		}
		return true, nil
	})
	if err != nil {
		return sum, fmt.Errorf("reconcile: read the open jobs: %w", err)
	}
	sum.Truncated = next != ""
	oldest := func(a, b open) int {
		if a.seen != b.seen {
			return int(a.seen - b.seen)
		}
		return strings.Compare(a.id, b.id)
	}
	slices.SortFunc(active, oldest)
	picked := active[:min(len(active), maxDescribes)]
	unknown, err := c.unknownJobs(ctx, before, &sum)
	if err != nil {
		return sum, err
	}
	for _, id := range unknown {
		if len(picked) < maxDescribes {
			picked = append(picked, open{id: id, unknown: true})
		}
	}
	if room := maxDescribes - len(picked); room > 0 && len(waiting) > 0 {
		// The waiting jobs in turns: by job id, each pass the room after
		// the previous pass's, so that ceil(waiting/room) consecutive
		// passes describe every one.
		slices.SortFunc(waiting, func(a, b open) int { return strings.Compare(a.id, b.id) })
		from := int((at.UnixNano() / int64(c.interval()) * int64(room)) % int64(len(waiting)))
		for i := range min(room, len(waiting)) {
			picked = append(picked, waiting[(from+i)%len(waiting)])
		}
	}
	for _, o := range picked {
		out, err := c.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(o.id)})
		sum.Described++
		if batchsdk.IsNotFound(err) {
			sum.Gone++
			continue
		}
		if err != nil {
			return sum, fmt.Errorf("reconcile: describe job %s: %w", o.id, err)
		}
		ob := Observation(c.Platform, out)
		if o.unknown && (ob.Team == "" || ob.Class == "") {
			// Not a job the observer would record: no ledger item.
			sum.Foreign++
			continue
		}
		changed, err := c.Ledger.Record(ctx, ob)
		if err != nil {
			return sum, fmt.Errorf("reconcile: %w", err)
		}
		if changed {
			sum.Changed++
		}
	}
	return sum, nil
}

// unknownJobs lists the queue's recent jobs of ListedStatuses, newest
// first, at most MaxListPages pages each, and returns those the ledger
// lacks, in the order listed: their last moment (stop, start, schedule or
// creation) before the moment before (an event in flight is not a lost
// one), and their share a team of the platform.
func (c Config) unknownJobs(ctx context.Context, before int64, sum *Summary) ([]string, error) {
	pages := c.MaxListPages
	if pages <= 0 {
		pages = DefaultMaxListPages
	}
	queue := c.Queue
	if queue == "" {
		queue = c.Platform.JobQueueName()
	}
	var out []string
	for _, status := range ListedStatuses {
		var token *string
		for page := 0; page < pages; page++ {
			list, err := c.Batch.ListServiceJobs(ctx, &batch.ListServiceJobsInput{JobQueue: aws.String(queue), JobStatus: status,
				MaxResults: aws.Int32(100), NextToken: token})
			if err != nil {
				return nil, fmt.Errorf("reconcile: list the queue's %s jobs: %w", status, err)
			}
			for _, j := range list.JobSummaryList {
				sum.Listed++
				last := max(aws.ToInt64(j.CreatedAt), aws.ToInt64(j.ScheduledAt), aws.ToInt64(j.StartedAt), aws.ToInt64(j.StoppedAt))
				if last > before || aws.ToString(j.JobId) == "" {
					continue
				}
				if _, ok := c.Platform.Team(batchrules.ShareOfJob(aws.ToString(j.QuotaShareName), aws.ToString(j.ShareIdentifier))); !ok {
					continue
				}
				_, found, err := c.Ledger.Get(ctx, aws.ToString(j.JobId))
				if err != nil {
					return nil, fmt.Errorf("reconcile: %w", err)
				}
				if !found && !slices.Contains(out, aws.ToString(j.JobId)) {
					sum.Unknown++
					out = append(out, aws.ToString(j.JobId))
				}
			}
			if token = list.NextToken; token == nil {
				break
			}
			if page == pages-1 {
				sum.ListTruncated = true
			}
		}
	}
	return out, nil
}

// Observation is what a DescribeServiceJob answer says of a job, as the
// ledger records it. The team and class are found by the observer's rule
// (observe.IdentifyJob: the share names the team, the scheduling
// priority's band the class), so that both writers agree; a job the rule
// cannot place keeps the team and class its events gave. The description
// adds what events lack: the re-router's lineage tag and the checkpoint
// location of the request.
func Observation(p *platform.Platform, d *batch.DescribeServiceJobOutput) ledger.Observation {
	ms := func(v *int64) int64 {
		if v == nil {
			return 0
		}
		return *v
	}
	o := ledger.Observation{JobID: aws.ToString(d.JobId), JobARN: aws.ToString(d.JobArn), JobName: aws.ToString(d.JobName),
		Status: string(d.Status), StatusReason: aws.ToString(d.StatusReason), CreatedAt: ms(d.CreatedAt), ScheduledAt: ms(d.ScheduledAt),
		StartedAt: ms(d.StartedAt), StoppedAt: ms(d.StoppedAt), ReroutedFrom: d.Tags[contract.TagReroutedFrom]}
	if id, err := observe.IdentifyJob(p, aws.ToString(d.QuotaShareName), aws.ToString(d.ShareIdentifier), d.SchedulingPriority); err == nil {
		o.Team, o.Class = id.Team, id.Class
	}
	if d.SchedulingPriority != nil {
		o.Priority = int(*d.SchedulingPriority)
	}
	for _, u := range d.CapacityUsage {
		if u.CapacityUnit != nil && u.Quantity != nil && *u.Quantity > 0 {
			o.InstanceType, o.Instances = *u.CapacityUnit, int(*u.Quantity)
			break
		}
	}
	if o.InstanceType == "" {
		o.InstanceType, o.Instances, _ = batchrules.RequestedInstances(aws.ToString(d.ServiceRequestPayload))
	}
	var req struct{ CheckpointConfig *struct{ S3Uri string } }
	if json.Unmarshal([]byte(aws.ToString(d.ServiceRequestPayload)), &req) == nil && req.CheckpointConfig != nil {
		o.Checkpoint = req.CheckpointConfig.S3Uri
	}
	if d.TimeoutConfig != nil && d.TimeoutConfig.AttemptDurationSeconds != nil {
		o.TimeoutSeconds = int(*d.TimeoutConfig.AttemptDurationSeconds)
	}
	for _, a := range d.Attempts {
		x := ledger.ObservedAttempt{StartedAt: ms(a.StartedAt), StoppedAt: ms(a.StoppedAt), StatusReason: aws.ToString(a.StatusReason)}
		if a.ServiceResourceId != nil {
			x.TrainingJob = aws.ToString(a.ServiceResourceId.Value)
		}
		o.Attempts = append(o.Attempts, x)
	}
	if s := d.PreemptionSummary; s != nil {
		for _, a := range s.RecentPreemptedAttempts {
			x := ledger.ObservedAttempt{StartedAt: ms(a.StartedAt), StoppedAt: ms(a.StoppedAt), StatusReason: aws.ToString(a.StatusReason)}
			if a.ServiceResourceId != nil {
				x.TrainingJob = aws.ToString(a.ServiceResourceId.Value)
			}
			o.Preempted = append(o.Preempted, x)
		}
		if s.PreemptedAttemptCount != nil {
			o.PreemptedCount = int(*s.PreemptedAttemptCount)
		}
	}
	return o
}
