package simulate

import (
	"slices"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/moveplan"
)

// Re-routing (R23, R24): trainq's re-router, not AWS Batch, moves a waiting
// job to another instance type, because Batch cannot change the type inside
// a SageMaker payload. The simulator models the re-router as
// docs/platform.md describes it ("Re-routing and checkpoints"): it runs
// every rerouting.everyMinutes; a RUNNABLE job of a class with reroute that
// has waited reroute.afterSeconds since it last became RUNNABLE, on an
// instance type of reroute.instanceTypes where its team has no room for it,
// moves to the first other listed type where its team has room — room by
// the rule the submission function's fallback and the deployed re-router
// decide by (platform.Headroom, over batchrules.TypeState.Room, the rule
// the simulator's passes start jobs by), at least the job's instances —
// keeping class, team, priority and the trace's submission time (for
// waits); Batch sees a new job, so it queues at the time of the move. A run
// moves at most rerouting.maxMovesPerMinute jobs of all classes, higher
// priority first, then the longest RUNNABLE (the deployed re-router's
// order), and a job moves at most reroute.maxMoves times. Off under FIFO.

// rerouter holds the re-routing queues of one run.
type rerouter struct {
	on       bool
	period   int64 // seconds between runs
	perRun   int   // moves per run
	after    []int64
	targets  [][]int // per class: the reroute instance types, as type indices
	maxMoves []int16

	buckets []rrBucket
	index   map[rrKey]int32
	live    int   // live entries over all buckets
	seq     int64 // the last entry's sequence number
	tickAt  int64 // the next run, valid while live > 0
	armed   bool  // tickAt is set
	runs    int64 // runs so far
	lastRun int64 // when the last run was
	// stuck: the last run found nothing more it could move. Until capacity
	// frees (a stop) or another job becomes due, no run could move one:
	// rooms only shrink as jobs start, and jobs of one rrKey move alike.
	stuck bool
	// everyPeriod (tests only) runs the re-router every period while jobs
	// wait, stuck or not.
	everyPeriod bool
	// moved are the jobs the last run moved, with their entry's sequence.
	moved []rrEnt

	vUsed []int   // a run's view of the instances in use per type…
	vTeam [][]int // …and per share and type, counting its own moves
	rooms [][]int // room per share and type in that view, -1 until asked
	usage batchrules.Usage
}

// rrKey groups waiting jobs that the re-router treats alike: all of one
// class, share, instance type and size move or stay together (where they
// may go depends on nothing else), so only the first of each group in the
// re-router's order needs looking at.
type rrKey struct {
	class, share, typ int16
	k                 int32
}

// rrBucket is the waiting jobs of one rrKey: those not yet due in the
// order they became RUNNABLE (pend, from head), and those due in the
// re-router's order (due, a heap under rrBefore). Entries of jobs that
// started or moved since are stale: they are dropped when they come first,
// or when they outnumber the live ones.
type rrBucket struct {
	key  rrKey
	pend []rrEnt
	head int
	due  []rrEnt
	live int
	dead int64 // the run (rerouter.runs) that found its jobs unable to move
}

type rrEnt struct {
	idx   int32
	prio  int32
	seq   int64
	since int64
}

func newRerouter(e *engine) rerouter {
	r := rerouter{index: map[rrKey]int32{}}
	if e.policy != PolicyPlatform {
		return r
	}
	r.after = make([]int64, len(e.classes))
	r.targets = make([][]int, len(e.classes))
	r.maxMoves = make([]int16, len(e.classes))
	for i, c := range e.classes {
		after, on := c.ReroutesAfter()
		if !on {
			continue
		}
		r.on = true
		r.after[i] = int64(after)
		r.maxMoves[i] = int16(c.Reroute.MaxMoves)
		for _, it := range c.Reroute.InstanceTypes {
			if t, ok := e.typeIdx[it]; ok {
				r.targets[i] = append(r.targets[i], t)
			}
		}
	}
	if r.on {
		r.period = int64(max(e.p.Rerouting.EveryMinutes, 1)) * 60
		r.perRun = max(e.p.Rerouting.MaxMovesPerMinute, 1)
		r.vUsed = make([]int, len(e.types))
		r.vTeam = grid(len(e.teamNames), len(e.types))
		r.rooms = grid(len(e.teamNames), len(e.types))
		r.usage = batchrules.Usage{PerShare: true, ByType: map[string]float64{}, ByShare: map[string]map[string]float64{}}
		for _, name := range e.teamNames {
			r.usage.ByShare[name] = map[string]float64{}
		}
	}
	return r
}

