package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Observer turns each Batch service job state-change event into metrics,
// written to Out as EMF lines. It never fails an invocation because of an
// event: an event it cannot read is counted (EventsRejected) and logged with
// its reason on the same line, so that EventBridge does not retry it.
//
// Serve is its typed Lambda handler (bin/observer starts it with
// lambda.StartHandlerFunc); Invoke has the shape of lambda.Handler, for
// tests that hand it raw payloads.
type Observer struct {
	platform  *platform.Platform
	queue     string // as configured: an ARN or a name
	queueName string
	now       func() time.Time
	mu        sync.Mutex
	out       io.Writer
	ledger    Ledger
}

// Ledger is where the observer records each job's state changes: package
// ledger's Store.
type Ledger interface {
	Record(context.Context, ledger.Observation) (bool, error)
}

// SetLedger makes the observer record every state change of a job of the
// platform in l before it writes the event's metrics. Default: no ledger.
func (o *Observer) SetLedger(l Ledger) { o.ledger = l }

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
	// ReasonUnreadable: a member the observer needs to place the event at
	// all (its queue, status, share or priority) is unreadable.
	ReasonUnreadable = "unreadable-field"
	// ReasonIncomplete: the event was counted, but a metric it would also
	// give was dropped (a time it needs is missing, unreadable or
	// implausible).
	ReasonIncomplete = "incomplete"
	// ReasonUnencodable: the metrics of the event could not be written as
	// EMF (a defect of trainq, logged rather than failing the invocation).
	ReasonUnencodable = "unencodable"
)

// maxListedProblems bounds the unreadable members a line lists.
const maxListedProblems = 10

// Serve is the function's handler, typed for the Lambda library
// (lambda.StartHandlerFunc, as every trainq function starts): it handles
// one event, as sent, and answers null. It records a job's state
// change in the ledger first, when it has one, and then writes the event's
// metrics. It returns an error only when the ledger write or the metrics
// fail, so that Lambda retries the event (a retried event adds nothing to
// the ledger that it already holds, and its metrics were not written); an
// event trainq cannot read or encode becomes a rejection line instead.
//
// Its errors answer errorType UpstreamError (contract.KindUpstream): the
// ledger's table or the log failed, not the event.
func (o *Observer) Serve(ctx context.Context, payload json.RawMessage) (json.RawMessage, error) {
	out, err := o.serve(ctx, payload)
	if err != nil {
		return nil, messages.InvokeResponse_Error{Type: string(contract.KindUpstream), Message: contract.Cut(err.Error(), contract.MaxLoggedChars)}
	}
	return out, nil
}

// Invoke implements lambda.Handler: Serve.
func (o *Observer) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	return o.Serve(ctx, payload)
}

