package simulate

import (
	"fmt"
	"slices"

	"github.com/trainq/trainq/batchrules"
)

// Quota-management rules, after the AWS Batch user guide: quota shares
// (https://docs.aws.amazon.com/batch/latest/userguide/quota-shares.html) and
// preemption (https://docs.aws.amazon.com/batch/latest/userguide/preemption.html).
// What fits a share is package batchrules' rule, the one the submission
// function's instance-type fallback uses.

// quotaView is the capacity of one type as a pass sees it (the pool, what is
// in use, each share's limit and usage), copied so that a preemption plan
// can be tried without touching the engine.
type quotaView struct {
	batchrules.TypeState
}

// fits is the quota rule for starting k instances for share s without
// preempting anything: batchrules' FitsIdle (k idle instances that are not
// another reserve share's idle quota, and what s would hold beyond its quota
// stays within its borrow limit).
func (e *engine) fits(v *quotaView, s, k int) bool {
	return v.Fit(s, k) == batchrules.FitsIdle
}

// entitled reports whether starting k instances keeps share s within its
// quota of type t: only then may it reclaim borrowed capacity.
func (e *engine) entitled(v *quotaView, s, k int) bool {
	return v.Shares[s].Used+k <= v.Shares[s].Capacity
}

// fifoLess orders borrowers of different shares: earlier submission first,
// then trace order. QuotaSharePolicy.IdleResourceAssignmentStrategy: "The
// strategy that determines how idle resources are assigned to quota shares
// that are borrowing capacity. Currently, only FIFO is supported."
func fifoLess(a, b qent) bool {
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	return a.order < b.order
}

// scheduleQuota runs the quota pass for type t. Phase 1 walks each share's
// queue and starts the jobs that stay within its quota (reclaiming borrowed
// capacity by cross-share preemption when needed), until a job that would
// borrow and could start now: it and the jobs behind it wait for phase 2. Phase 2 then
// walks every share's remaining jobs in one order — scheduling priority, then
// submit time, so idle capacity goes to borrowers first-in-first-out as the
// FIFO idleResourceAssignmentStrategy says — starting each job that fits,
// preempting when allowed. Phase 2 starts over after a preemption, since
// freed capacity may let a job it skipped fit.
func (e *engine) scheduleQuota(t int) {
	n := len(e.p.Teams)
	if e.view.Shares == nil {
		e.view.Shares = make([]batchrules.ShareState, n)
		e.cur = make([]int, n)
		e.closed = make([]bool, n)
	}
	v := &e.view
	sync := func() {
		v.Pool, v.InUse = e.pool[t], e.used[t]
		for s := range n {
			v.Shares[s] = batchrules.ShareState{Limit: e.limits[s][t], Used: e.teamUsed[s][t]}
		}
	}
	// A preemption requeues its victims, which reorders the queues being
	// walked, so the pass starts over after each one (bounded).
	for restarts := 0; restarts <= 10000 && e.err == nil; restarts++ {
		if !e.quotaPhases(t, v, sync) {
			return
		}
		e.flushRequeue()
	}
}

// quotaPhases runs the two phases once and reports whether it stopped early
// after a preemption.
func (e *engine) quotaPhases(t int, v *quotaView, sync func()) bool {
	n := len(e.p.Teams)
	// Phase 1: jobs that stay within their team's quota, share by share.
	for s := range n {
		sync()
		for _, en := range e.waiting[s][t] {
			if v.Shares[s].Used >= v.Shares[s].Capacity {
				break
			}
			if !e.live(en) {
				continue
			}
			j := &e.jobs[en.idx]
			if !e.entitled(v, s, int(j.k)) {
				// A job that would borrow waits for phase 2, and so do the
				// jobs behind it, if it could start now: by fitting, or by
				// preempting lower-priority work of its own team.
				if e.fits(v, s, int(j.k)) {
					break
				}
				if _, ok := e.plan(en.idx, v); ok {
					break
				}
				continue
			}
			if e.fits(v, s, int(j.k)) {
				e.start(en.idx)
				sync()
				continue
			}
			if e.tryPreempt(en.idx, v) {
				return true
			}
		}
		e.compact(s, t)
	}
	// Phase 2: every share's remaining jobs, merged in queue order.
	sync()
	clear(e.cur)
	clear(e.closed)
	for {
		best := -1
		for s := range n {
			q := e.waiting[s][t]
			for e.cur[s] < len(q) && !e.live(q[e.cur[s]]) {
				e.cur[s]++
			}
			if e.closed[s] || e.cur[s] >= len(q) {
				continue
			}
			if best < 0 || fifoLess(q[e.cur[s]], e.waiting[best][t][e.cur[best]]) {
				best = s
			}
		}
		if best < 0 {
			break
		}
		s := best
		idx := e.waiting[s][t][e.cur[s]].idx
		e.cur[s]++
		j := &e.jobs[idx]
		switch {
		case e.fits(v, s, int(j.k)):
			e.start(idx)
			sync()
		case e.tryPreempt(idx, v):
			return true
		case e.hopeless(v, s, t, idx):
			e.closed[s] = true
		}
	}
	for s := range n {
		e.compact(s, t)
	}
	return false
}

