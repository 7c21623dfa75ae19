package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Observer turns each Batch service job state-change event into metrics,
// written to Out as EMF lines. It never fails an invocation because of an
// event: an event it cannot read is counted (EventsRejected) and logged with
// its reason on the same line, so that EventBridge does not retry it.
//
// Its Invoke method has the shape of aws-lambda-go's lambda.Handler, so
// `lambda.Start(observer)` runs it as is, but this package does not import
// Lambda.
type Observer struct {
	platform  *platform.Platform
	queue     string // as configured: an ARN or a name
	queueName string
	now       func() time.Time
	mu        sync.Mutex
	out       io.Writer
}

// NewObserver returns an observer for the platform's job queue. queue is the
// job queue's ARN or name; empty means p.JobQueueName(). Events of any other
// queue are rejected. now is the clock that stamps the metrics.
func NewObserver(p *platform.Platform, queue string, now func() time.Time, out io.Writer) (*Observer, error) {
	var missing []string
	if p == nil {
		missing = append(missing, "platform (p)")
	}
	if now == nil {
		missing = append(missing, "clock (now)")
	}
	if out == nil {
		missing = append(missing, "output (out)")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("new observer: missing %s; all of platform, clock and output are required", strings.Join(missing, ", "))
	}
	if queue == "" {
		queue = p.JobQueueName()
	}
	return &Observer{platform: p, queue: queue, queueName: batchrules.JobQueueName(queue), now: now, out: out}, nil
}

// Rejection reasons, the `reason` property of an EventsRejected line.
const (
	ReasonNotJSON       = "not-json"
	ReasonNotBatchEvent = "not-a-batch-service-job-event"
	ReasonNoDetail      = "no-detail"
	ReasonOtherQueue    = "other-queue"
	ReasonUnknownStatus = "unknown-status"
	ReasonUnknownJob    = "unknown-team-or-class"
	ReasonIncomplete    = "incomplete"
)

// Invoke handles one event and answers "null"; it returns an error only when
// the metrics cannot be written.
func (o *Observer) Invoke(_ context.Context, payload []byte) ([]byte, error) {
	recs := o.Observe(payload)
	var buf bytes.Buffer
	for _, r := range recs {
		line, err := r.Encode()
		if err != nil {
			return nil, fmt.Errorf("observe event: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if buf.Len() > 0 {
		o.mu.Lock()
		_, err := o.out.Write(buf.Bytes())
		o.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("observe event: write metrics: %w", err)
		}
	}
	return []byte("null"), nil
}

// Observe returns the metric records for one event: none for a state that
// needs no metric, one otherwise.
func (o *Observer) Observe(payload []byte) []*metrics.Record {
	now := o.now()
	var ev Event
	if err := json.Unmarshal(payload, &ev); err != nil {
		return []*metrics.Record{o.reject(now, nil, nil, ReasonNotJSON, fmt.Sprintf("payload is not a JSON event: %v", err))}
	}
	if ev.Source != contract.BatchEventSource || ev.DetailType != contract.BatchServiceJobEvent {
		return []*metrics.Record{o.reject(now, &ev, nil, ReasonNotBatchEvent,
			fmt.Sprintf("source %q, detail-type %q; want %q, %q", ev.Source, ev.DetailType, contract.BatchEventSource, contract.BatchServiceJobEvent))}
	}
	d := ev.Detail
	if d == nil {
		return []*metrics.Record{o.reject(now, &ev, nil, ReasonNoDetail, "event has no detail")}
	}
	if !o.ownQueue(d.JobQueue) {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonOtherQueue,
			fmt.Sprintf("jobQueue %q is not this platform's queue %q", d.JobQueue, o.queueName))}
	}
	if !knownStatuses[d.Status] {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnknownStatus, fmt.Sprintf("status %q is not a service job status", d.Status))}
	}
	id, err := Identify(o.platform, d)
	if err != nil {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnknownJob, err.Error())}
	}

	r := &metrics.Record{
		Time: now,
		Dimensions: map[string]string{
			metrics.Queue: o.queueName, metrics.Class: id.Class, metrics.Team: id.Team,
		},
		Properties: jobProperties(&ev, d),
	}
	var problem error
	switch d.Status {
	case StatusRunning:
		r.Add(metrics.JobsStarted, 1)
		if w, err := WaitSeconds(d); err != nil {
			problem = err
		} else {
			r.Add(metrics.WaitSeconds, w)
		}
	case StatusSucceeded, StatusFailed:
		switch {
		case d.Status == StatusSucceeded:
			r.Add(metrics.JobsSucceeded, 1)
		case Cancelled(d):
			r.Add(metrics.JobsCancelled, 1)
		default:
			r.Add(metrics.JobsFailed, 1)
		}
		if secs, ran, err := RunSeconds(d); err != nil {
			problem = err
		} else if ran {
			r.Add(metrics.RunSeconds, secs)
		}
	}
	if Preempted(d) {
		r.Add(metrics.JobsPreempted, 1)
	}
	if problem != nil {
		r.Add(metrics.EventsRejected, 1, []string{metrics.Queue})
		r.Properties["reason"] = ReasonIncomplete
		r.Properties["message"] = problem.Error()
	}
	if r.Len() == 0 {
		return nil
	}
	return []*metrics.Record{r}
}

func (o *Observer) ownQueue(q string) bool {
	return batchrules.SameJobQueue(q, o.queue)
}

func (o *Observer) reject(now time.Time, ev *Event, d *Detail, reason, message string) *metrics.Record {
	props := map[string]any{"reason": reason, "message": message}
	if ev != nil {
		props["eventId"] = ev.ID
		props["detailType"] = ev.DetailType
	}
	if d != nil {
		props["jobId"] = d.JobID
		props["status"] = d.Status
		props["jobQueue"] = d.JobQueue
	}
	r := &metrics.Record{Time: now, Dimensions: map[string]string{metrics.Queue: o.queueName}, Properties: props}
	r.Add(metrics.EventsRejected, 1)
	return r
}

func jobProperties(ev *Event, d *Detail) map[string]any {
	props := map[string]any{
		"eventId": ev.ID, "jobId": d.JobID, "jobName": d.JobName, "status": d.Status, "share": d.Share(),
	}
	if d.SchedulingPriority != nil {
		props["schedulingPriority"] = *d.SchedulingPriority
	}
	if t, n, ok := d.InstanceType(); ok {
		props["instanceType"] = t
		props["instanceCount"] = n
	}
	if d.StatusReason != "" {
		props["statusReason"] = d.StatusReason
	}
	return props
}
