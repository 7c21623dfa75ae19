package observe

import (
	"fmt"
	"strings"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// The rules below turn what one event carries into metrics, with no state
// kept between invocations. docs/monitoring.md explains each with its
// approximation.

// Identity is what the observer recovers of a job: its team and class.
type Identity struct {
	Team  string
	Class string
}

// Identify recovers a job's team and class from what its event carries
// (IdentifyJob).
func Identify(p *platform.Platform, d *Detail) (Identity, error) {
	return IdentifyJob(p, d.QuotaShareName, d.ShareIdentifier, d.SchedulingPriority)
}

// IdentifyJob recovers a job's team from its share (quotaShareName, else
// shareIdentifier, batchrules.ShareOfJob: trainq names each share after its
// team) and its class from its scheduling priority (class bands never
// overlap). Events carry no tags, so nothing else can tell; it is the one
// rule for every writer of the ledger: the observer from an event, the
// reconciling pass from DescribeServiceJob or ListServiceJobs.
func IdentifyJob[N ~int | ~int32 | ~int64](p *platform.Platform, quotaShareName, shareIdentifier string, priority *N) (Identity, error) {
	share := batchrules.ShareOfJob(quotaShareName, shareIdentifier)
	if share == "" {
		return Identity{}, fmt.Errorf("the job has neither quotaShareName nor shareIdentifier; want the name of a team (%v)", p.TeamNames())
	}
	team, ok := p.Team(share)
	if !ok {
		return Identity{}, fmt.Errorf("share %q is not a team of the platform; want one of %v", share, p.TeamNames())
	}
	if priority == nil {
		return Identity{}, fmt.Errorf("the job has no schedulingPriority; want a priority inside a class band (%s)", bands(p))
	}
	class, ok := p.ClassForPriority(int(*priority))
	if !ok {
		return Identity{}, fmt.Errorf("schedulingPriority %d is outside every class band (%s)", *priority, bands(p))
	}
	return Identity{Team: team.Name, Class: class.Name}, nil
}

func bands(p *platform.Platform) string {
	s := ""
	for i, c := range p.Classes {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d-%d", c.Name, c.Priority.Min, c.Priority.Max)
	}
	return s
}

// latestAttempt returns the attempt that started last, or nil when no
// attempt has a start time.
func latestAttempt(d *Detail) *Attempt {
	var latest *Attempt
	for i := range d.Attempts {
		a := &d.Attempts[i]
		if a.StartedAt == nil {
			continue
		}
		if latest == nil || *a.StartedAt > *latest.StartedAt {
			latest = a
		}
	}
	return latest
}

// startedAt is when the current (latest) attempt started: its startedAt,
// else the job's startedAt.
func startedAt(d *Detail) (int64, bool) {
	if a := latestAttempt(d); a != nil {
		return *a.StartedAt, true
	}
	if d.StartedAt != nil {
		return *d.StartedAt, true
	}
	return 0, false
}

// stoppedAt is when the current attempt stopped: its stoppedAt, else the
// job's stoppedAt.
func stoppedAt(d *Detail) (int64, bool) {
	if a := latestAttempt(d); a != nil && a.StoppedAt != nil {
		return *a.StoppedAt, true
	}
	if d.StoppedAt != nil {
		return *d.StoppedAt, true
	}
	return 0, false
}

// RunnableSince is when the job last became RUNNABLE, as far as the detail
// tells, considering only moments at or before `before` (Unix ms): Batch's
// rule, batchrules.RunnableSince, over the job's creation and the stops of
// its attempts and recent preemptions.
func RunnableSince(d *Detail, before int64) (int64, bool) {
	moments := []*int64{d.CreatedAt}
	for i := range d.Attempts {
		moments = append(moments, d.Attempts[i].StoppedAt)
	}
	if ps := d.PreemptionSummary; ps != nil {
		for i := range ps.RecentPreemptedAttempts {
			moments = append(moments, ps.RecentPreemptedAttempts[i].StoppedAt)
		}
	}
	return batchrules.RunnableSince(before, moments...)
}

// WaitSeconds is, for a RUNNING event, the time from RunnableSince to the
// start of the current attempt.
func WaitSeconds(d *Detail) (float64, error) {
	start, ok := startedAt(d)
	if !ok {
		return 0, fmt.Errorf("RUNNING job has no startedAt (on an attempt or the job); the wait cannot be measured")
	}
	since, ok := RunnableSince(d, start)
	if !ok {
		return 0, fmt.Errorf("RUNNING job has no createdAt nor an earlier attempt's stoppedAt at or before its start %d; the wait cannot be measured", start)
	}
	return seconds(since, start), nil
}

// RunSeconds is, for a SUCCEEDED or FAILED event, how long the last attempt
// ran. ran is false for a job that failed while it was not running: before it
// ever started (no start time), or while requeued after a preemption (its
// last attempt ended in that preemption, which Preempted does not take for
// the cause of the failure).
func RunSeconds(d *Detail) (secs float64, ran bool, err error) {
	if d.Status == StatusFailed && lastStopWasPreemption(d) && !Preempted(d) {
		return 0, false, nil
	}
	start, ok := startedAt(d)
	if !ok {
		if d.Status == StatusSucceeded {
			return 0, false, fmt.Errorf("SUCCEEDED job has no startedAt (on an attempt or the job); the run time cannot be measured")
		}
		return 0, false, nil
	}
	stop, ok := stoppedAt(d)
	if !ok {
		return 0, true, fmt.Errorf("%s job started at %d has no stoppedAt; the run time cannot be measured", d.Status, start)
	}
	if stop < start {
		return 0, true, fmt.Errorf("%s job stoppedAt %d is before its startedAt %d", d.Status, stop, start)
	}
	return seconds(start, stop), true, nil
}

// lastStopWasPreemption reports whether the current attempt ended in a
// preemption.
func lastStopWasPreemption(d *Detail) bool {
	stop, ok := stoppedAt(d)
	if !ok || d.PreemptionSummary == nil {
		return false
	}
	if a := latestAttempt(d); a == nil || a.StoppedAt == nil {
		return false
	}
	for _, a := range d.PreemptionSummary.RecentPreemptedAttempts {
		if a.StoppedAt != nil && *a.StoppedAt == stop {
			return true
		}
	}
	return false
}

// Cancelled reports whether a FAILED job was cancelled through trainq: the
// submission function terminates a job with a reason that starts with
// contract.CancelReasonPrefix, and Batch reports that reason as the job's
// statusReason. A job terminated any other way (console, AWS CLI, a
// preemption or a timeout) is not.
func Cancelled(d *Detail) bool {
	return d.Status == StatusFailed && strings.HasPrefix(d.StatusReason, contract.CancelReasonPrefix)
}

// Rerouted reports whether a FAILED job was ended by trainq's re-router:
// an old job whose work moved to a job on another instance type, or a
// replacement abandoned because the job it was to replace started first.
// Neither failed, and neither ran: the re-router terminates only RUNNABLE
// jobs, and gives Batch a reason that starts with
// contract.RerouteReasonPrefix, which Batch reports as the job's
// statusReason. The re-router counts the move (metrics.JobsRerouted).
func Rerouted(d *Detail) bool {
	return d.Status == StatusFailed && strings.HasPrefix(d.StatusReason, contract.RerouteReasonPrefix)
}

// Preempted reports whether this event is the one a preemption caused, with
// no state across events:
//   - the job's preemptionSummary lists a preempted attempt, and the latest
//     of those stopped no earlier than anything else in the detail (no attempt
//     stopped or started after it, and the job did not start after it);
//   - and the event is RUNNABLE (the job was requeued), or FAILED with
//     preemptedAttemptCount above preemptionRetriesBeforeTermination (the
//     preemption used up the job's preemption retries, so Batch failed it).
//
// Later events of the same job no longer match: a new attempt starts after
// the preemption, and a job failed for another reason after a requeue has
// fewer preemptions than its retry limit.
func Preempted(d *Detail) bool {
	if d.Status != StatusRunnable && d.Status != StatusFailed {
		return false
	}
	ps := d.PreemptionSummary
	if ps == nil {
		return false
	}
	var last int64
	found := false
	for _, a := range ps.RecentPreemptedAttempts {
		if a.StoppedAt != nil && (!found || *a.StoppedAt > last) {
			last, found = *a.StoppedAt, true
		}
	}
	if !found {
		return false
	}
	for _, a := range d.Attempts {
		if a.StoppedAt != nil && *a.StoppedAt > last {
			return false
		}
		if a.StartedAt != nil && *a.StartedAt > last {
			return false
		}
	}
	if d.StartedAt != nil && *d.StartedAt > last {
		return false
	}
	if d.Status == StatusRunnable {
		return true
	}
	pc := d.PreemptionConfiguration
	return pc != nil && pc.PreemptionRetriesBeforeTermination != nil &&
		ps.PreemptedAttemptCount > *pc.PreemptionRetriesBeforeTermination
}