// nextTick is the time of the re-router's next run, when it has jobs to
// look at.
func (r *rerouter) nextTick() (int64, bool) { return r.tickAt, r.on && r.live > 0 && r.armed }

// alignUp is the first run at or after t: runs happen at whole multiples of
// the period.
func (r *rerouter) alignUp(t int64) int64 {
	return (t + r.period - 1) / r.period * r.period
}

// add puts a job that just became RUNNABLE in its re-routing queue, when it
// may ever move: its class reroutes, its type is one of the class's, and it
// has moves left.
func (r *rerouter) add(e *engine, idx int32) {
	if !r.on {
		return
	}
	j := &e.jobs[idx]
	c := int(j.class)
	if r.after[c] == 0 || j.moves >= r.maxMoves[c] || !slices.Contains(r.targets[c], int(j.typ)) {
		return
	}
	key := rrKey{class: j.class, share: j.share, typ: j.typ, k: j.k}
	bi, ok := r.index[key]
	if !ok {
		bi = int32(len(r.buckets))
		r.buckets = append(r.buckets, rrBucket{key: key})
		r.index[key] = bi
	}
	r.seq++
	b := &r.buckets[bi]
	b.pend = append(b.pend, rrEnt{idx: idx, prio: j.prio, seq: r.seq, since: e.now})
	b.live++
	r.live++
	j.rrSeq, j.rrBucket = r.seq, bi
	if eligible := r.alignUp(e.now + r.after[c]); !r.armed || r.tickAt < e.now || eligible < r.tickAt {
		r.tickAt, r.armed = eligible, true
	}
}

// leave notes that a job left RUNNABLE (it starts or moves): its entry is
// stale from now on.
func (r *rerouter) leave(j *job, jobs []job) {
	if j.rrBucket < 0 {
		return
	}
	b := &r.buckets[j.rrBucket]
	b.live--
	r.live--
	j.rrBucket = -1
	j.rrSeq = 0
	if b.entries() > 2*b.live+32 {
		b.compact(jobs)
	}
}

func (b *rrBucket) entries() int { return len(b.pend) - b.head + len(b.due) }

func (x rrEnt) live(jobs []job) bool {
	j := &jobs[x.idx]
	return j.rrSeq == x.seq && j.state == stWaiting
}

// compact drops the bucket's stale entries, so that a bucket holds about
// as many entries as live jobs whatever the order they leave in.
func (b *rrBucket) compact(jobs []job) {
	n := 0
	for _, x := range b.pend[b.head:] {
		if x.live(jobs) {
			b.pend[n] = x
			n++
		}
	}
	b.pend, b.head = b.pend[:n], 0
	n = 0
	for _, x := range b.due {
		if x.live(jobs) {
			b.due[n] = x
			n++
		}
	}
	b.due = b.due[:n]
	for i := len(b.due)/2 - 1; i >= 0; i-- {
		b.down(i)
	}
}

// promote moves the entries due at now (RUNNABLE since at most now −
// after) from pend to due, and returns when the next one is due (-1: none
// pending).
func (b *rrBucket) promote(jobs []job, now, after int64) int64 {
	for b.head < len(b.pend) {
		x := b.pend[b.head]
		if !x.live(jobs) {
			b.head++
			continue
		}
		if x.since+after > now {
			return x.since + after
		}
		b.head++
		b.due = append(b.due, x)
		b.up(len(b.due) - 1)
	}
	b.pend, b.head = b.pend[:0], 0
	return -1
}

// first drops stale entries from the top of due and returns the first due
// job in the re-router's order.
func (b *rrBucket) first(jobs []job) (rrEnt, bool) {
	for len(b.due) > 0 {
		if x := b.due[0]; x.live(jobs) {
			return x, true
		}
		n := len(b.due) - 1
		b.due[0] = b.due[n]
		b.due = b.due[:n]
		if n > 0 {
			b.down(0)
		}
	}
	return rrEnt{}, false
}

