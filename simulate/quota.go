package simulate

import (
	"fmt"
	"slices"

	"github.com/trainq/trainq/batchrules"
)

// Quota-management rules, after the AWS Batch API reference
// (QuotaSharePolicy, QuotaShareResourceSharingConfiguration,
// QuotaSharePreemptionConfiguration, QuotaShareCapacityLimit) and user
// guide: quota shares
// (https://docs.aws.amazon.com/batch/latest/userguide/quota-shares.html) and
// preemption (https://docs.aws.amazon.com/batch/latest/userguide/preemption.html).
// What fits a share is package batchrules' rule (R4, R5), the one the
// submission function's instance-type fallback uses.

// quotaView is the capacity of one type as a pass sees it (the pool, what is
// in use, each share's limit and usage), copied so that a preemption plan
// can be tried without touching the engine.
type quotaView struct {
	batchrules.TypeState
}

// candidate is a share's next job that can start now in a pass.
type candidate struct {
	bucket int  // its size bucket in the share's queue
	head   qent // the job
	ok     bool
}

// sync copies type t's state into the view.
func (e *engine) sync(t int) {
	v := &e.view
	v.Pool, v.InUse = e.pool[t], e.used[t]
	for s := range v.Shares {
		v.Shares[s] = batchrules.ShareState{Limit: e.limits[s][t], Used: e.teamUsed[s][t]}
	}
}

// startable finds share s's first job of type t, in queue order, that can
// start now: it fits on idle capacity, or it can preempt — borrowed capacity
// of other shares when it stays within its own quota (R7), lower-priority
// jobs of its own share when in-share preemption is on (R8). With batchrules'
// Room (Idle, Reclaim) and L(p), the instances of the share's running jobs
// below priority p, a job of k instances and priority p can start exactly
// when k ≤ max(Idle, Reclaim) + L(p): freeing its in-share victims adds L(p)
// both to what the share may still hold and to the idle instances, and
// freeing other shares' borrowed instances is what Reclaim counts. Each size
// bucket's head stands for its bucket: the jobs behind it have no higher
// priority, so no larger L(p).
func (e *engine) startable(s, t int) candidate {
	q := &e.waiting[s][t]
	if q.n == 0 {
		return candidate{}
	}
	room := e.view.Room(s).Headroom()
	lmax := 0
	if e.inShare[s] {
		lmax = e.teamUsed[s][t]
	}
	c := candidate{}
	for i, k := range q.sizes {
		if int(k) > room+lmax {
			break
		}
		h := &q.heaps[i]
		if h.len() == 0 {
			continue
		}
		x := h.head()
		if int(k) > room && (lmax == 0 || int(k) > room+e.below[s][t].below(int(e.jobs[x.idx].rank))) {
			continue
		}
		if !c.ok || waitLess(x, c.head) {
			c = candidate{bucket: i, head: x, ok: true}
		}
	}
	return c
}

// entitled reports whether starting k more instances keeps share s within
// its quota of the type in view v: only then may it reclaim borrowed
// capacity (R3, R7).
func entitled(v *quotaView, s, k int) bool {
	return v.Shares[s].Used+k <= v.Shares[s].Capacity
}

// scheduleQuota runs the quota pass for type t, one start at a time:
//  1. quota first (R3): the first share in platform order whose next
//     startable job stays within its quota starts it, reclaiming borrowed
//     capacity by preemption when needed;
//  2. else borrowing, first in, first out (R6): of the shares' next
//     startable jobs (each share's in its queue order), the earliest
//     submitted starts, preempting when allowed.
//
// A share whose next startable job would borrow is not served in step 1, so
// a smaller job behind that job never passes it there. A start without
// preemption never lets a job that could not start before start now (it
// only takes capacity, and what a job of the same share below its priority
// takes, in-share preemption can give back); preempted jobs rejoin their
// queues at once. The pass ends when no share has a startable job.
func (e *engine) scheduleQuota(t int) {
	for steps := 0; e.err == nil && e.quotaStep(t); steps++ {
		if steps > maxPassSteps {
			e.err = fmt.Errorf("simulate: %s: a scheduling pass at t=%d did not settle after %d starts (a simulator bug)", e.types[t], e.now, steps)
		}
	}
}

// maxPassSteps bounds one pass: far more starts than any pool has instances.
const maxPassSteps = 1 << 24