func (o *Observer) serve(ctx context.Context, payload []byte) ([]byte, error) {
	now := o.now()
	recs, obs := o.observe(now, payload)
	if obs != nil && o.ledger != nil {
		if _, err := o.ledger.Record(ctx, *obs); err != nil {
			return nil, fmt.Errorf("observe event: ledger: %w", err)
		}
	}
	var buf bytes.Buffer
	for _, r := range recs {
		line, err := r.Encode()
		if err != nil {
			fallback := o.reject(now, nil, nil, ReasonUnencodable, fmt.Sprintf("the event's metrics could not be encoded: %v", err))
			fallback.Properties["eventId"] = r.Properties["eventId"]
			fallback.Properties["jobId"] = r.Properties["jobId"]
			if line, err = fallback.Encode(); err != nil {
				return nil, fmt.Errorf("observe event: %w", err)
			}
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
	recs, _ := o.observe(o.now(), payload)
	return recs
}

// observe returns the metric records of one event and, for a state change
// of a job of the platform, what the ledger records of it.
func (o *Observer) observe(now time.Time, payload []byte) ([]*metrics.Record, *ledger.Observation) {
	var obs *ledger.Observation
	recs := o.metricsOf(now, payload, &obs)
	return recs, obs
}

// metricsOf is observe's work; it sets *obs once the event is known to be
// a state change of a job of the platform.
func (o *Observer) metricsOf(now time.Time, payload []byte, obs **ledger.Observation) []*metrics.Record {
	if _, err := contract.SplitObject(payload); err != nil {
		return []*metrics.Record{o.reject(now, nil, nil, ReasonNotJSON, fmt.Sprintf("payload is not a JSON event: %v", err))}
	}
	var ev Event
	ps := decodeMembers(payload, &ev, "")
	ps = append(ps, checkDetail(ev.Detail, now)...)
	bad := map[string][]fieldProblem{}
	for _, p := range ps {
		bad[p.top()] = append(bad[p.top()], p)
	}
	need := func(members ...string) []fieldProblem {
		var out []fieldProblem
		for _, m := range members {
			out = append(out, bad[m]...)
		}
		return out
	}
	if p := need("source", "detail-type"); len(p) > 0 {
		return []*metrics.Record{o.reject(now, &ev, nil, ReasonNotBatchEvent, "unreadable: "+list(p))}
	}
	if ev.Source == contract.ScheduledEventSource && ev.DetailType == contract.ScheduledEventDetailType {
		return []*metrics.Record{o.heartbeat(now, &ev)}
	}
	blocked := ev.DetailType == contract.BatchServiceJobQueueBlockedEvent
	if ev.Source != contract.BatchEventSource || (ev.DetailType != contract.BatchServiceJobEvent && !blocked) {
		return []*metrics.Record{o.reject(now, &ev, nil, ReasonNotBatchEvent,
			fmt.Sprintf("source %q, detail-type %q; want %q, and %q or %q", ev.Source, ev.DetailType,
				contract.BatchEventSource, contract.BatchServiceJobEvent, contract.BatchServiceJobQueueBlockedEvent))}
	}
	d := ev.Detail
	if d == nil {
		msg := "event has no detail"
		if p := bad["detail"]; len(p) > 0 {
			msg = "unreadable: " + list(p)
		}
		return []*metrics.Record{o.reject(now, &ev, nil, ReasonNoDetail, msg)}
	}
	if p := need("detail.jobQueue"); len(p) > 0 {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnreadable, "unreadable: "+list(p))}
	}
	if !o.ownQueue(d.JobQueue) {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonOtherQueue,
			fmt.Sprintf("jobQueue %q is not this platform's queue %q", d.JobQueue, o.queueName))}
	}
	if blocked {
		return []*metrics.Record{o.queueBlocked(now, &ev, d, bad)}
	}
	if p := need("detail.status"); len(p) > 0 {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnreadable, "unreadable: "+list(p))}
	}
	if !knownStatuses[d.Status] {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnknownStatus, fmt.Sprintf("status %q is not a service job status", d.Status))}
	}
	if p := need("detail.quotaShareName", "detail.shareIdentifier", "detail.schedulingPriority"); len(p) > 0 {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnreadable, "unreadable: "+list(p))}
	}
	id, err := Identify(o.platform, d)
	if err != nil {
		return []*metrics.Record{o.reject(now, &ev, d, ReasonUnknownJob, err.Error())}
	}
	if ob := Observation(d, id, bad); ob.JobID != "" {
		*obs = ob
	}

	r := &metrics.Record{
		Time: now,
		Dimensions: map[string]string{
			metrics.Queue: o.queueName, metrics.Class: id.Class, metrics.Team: id.Team,
		},
		Properties: jobProperties(&ev, d, bad),
	}
	// What each metric reads, beyond the members that placed the event.
	var (
		waitNeeds      = need("detail.createdAt", "detail.startedAt", "detail.attempts", "detail.preemptionSummary")
		runNeeds       = need("detail.startedAt", "detail.stoppedAt", "detail.attempts", "detail.preemptionSummary", "detail.preemptionConfiguration")
		preemptedNeeds = need("detail.startedAt", "detail.attempts", "detail.preemptionSummary", "detail.preemptionConfiguration")
	)
	var problems []string
	drop := func(m metrics.Metric, because []fieldProblem) {
		problems = append(problems, fmt.Sprintf("%s dropped, unreadable: %s", m.Name, list(because)))
	}
	switch d.Status {
	case StatusRunning:
		r.Add(metrics.JobsStarted, 1)
		switch w, err := WaitSeconds(d); {
		case len(waitNeeds) > 0:
			drop(metrics.WaitSeconds, waitNeeds)
		case err != nil:
			problems = append(problems, err.Error())
		default:
			r.Add(metrics.WaitSeconds, w)
		}
	case StatusSucceeded, StatusFailed:
		switch {
		case d.Status == StatusSucceeded:
			r.Add(metrics.JobsSucceeded, 1)
		case Cancelled(d):
			r.Add(metrics.JobsCancelled, 1)
		case Rerouted(d):
			// Moved, not failed: no JobsFailed, so no failure alarm; the
			// re-router counted the move.
		default:
			// An unreadable statusReason cannot show a cancellation: the
			// job counts as failed, and the line says why.
			if p := need("detail.statusReason"); len(p) > 0 {
				problems = append(problems, "counted as JobsFailed, not JobsCancelled, unreadable: "+list(p))
			}
			cause := batchrules.FailureCause(d.StatusReason, Preempted(d))
			r.Properties["failureCause"] = cause
			r.Dimensions[metrics.Fault] = metrics.FaultPlatform
			if batchrules.JobsFault(cause) {
				r.Dimensions[metrics.Fault] = metrics.FaultJob
			}
			r.Add(metrics.JobsFailed, 1)
		}
		if len(runNeeds) > 0 {
			drop(metrics.RunSeconds, runNeeds)
		} else if secs, ran, err := RunSeconds(d); err != nil {
			problems = append(problems, err.Error())
		} else if ran {
			r.Add(metrics.RunSeconds, secs)
		}
	}
	if d.Status == StatusRunnable || d.Status == StatusFailed {
		if len(preemptedNeeds) > 0 {
			if d.PreemptionSummary != nil || len(bad["detail.preemptionSummary"]) > 0 {
				drop(metrics.JobsPreempted, preemptedNeeds)
			}
		} else if Preempted(d) {
			r.Add(metrics.JobsPreempted, 1)
		}
	}
	if len(problems) > 0 {
		r.Add(metrics.EventsRejected, 1, []string{metrics.Queue})
		r.Properties["reason"] = ReasonIncomplete
		r.Properties["message"] = contract.Cut(strings.Join(problems, "; "), contract.MaxLoggedChars)
	}
	if r.Len() == 0 {
		return nil
	}
	return []*metrics.Record{r}
}