func (b *rrBucket) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !rrBefore(b.due[i], b.due[p]) {
			return
		}
		b.due[i], b.due[p] = b.due[p], b.due[i]
		i = p
	}
}

func (b *rrBucket) down(i int) {
	for n := len(b.due); ; {
		m, l := i, 2*i+1
		if l < n && rrBefore(b.due[l], b.due[m]) {
			m = l
		}
		if l+1 < n && rrBefore(b.due[l+1], b.due[m]) {
			m = l + 1
		}
		if m == i {
			return
		}
		b.due[i], b.due[m] = b.due[m], b.due[i]
		i = m
	}
}

// room is the largest job share s could start on type t in the run's view
// (platform.Headroom: batchrules' Room in quota mode, none for a team
// without a quota of the type; the pool's idle instances in fair share).
func (e *engine) room(s, t int) int {
	r := &e.rr
	if x := r.rooms[s][t]; x >= 0 {
		return x
	}
	x := e.computeRoom(s, t)
	r.rooms[s][t] = x
	return x
}

// forget drops the cached rooms of type t: the run's view of it changed.
func (r *rerouter) forget(t int) {
	for s := range r.rooms {
		r.rooms[s][t] = -1
	}
}

// computeRoom asks platform.Headroom, the rule the submission function's
// fallback and the deployed re-router decide by, with the run's view of
// type t as the snapshot's usage.
func (e *engine) computeRoom(s, t int) int {
	r := &e.rr
	it := e.types[t]
	r.usage.ByType[it] = float64(r.vUsed[t])
	for x, name := range e.teamNames {
		r.usage.ByShare[name][it] = float64(r.vTeam[x][t])
	}
	return e.p.Headroom(e.p.Teams[s], it, &r.usage)
}

// reroute is one run of the re-router at e.now: while moves are left in
// the run, the first job that may move (R23) moves, in the order the
// deployed re-router walks them (the order Batch starts jobs in): higher
// scheduling priority first, then the longest RUNNABLE, then the order
// they became RUNNABLE in. The run's view of capacity counts the jobs it
// moved as if they held their instances on the new type, so that two jobs
// never move into room for one.
func (e *engine) reroute() {
	r := &e.rr
	r.runs++
	copy(r.vUsed, e.used)
	for s := range r.vTeam {
		copy(r.vTeam[s], e.teamUsed[s])
	}
	for t := range e.types {
		r.forget(t)
	}
	next := int64(-1)
	for bi := range r.buckets {
		b := &r.buckets[bi]
		if b.live == 0 {
			continue
		}
		if due := b.promote(e.jobs, e.now, r.after[b.key.class]); due >= 0 && (next < 0 || due < next) {
			next = due
		}
	}
	r.lastRun = e.now
	r.stuck = false
	r.moved = r.moved[:0]
	for moves := 0; ; moves++ {
		if moves == r.perRun {
			// The bound stopped the run: the next one goes on.
			r.tickAt, r.armed = e.now+r.period, true
			return
		}
		best, bestTo := -1, -1
		var bestEnt rrEnt
		for bi := range r.buckets {
			b := &r.buckets[bi]
			if b.live == 0 || b.dead == r.runs {
				continue
			}
			x, ok := b.first(e.jobs)
			if !ok || best >= 0 && !rrBefore(x, bestEnt) {
				continue
			}
			to := e.rerouteTarget(x, int(b.key.class), int(b.key.share), int(b.key.typ), int(b.key.k))
			if to < 0 {
				// Rooms only shrink during a run: none of these jobs moves
				// in it.
				b.dead = r.runs
				continue
			}
			best, bestTo, bestEnt = bi, to, x
		}
		if best < 0 {
			break
		}
		e.move(bestEnt.idx, bestTo)
		j := &e.jobs[bestEnt.idx]
		r.moved = append(r.moved, rrEnt{idx: bestEnt.idx, seq: j.rrSeq})
		r.vUsed[bestTo] += int(j.k)
		r.vTeam[j.share][bestTo] += int(j.k)
		r.forget(bestTo)
	}
	// Nothing more can move now: the next run is when a job becomes due,
	// or when capacity frees (changed).
	if r.everyPeriod {
		r.tickAt, r.armed = e.now+r.period, true
		return
	}
	r.stuck = true
	r.armed = next >= 0
	if r.armed {
		r.tickAt = max(e.now+r.period, r.alignUp(next))
	}
}