// quotaStep starts one job of type t and reports whether it did.
func (e *engine) quotaStep(t int) bool {
	e.sync(t)
	v := &e.view
	for s := range e.cand {
		e.cand[s] = e.startable(s, t)
		if c := e.cand[s]; c.ok && entitled(v, s, int(e.jobs[c.head.idx].k)) {
			e.launch(s, t, c)
			return true
		}
	}
	best := -1
	for s, c := range e.cand {
		if c.ok && (best < 0 || fifoLess(c.head, e.cand[best].head)) {
			best = s
		}
	}
	if best < 0 {
		return false
	}
	e.launch(best, t, e.cand[best])
	return true
}

// launch starts share s's candidate, preempting the jobs its plan names
// when it does not fit on idle capacity.
func (e *engine) launch(s, t int, c candidate) {
	idx := c.head.idx
	k := int(e.jobs[idx].k)
	var victims []int32
	if e.view.Fit(s, k) != batchrules.FitsIdle {
		var ok bool
		if victims, ok = e.plan(idx); !ok {
			if e.err == nil {
				e.err = fmt.Errorf("simulate: job %q was startable at t=%d but no preemption plan frees %d × %s (a simulator bug)",
					e.jobs[idx].id, e.now, k, e.types[t])
			}
			return
		}
	}
	// Off the queue before the victims rejoin it (which may add a size).
	e.waiting[s][t].pop(c.bucket)
	for _, vi := range victims {
		e.preempt(vi)
	}
	e.start(idx)
}

// plan finds, on a copy of the view, the running jobs whose preemption
// lets waiting job idx start, without changing anything. Candidates are the
// running jobs of other shares that hold borrowed capacity of the type (only
// while idx stays within its own quota, R7) and, with in-share preemption
// on, the running jobs of idx's share with a lower scheduling priority (R8).
// The VictimChooser picks among them one at a time until idx fits (R9). The
// victims are valid until the engine changes.
func (e *engine) plan(idx int32) ([]int32, bool) {
	j := &e.jobs[idx]
	s, k := int(j.share), int(j.k)
	sim := quotaView{batchrules.TypeState{Pool: e.view.Pool, InUse: e.view.InUse, Shares: append(e.sim[:0], e.view.Shares...)}}
	e.sim = sim.Shares
	e.victims = e.victims[:0]
	pre := Preemptor{JobID: j.id, Team: e.teamNames[s], SchedulingPriority: int(j.prio), Instances: k, Now: e.now}
	for sim.Fit(s, k) != batchrules.FitsIdle {
		c := e.candidates(&sim, idx, e.victims)
		if len(c) == 0 {
			return nil, false
		}
		i := e.opts.Victims(pre, c)
		if i < 0 || i >= len(c) {
			e.err = fmt.Errorf("simulate: victim chooser returned %d for %d candidates", i, len(c))
			return nil, false
		}
		vi := e.pick[i]
		e.victims = append(e.victims, vi)
		vj := &e.jobs[vi]
		sim.InUse -= int(vj.k)
		sim.Shares[vj.share].Used -= int(vj.k)
	}
	return e.victims, true
}

// candidates lists the jobs idx may preempt in the simulated view sim,
// leaving out those already chosen. Their job indices are in e.pick, in the
// same order.
func (e *engine) candidates(sim *quotaView, idx int32, chosen []int32) []Victim {
	j := &e.jobs[idx]
	s, t, k := int(j.share), int(j.typ), int(j.k)
	e.scratch = e.scratch[:0]
	e.pick = e.pick[:0]
	add := func(r int, cross bool) {
		for _, ri := range e.running[r][t] {
			rj := &e.jobs[ri]
			if (!cross && rj.prio >= j.prio) || slices.Contains(chosen, ri) {
				continue
			}
			e.scratch = append(e.scratch, Victim{JobID: rj.id, Team: e.teamNames[r], Class: e.classes[rj.class].Name,
				SchedulingPriority: int(rj.prio), Instances: int(rj.k), StartedAt: rj.start, Order: rj.order, CrossShare: cross})
			e.pick = append(e.pick, ri)
		}
	}
	if entitled(sim, s, k) {
		for r := range e.teamNames {
			if r != s && sim.Shares[r].Borrowed() > 0 {
				add(r, true)
			}
		}
	}
	if e.inShare[s] {
		add(s, false)
	}
	return e.scratch
}