// queueBlocked is the record of a "Batch Service Job Queue Blocked" event:
// QueueBlocked, per queue and per reason code.
func (o *Observer) queueBlocked(now time.Time, ev *Event, d *Detail, bad map[string][]fieldProblem) *metrics.Record {
	reason := batchrules.BlockedReason(d.StatusReason)
	if reason == "" {
		reason = metrics.ReasonOther
	}
	props := jobProperties(ev, d, bad)
	props["blockedReason"] = reason
	r := &metrics.Record{Time: now, Dimensions: map[string]string{metrics.Queue: o.queueName, metrics.Reason: reason}, Properties: props}
	r.Add(metrics.QueueBlocked, 1)
	return r
}

// heartbeat is the record of a scheduled heartbeat event:
// ObserverHeartbeats of the queue.
func (o *Observer) heartbeat(now time.Time, ev *Event) *metrics.Record {
	r := &metrics.Record{Time: now, Dimensions: map[string]string{metrics.Queue: o.queueName},
		Properties: contract.CutAll(map[string]any{"eventId": ev.ID, "detailType": ev.DetailType}, contract.MaxLoggedChars)}
	r.Add(metrics.ObserverHeartbeats, 1)
	return r
}

func (o *Observer) ownQueue(q string) bool {
	return batchrules.SameJobQueue(q, o.queue)
}

// reject is an EventsRejected line. It names the event (eventId, "" when
// the payload has none), the job (jobId, when the detail has one), the
// reason and a message, every string cut at contract.MaxLoggedChars.
func (o *Observer) reject(now time.Time, ev *Event, d *Detail, reason, message string) *metrics.Record {
	props := map[string]any{"reason": reason, "message": message, "eventId": ""}
	if ev != nil {
		props["eventId"] = ev.ID
		props["detailType"] = ev.DetailType
	}
	if d != nil {
		if d.JobID != "" {
			props["jobId"] = d.JobID
		}
		props["status"] = d.Status
		props["jobQueue"] = d.JobQueue
	}
	r := &metrics.Record{Time: now, Dimensions: map[string]string{metrics.Queue: o.queueName}, Properties: contract.CutAll(props, contract.MaxLoggedChars)}
	r.Add(metrics.EventsRejected, 1)
	return r
}

// jobProperties are the searchable properties of a job's line, every
// string cut at contract.MaxLoggedChars; ignoredFields lists the unreadable
// members, if any.
func jobProperties(ev *Event, d *Detail, bad map[string][]fieldProblem) map[string]any {
	props := map[string]any{
		"eventId": ev.ID, "jobId": d.JobID, "jobName": d.JobName, "status": d.Status, "share": d.Share(),
	}
	if d.SchedulingPriority != nil {
		props["schedulingPriority"] = *d.SchedulingPriority
	}
	if len(bad["detail.capacityUsage"]) == 0 {
		if t, n, ok := d.InstanceType(); ok {
			props["instanceType"] = t
			props["instanceCount"] = n
		}
	}
	if d.StatusReason != "" {
		props["statusReason"] = d.StatusReason
		if reason, ok := batchrules.EndedByTimeLimit(d.StatusReason); ok {
			props["endedByTimeLimit"] = reason
		}
	}
	var all []fieldProblem
	for _, p := range bad {
		all = append(all, p...)
	}
	if len(all) > 0 {
		sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
		props["unreadableFields"] = list(all)
	}
	return contract.CutAll(props, contract.MaxLoggedChars)
}

// list renders problems for a message: at most maxListedProblems, each cut.
func list(ps []fieldProblem) string {
	parts := make([]string, 0, min(len(ps), maxListedProblems)+1)
	for i, p := range ps {
		if i == maxListedProblems {
			parts = append(parts, fmt.Sprintf("and %d more", len(ps)-i))
			break
		}
		parts = append(parts, contract.Cut(p.Path, contract.MaxShownChars)+": "+contract.Cut(p.What, contract.MaxShownChars))
	}
	return strings.Join(parts, "; ")
}