// placed is called after the pass that follows a run. A job the run moved
// that did not start (fair share's reservation may hold it back) no longer
// counts against its new type's room at the next run, so the next run may
// move another: the run was not stuck.
func (r *rerouter) placed(e *engine) {
	if !r.stuck {
		return
	}
	for _, x := range r.moved {
		if j := &e.jobs[x.idx]; j.state == stWaiting && (x.seq == 0 || j.rrSeq == x.seq) {
			r.stuck = false
			r.tickAt, r.armed = e.now+r.period, true
			return
		}
	}
}

// changed notes that capacity in use changed so that a job the last run
// could not move may move at the next one: instances were freed, or (fair
// share, where a job may wait with room because of the compute
// reservation) any start or stop.
func (r *rerouter) changed(now int64) {
	if !r.on || !r.stuck {
		return
	}
	r.stuck = false
	t := r.alignUp(now)
	if t <= r.lastRun {
		t = r.lastRun + r.period
	}
	if !r.armed || t < r.tickAt {
		r.tickAt, r.armed = t, true
	}
}

// rrBefore reports whether entry x comes before entry y in the
// re-router's order (moveplan.Compare: higher scheduling priority, then
// longer RUNNABLE), then the order they became RUNNABLE in.
func rrBefore(x, y rrEnt) bool {
	if c := moveplan.Compare(int(x.prio), x.since, int(y.prio), y.since); c != 0 {
		return c < 0
	}
	return x.seq < y.seq
}

// rerouteTarget is where the waiting job x of class c, share s and k
// instances on type t moves (R23), or -1: the deployed re-router's rule
// (moveplan.Decide) with the run's view of room — only when its team has
// no room for it on t, the first other of the class's instance types where
// it has room.
func (e *engine) rerouteTarget(x rrEnt, c, s, t, k int) int {
	j := moveplan.Job{Class: &e.classes[c], Team: e.p.Teams[s], Priority: int(x.prio), InstanceType: e.types[t],
		Instances: k, Moves: int(e.jobs[x.idx].moves), Since: x.since * 1000}
	v, to := moveplan.Decide(&j, e.now*1000, func(it string) int {
		if ti, ok := e.typeIdx[it]; ok {
			return e.room(s, ti)
		}
		return 0 // not in the pool
	})
	if v != moveplan.Moves {
		return -1
	}
	return e.typeIdx[to]
}

// move takes waiting job idx off its queue and submits it again on type
// to: same class, team and priority, queued at the time of the move, its
// wait still counted from the trace's submission.
func (e *engine) move(idx int32, to int) {
	j := &e.jobs[idx]
	s, from := int(j.share), int(j.typ)
	e.rr.leave(j, e.jobs)
	e.waiting[s][from].remove(j.k, j.qpos)
	e.waitN[s]--
	e.stats.waitingDelta(j, -1)
	e.dirty[from] = true
	j.typ = int16(to)
	j.moves++
	j.qsubmit = e.now
	e.stats.moved(j, from, to)
	e.observeFrom(EventMove, j, "", e.types[from])
	e.enqueue(idx)
}

// settings are the re-routing and checkpoint settings of the run.
func (e *engine) settings() Settings {
	s := Settings{Classes: []ClassSettings{}}
	if e.rr.on {
		s.Rerouting = &RerouteRun{EveryMinutes: int(e.rr.period / 60), MaxMovesPerMinute: e.rr.perRun}
	}
	for i, c := range e.classes {
		cs := ClassSettings{Name: c.Name, CheckpointSeconds: e.ckpt[i], CheckpointOnStop: e.ckptStop[i]}
		if e.rr.on && c.Reroute != nil {
			r := *c.Reroute
			r.InstanceTypes = slices.Clone(r.InstanceTypes)
			cs.Reroute = &r
		}
		s.Classes = append(s.Classes, cs)
	}
	return s
}
