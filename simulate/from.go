package simulate

import (
	"fmt"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

// Running from a queue's present state instead of an empty platform: what a
// start estimate simulates, many times over, with runtimes and future
// arrivals drawn from the past.

// Placed is a job that already holds its instances when the run begins.
type Placed struct {
	// Job is the job; Job.Duration is the work it has left (seconds), and
	// Job.Submit is ignored.
	Job trace.Job
	// Elapsed is how long its current attempt has run. The attempt times
	// out when it reaches the class's maxRuntimeSeconds (R12), that is
	// after maxRuntimeSeconds − Elapsed more seconds; a job placed but not
	// yet running (SCHEDULED) has Elapsed 0.
	Elapsed int64
}

// From is the state a run begins in, at simulated time 0.
type From struct {
	// Placed jobs hold their instances at time 0, whatever the scheduling
	// rules would decide for them now (Batch placed them earlier). Later
	// they can be preempted like any running job.
	Placed []Placed
	// Waiting jobs are in the queue at time 0, in queue order: their Submit
	// (at most 0; −age) is their place among jobs of the same priority
	// (R11) and among borrowers of different shares (R6), and ties keep
	// the slice's order.
	Waiting []trace.Job
}

// RunFrom runs p from the state from at time 0, then replays src (jobs
// submitted at 0 or later, in submit order), as Run does. A placed or
// waiting job the platform does not know (class, team, instance type) is an
// error naming it.
func RunFrom(p *platform.Platform, from From, src Source, opts Options) (*Result, error) {
	if opts.Policy == "" {
		opts.Policy = PolicyPlatform
	}
	if opts.Policy != PolicyPlatform {
		return nil, fmt.Errorf("simulate: RunFrom: policy: got %q, want platform (a present state is the platform's)", opts.Policy)
	}
	if opts.Victims == nil {
		opts.Victims = DefaultVictims
	}
	e := newEngine(p, opts)
	e.stats.begin(0)
	e.now, e.fair.last, e.begun = 0, 0, true
	for _, pj := range from.Placed {
		if err := e.place(pj); err != nil {
			return nil, fmt.Errorf("placed job %q: %w", pj.Job.ID, err)
		}
	}
	for _, w := range from.Waiting {
		if w.Submit > 0 {
			return nil, fmt.Errorf("waiting job %q: submit: got %d, want at most 0 (its age, negated)", w.ID, w.Submit)
		}
		if err := e.submit(w); err != nil {
			return nil, fmt.Errorf("waiting job %q: %w", w.ID, err)
		}
	}
	e.schedule()
	if e.err != nil {
		return nil, e.err
	}
	if err := e.loop(src); err != nil {
		return nil, err
	}
	return e.stats.result(e), nil
}

// place starts job pj now, without a scheduling decision, its attempt
// ending when its work is done or when its class's limit is reached
// counting the Elapsed seconds it already ran. A job that can never fit the
// platform fails, as it would have on submission (R20).
func (e *engine) place(pj Placed) error {
	tj := pj.Job
	tj.Submit = e.now
	idx := int32(len(e.jobs))
	if n := len(e.free); n > 0 {
		idx = e.free[n-1]
	}
	if err := e.submit(tj); err != nil {
		return err
	}
	j := &e.jobs[idx]
	if j.state != stWaiting || j.id != tj.ID {
		return nil // failed at once: it never fits
	}
	e.waiting[j.share][j.typ].remove(j.k, j.qpos)
	e.start(idx)
	left := max(1, int64(e.classes[j.class].MaxRuntimeSeconds)-max(0, pj.Elapsed))
	if j.remaining > left {
		e.ends.remove(idx)
		j.end, j.timesOut = e.now+left, true
		e.ends.push(idx)
	}
	return nil
}