// inShareVictims reports whether share s runs a job of type t with a
// scheduling priority below prio that in-share preemption could stop.
func (e *engine) inShareVictims(s, t int, prio int32) bool {
	if !e.p.Teams[s].PreemptsInShare() {
		return false
	}
	for _, r := range e.running[s][t] {
		if e.jobs[r].prio < prio {
			return true
		}
	}
	return false
}

// hopeless reports whether no job after idx in share s's queue can start in
// this pass: none fits (the share's room is below the smallest waiting job),
// and none can preempt (in-share preemption needs a running job of lower
// priority than idx, cross-share preemption needs borrowed capacity).
func (e *engine) hopeless(v *quotaView, s, t int, idx int32) bool {
	if e.fits(v, s, 1) {
		return false
	}
	if e.inShareVictims(s, t, e.jobs[idx].prio) {
		return false
	}
	if v.Shares[s].Used < v.Shares[s].Capacity {
		for r := range e.p.Teams {
			if r != s && v.Shares[r].Borrowed() > 0 {
				return false
			}
		}
	}
	return true
}

// tryPreempt carries out the preemption plan that lets waiting job idx
// start, if there is one, and starts the job.
func (e *engine) tryPreempt(idx int32, v *quotaView) bool {
	victims, ok := e.plan(idx, v)
	if !ok {
		return false
	}
	for _, vi := range victims {
		e.preempt(vi)
	}
	e.start(idx)
	return true
}

// plan finds, on a copy of the view, the running jobs whose preemption would
// let waiting job idx start, without changing anything. Candidates are the
// running jobs of other shares that hold borrowed capacity of the type (only
// while idx stays within its own quota) and, with in-share preemption on,
// the running jobs of idx's share with a lower scheduling priority. The
// VictimChooser picks among them one at a time until idx fits. The victims
// are valid until the engine changes.
func (e *engine) plan(idx int32, v *quotaView) ([]int32, bool) {
	j := &e.jobs[idx]
	s, t, k := int(j.share), int(j.typ), int(j.k)
	inShare := e.p.Teams[s].PreemptsInShare()
	// Quick bound: all capacity that could be freed is not enough.
	potential := v.Free()
	if e.entitled(v, s, k) {
		for r := range e.p.Teams {
			if r != s && v.Shares[r].Borrowed() > 0 {
				potential += v.Shares[r].Used
			}
		}
	}
	if inShare {
		for _, r := range e.running[s][t] {
			if e.jobs[r].prio < j.prio {
				potential += int(e.jobs[r].k)
			}
		}
	}
	if potential < k || potential == v.Free() {
		return nil, false
	}
	sim := quotaView{batchrules.TypeState{Pool: v.Pool, InUse: v.InUse, Shares: append(e.simShares[:0], v.Shares...)}}
	e.simShares = sim.Shares
	e.victims = e.victims[:0]
	pre := Preemptor{JobID: j.id, Team: e.p.Teams[s].Name, SchedulingPriority: int(j.prio), Instances: k, Now: e.now}
	for !e.fits(&sim, s, k) {
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
			e.scratch = append(e.scratch, Victim{JobID: rj.id, Team: e.p.Teams[r].Name, Class: e.classes[rj.class].Name,
				SchedulingPriority: int(rj.prio), Instances: int(rj.k), StartedAt: rj.start, Order: rj.order, CrossShare: cross})
			e.pick = append(e.pick, ri)
		}
	}
	if e.entitled(sim, s, k) {
		for r := range e.p.Teams {
			if r != s && sim.Shares[r].Borrowed() > 0 {
				add(r, true)
			}
		}
	}
	if e.p.Teams[s].PreemptsInShare() {
		add(s, false)
	}
	return e.scratch
}
