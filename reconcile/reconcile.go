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
// It is run-time code: it must never import the AWS CDK, jsii or
// constructs, nor a function's package.
package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
)

// Describer is the part of the AWS Batch client the pass calls.
type Describer interface {
	DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, opts ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error)
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
)

// Config configures a pass. Zero values take the defaults above.
type Config struct {
	Platform *platform.Platform
	Ledger   *ledger.Store
	Batch    Describer
	Now      func() time.Time
	Interval time.Duration
	Grace    time.Duration
	// MaxDescribes and MaxQueries bound the pass's calls.
	MaxDescribes, MaxQueries int
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

// Run makes one pass.
func Run(ctx context.Context, c Config) (Summary, error) {
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
		id   string
		seen int64
	}
	var active, waiting []open
	next, err := c.Ledger.OpenJobs(ctx, "", maxQueries, func(j *ledger.Job) (bool, error) {
		sum.Open++
		if j.LastSeen() > before {
			return true, nil
		}
		sum.Stale++
		o := open{j.JobID, j.LastSeen()}
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
		return cmpString(a.id, b.id)
	}
	slices.SortFunc(active, oldest)
	picked := active[:min(len(active), maxDescribes)]
	if room := maxDescribes - len(picked); room > 0 && len(waiting) > 0 {
		// The waiting jobs in turns: by job id, each pass the room after
		// the previous pass's, so that ceil(waiting/room) consecutive
		// passes describe every one.
		slices.SortFunc(waiting, func(a, b open) int { return cmpString(a.id, b.id) })
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
		changed, err := c.Ledger.Record(ctx, Observation(c.Platform, out))
		if err != nil {
			return sum, fmt.Errorf("reconcile: %w", err)
		}
		if changed {
			sum.Changed++
		}
	}
	return sum, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Observation is what a DescribeServiceJob answer says of a job, as the
// ledger records it. The team and class are found as the observer finds
// them from an event (the share names the team, the scheduling priority's
// band the class), so that both writers agree; the description adds what
// events lack: the re-router's lineage tag and the checkpoint location of
// the request.
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
	if t, ok := p.Team(batchrules.ShareOfJob(aws.ToString(d.QuotaShareName), aws.ToString(d.ShareIdentifier))); ok {
		o.Team = t.Name
	}
	if d.SchedulingPriority != nil {
		o.Priority = int(*d.SchedulingPriority)
		if c, ok := p.ClassForPriority(o.Priority); ok {
			o.Class = c.Name
		}
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
