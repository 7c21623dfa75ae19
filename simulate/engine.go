package simulate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

// Policy selects what a run simulates.
type Policy string

const (
	// PolicyPlatform simulates the platform's own scheduling: quota shares or
	// fair share, as its scheduling.mode says.
	PolicyPlatform Policy = "platform"
	// PolicyFIFO simulates one strict first-in-first-out queue over the same
	// pools: no shares, no priorities, no preemption, and a job that does not
	// fit blocks every job behind it (head-of-line blocking).
	PolicyFIFO Policy = "fifo"
)

// Source yields trace jobs in submit order and io.EOF after the last one.
// *trace.Reader is a Source.
type Source interface {
	Next() (trace.Job, error)
}

// SliceSource is a Source over jobs held in memory.
type SliceSource struct {
	Jobs []trace.Job
	i    int
}

// Next returns the next job or io.EOF.
func (s *SliceSource) Next() (trace.Job, error) {
	if s.i >= len(s.Jobs) {
		return trace.Job{}, io.EOF
	}
	s.i++
	return s.Jobs[s.i-1], nil
}

// Options tune a run. The zero value simulates the platform policy with the
// default victim rule.
type Options struct {
	// Policy is what to simulate. Default: PolicyPlatform.
	Policy Policy
	// Victims chooses which running job to preempt. Default: DefaultVictims.
	Victims VictimChooser
	// Progress, when set, is called with the number of jobs read so far every
	// 4096 jobs and once at the end.
	Progress func(jobsRead int)
	// Observer, when set, sees every start, preemption and end; tests use it
	// to check invariants.
	Observer Observer
}

// Observer sees each state change of a run as it happens, with a view of the
// capacity in use right after it. The State is the engine's own: read it
// during Observe, never keep or modify it.
type Observer interface {
	Observe(e Event, s *State)
}

// EventKind is what happened to a job.
type EventKind uint8

// Event kinds.
const (
	// EventStart: an attempt starts.
	EventStart EventKind = iota + 1
	// EventPreempt: an attempt ends because it was preempted.
	EventPreempt
	// EventComplete: an attempt ends because the job completed.
	EventComplete
	// EventFail: the job fails (after its last attempt ended, or without
	// any attempt when it can never fit).
	EventFail
	// EventTimeout: an attempt ends because it ran the class's maximum
	// runtime; an EventStart (retry) or EventFail follows.
	EventTimeout
)

// Event is one change of a job's state at simulated time At.
type Event struct {
	Kind         EventKind
	At           int64
	JobID        string
	Team         string
	Class        string
	InstanceType string
	Instances    int
	Priority     int
	// Submit is when the job was submitted (its place in the queue).
	Submit int64
	// Reason says why a job failed.
	Reason string
}

// state of a job.
const (
	stWaiting uint8 = iota + 1
	stRunning
	stDone
)

type job struct {
	id         string
	submit     int64
	duration   int64
	order      int64 // submission order, the last tie-break
	start      int64
	runTotal   int64
	prio       int32 // AWS Batch scheduling priority
	k          int32 // instances
	typ        int16
	share      int16
	class      int16
	attempts   int16 // attempts that ended in a timeout
	preempts   int32
	epoch      int32  // bumps when a running attempt is cut short
	runIdx     int32  // position in running[share][typ]
	qgen       uint32 // bumps on every enqueue
	state      uint8
	timeoutEnd bool
}

// qent is a queue entry. It carries the job's ordering key, so that a queue
// stays sorted while entries of jobs that left it wait to be compacted away;
// gen tells a live entry from such a stale one.
type qent struct {
	submit int64
	order  int64
	prio   int32
	idx    int32
	gen    uint32
}

// ending is a scheduled end of a running attempt.
type ending struct {
	at    int64
	job   int32
	epoch int32
}

// endHeap is a binary min-heap of endings by (at, job), written out so
// that pushing does not allocate.
type endHeap []ending

func (h endHeap) less(a, b int) bool {
	if h[a].at != h[b].at {
		return h[a].at < h[b].at
	}
	return h[a].job < h[b].job
}

func (h *endHeap) push(x ending) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *endHeap) pop() ending {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && s.less(l, m) {
			m = l
		}
		if l+1 < n && s.less(l+1, m) {
			m = l + 1
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// State is the capacity in use at one moment, as an Observer sees it.
type State struct {
	// Types are the pool's instance types, in platform order.
	Types []string
	// Pool is the capacity of each type.
	Pool []int
	// Used is the instances in use per type.
	Used []int
	// Teams are the team names, in platform order.
	Teams []string
	// TeamUsed is the instances in use per team and type.
	TeamUsed [][]int
}

// engine holds one run.
type engine struct {
	p      *platform.Platform
	opts   Options
	policy Policy
	mode   platform.Mode

	types   []string
	typeIdx map[string]int
	teamIdx map[string]int
	classIx map[string]int
	classes []platform.Class

	pool     []int                // capacity per type
	used     []int                // in use per type
	limits   [][]batchrules.Limit // [share][type]
	maxHeld  [][]int              // [share][type]: the most a share may ever hold
	teamUsed [][]int              // [share][type]
	running  [][][]int32          // [share][type] → jobs
	// waiting[share][type] is ordered by waitLess; FIFO uses waiting[0][0]
	// for every job.
	waiting [][][]qent
	dirty   []bool // per type: capacity or queue changed since the last pass

	jobs  []job
	free  []int32
	ends  endHeap
	now   int64
	order int64

	fair fairState

	stats     *collector
	scratch   []Victim
	pick      []int32
	requeue   []int32 // preempted in this pass, to enqueue after it
	left      [][]int // per share and type: started jobs still in the queue
	waitN     []int   // waiting jobs per share
	runN      []int   // running instances per share
	view      quotaView
	simShares []batchrules.ShareState
	victims   []int32
	cur       []int
	closed    []bool
	err       error
}

// Run replays src against p and returns what happened. It reads src once, in
// order, holding only waiting and running jobs. An unknown class, team or
// instance type in a row is an error naming the row's line.
func Run(p *platform.Platform, src Source, opts Options) (*Result, error) {
	if opts.Policy == "" {
		opts.Policy = PolicyPlatform
	}
	if opts.Policy != PolicyPlatform && opts.Policy != PolicyFIFO {
		return nil, fmt.Errorf("simulate: policy: got %q, want platform or fifo", opts.Policy)
	}
	if opts.Victims == nil {
		opts.Victims = DefaultVictims
	}
	e := newEngine(p, opts)
	if err := e.loop(src); err != nil {
		return nil, err
	}
	return e.stats.result(e), nil
}

func newEngine(p *platform.Platform, opts Options) *engine {
	e := &engine{p: p, opts: opts, policy: opts.Policy, mode: p.Scheduling.Mode,
		typeIdx: map[string]int{}, teamIdx: map[string]int{}, classIx: map[string]int{}}
	e.types = p.InstanceTypes()
	for i, t := range e.types {
		e.typeIdx[t] = i
		e.pool = append(e.pool, p.PoolInstances(t))
	}
	e.used = make([]int, len(e.types))
	e.dirty = make([]bool, len(e.types))
	e.classes = p.Classes
	for i, c := range p.Classes {
		e.classIx[c.Name] = i
	}
	nShares := len(p.Teams)
	shares := p.QuotaShares()
	for i, t := range p.Teams {
		e.teamIdx[t.Name] = i
		l := make([]batchrules.Limit, len(e.types))
		for ti, it := range e.types {
			l[ti] = shares[i].Limit(it)
		}
		e.limits = append(e.limits, l)
	}
	e.maxHeld = grid(nShares, len(e.types))
	for ti := range e.types {
		st := batchrules.TypeState{Pool: e.pool[ti], Shares: make([]batchrules.ShareState, nShares)}
		for s := range nShares {
			st.Shares[s].Limit = e.limits[s][ti]
		}
		for s := range nShares {
			e.maxHeld[s][ti] = st.MaxHeld(s)
		}
	}
	e.teamUsed = grid(nShares, len(e.types))
	e.left = grid(nShares, len(e.types))
	e.running = make([][][]int32, nShares)
	e.waiting = make([][][]qent, nShares)
	for s := range nShares {
		e.running[s] = make([][]int32, len(e.types))
		e.waiting[s] = make([][]qent, len(e.types))
	}
	e.waitN = make([]int, nShares)
	e.runN = make([]int, nShares)
	e.fair = newFairState(p, nShares)
	e.stats = newCollector(p, e.types)
	return e
}

func grid(a, b int) [][]int {
	g := make([][]int, a)
	for i := range g {
		g[i] = make([]int, b)
	}
	return g
}

func (e *engine) loop(src Source) error {
	next, err := src.Next()
	more := err == nil
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	read := 0
	first := true
	for more || len(e.ends) > 0 {
		t := int64(math.MaxInt64)
		if more {
			t = next.Submit
		}
		if len(e.ends) > 0 && e.ends[0].at < t {
			t = e.ends[0].at
		}
		if first {
			e.stats.begin(t)
			e.now, e.fair.last = t, t
			first = false
		}
		e.advance(t)
		for len(e.ends) > 0 && e.ends[0].at == t {
			en := e.ends.pop()
			if j := &e.jobs[en.job]; j.state == stRunning && j.epoch == en.epoch {
				e.end(en.job)
			}
		}
		for more && next.Submit == t {
			if err := e.submit(next); err != nil {
				return err
			}
			read++
			if e.opts.Progress != nil && read%4096 == 0 {
				e.opts.Progress(read)
			}
			next, err = src.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					return err
				}
				more = false
			} else if next.Submit < t {
				return fmt.Errorf("line %d: column submit_s: got %d, want at least %d (rows sorted by submit_s)", next.Line, next.Submit, t)
			}
		}
		e.schedule()
		if e.err != nil {
			return e.err
		}
	}
	e.failStranded()
	if e.err != nil {
		return e.err
	}
	if e.opts.Progress != nil {
		e.opts.Progress(read)
	}
	return nil
}

// failStranded reports jobs still waiting when nothing runs and nothing
// more arrives. Under the modelled rules a job that passed neverFits always
// starts once the pool drains, so any is a bug in the simulator.
func (e *engine) failStranded() {
	n := 0
	for s := range e.waiting {
		for t := range e.waiting[s] {
			for _, en := range e.waiting[s][t] {
				if e.live(en) {
					n++
				}
			}
		}
	}
	if n > 0 && e.err == nil {
		e.err = fmt.Errorf("simulate: %d jobs still waiting after the last event with nothing running (a simulator bug)", n)
	}
}

// advance moves simulated time to t, accumulating usage and series.
func (e *engine) advance(t int64) {
	if t < e.now {
		return
	}
	e.stats.advance(e, t)
	if e.mode == platform.ModeFairShare && e.policy == PolicyPlatform {
		e.fair.advance(e, t)
	}
	e.now = t
}

func (e *engine) submit(tj trace.Job) error {
	where := func(col, val, allowed string) error {
		return &trace.LineError{Line: tj.Line, Column: col, Value: val, Allowed: allowed}
	}
	ti, ok := e.typeIdx[tj.InstanceType]
	if !ok {
		return where(trace.ColInstanceType, tj.InstanceType, "an instance type of the pools ("+strings.Join(e.types, ", ")+")")
	}
	si, ok := e.teamIdx[tj.Team]
	if !ok {
		return where(trace.ColTeam, tj.Team, "a team of the platform ("+strings.Join(e.p.TeamNames(), ", ")+")")
	}
	ci, ok := e.classIx[tj.Class]
	if !ok {
		return where(trace.ColClass, tj.Class, "a class of the platform ("+strings.Join(e.p.ClassNames(), ", ")+")")
	}
	prio := tj.Priority
	if prio == trace.NoPriority {
		prio = platform.DefaultRequestPriority
	}
	var idx int32
	if n := len(e.free); n > 0 {
		idx = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		e.jobs = append(e.jobs, job{})
		idx = int32(len(e.jobs) - 1)
	}
	j := &e.jobs[idx]
	epoch, qgen := j.epoch+1, j.qgen
	*j = job{qgen: qgen, id: tj.ID, submit: tj.Submit, duration: tj.Duration, order: e.order,
		prio: int32(e.classes[ci].SchedulingPriority(prio)), k: int32(tj.Instances),
		typ: int16(ti), share: int16(si), class: int16(ci), epoch: epoch, state: stWaiting}
	e.order++
	e.stats.submitted(j)
	if reason := e.neverFits(j); reason != "" {
		e.fail(idx, reason)
		return nil
	}
	e.enqueue(idx)
	return nil
}

// neverFits explains why a job can never start under this run's rules, or
// returns "".
func (e *engine) neverFits(j *job) string {
	t, k := int(j.typ), int(j.k)
	if k > e.pool[t] {
		return fmt.Sprintf("needs %d × %s, the pool has %d", k, e.types[t], e.pool[t])
	}
	if e.policy == PolicyFIFO || e.mode != platform.ModeQuota {
		return ""
	}
	if m := e.maxHeld[j.share][t]; k > m {
		return fmt.Sprintf("needs %d × %s, team %s can use at most %d", k, e.types[t], e.p.Teams[j.share].Name, m)
	}
	return ""
}

// waitLess orders waiting jobs: higher scheduling priority first, then
// earlier submission, then submission order (FIFO ignores priority).
func (e *engine) waitLess(a, b qent) bool {
	if e.policy != PolicyFIFO && a.prio != b.prio {
		return a.prio > b.prio
	}
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	return a.order < b.order
}

// live reports whether a queue entry is still a waiting job.
func (e *engine) live(q qent) bool {
	j := &e.jobs[q.idx]
	return j.state == stWaiting && j.qgen == q.gen
}

func (e *engine) queueOf(j *job) *[]qent {
	if e.policy == PolicyFIFO {
		return &e.waiting[0][0]
	}
	return &e.waiting[j.share][j.typ]
}

func (e *engine) enqueue(idx int32) {
	j := &e.jobs[idx]
	j.state = stWaiting
	j.qgen++
	en := qent{submit: j.submit, order: j.order, prio: j.prio, idx: idx, gen: j.qgen}
	q := e.queueOf(j)
	i, _ := slices.BinarySearchFunc(*q, en, func(x, target qent) int {
		if e.waitLess(x, target) {
			return -1
		}
		return 1
	})
	*q = slices.Insert(*q, i, en)
	e.dirty[j.typ] = true
	e.waitN[j.share]++
	e.stats.waitingDelta(j, +1)
}

// start runs a waiting job now. The caller removes it from its queue.
func (e *engine) start(idx int32) {
	j := &e.jobs[idx]
	s, t := int(j.share), int(j.typ)
	j.state = stRunning
	j.start = e.now
	e.used[t] += int(j.k)
	e.teamUsed[s][t] += int(j.k)
	e.waitN[s]--
	e.runN[s] += int(j.k)
	e.left[s][t]++
	j.runIdx = int32(len(e.running[s][t]))
	e.running[s][t] = append(e.running[s][t], idx)
	run, timeout := attemptSeconds(e.classes[j.class], j.duration)
	j.timeoutEnd = timeout
	e.ends.push(ending{at: e.now + run, job: idx, epoch: j.epoch})
	e.stats.waitingDelta(j, -1)
	e.observe(EventStart, j, "")
}

// stop takes a running job off its instances.
func (e *engine) stop(idx int32) {
	j := &e.jobs[idx]
	s, t := int(j.share), int(j.typ)
	e.used[t] -= int(j.k)
	e.teamUsed[s][t] -= int(j.k)
	e.runN[s] -= int(j.k)
	r := e.running[s][t]
	last := r[len(r)-1]
	r[j.runIdx] = last
	e.jobs[last].runIdx = j.runIdx
	e.running[s][t] = r[:len(r)-1]
	j.runTotal += e.now - j.start
	e.stats.ran(e, j, e.now-j.start)
	j.epoch++
	e.dirty[t] = true
	if e.mode == platform.ModeFairShare && e.policy == PolicyPlatform && !shareActive(e.runN[s]) {
		// The share is no longer active: the reservation changed everywhere.
		for i := range e.dirty {
			e.dirty[i] = true
		}
	}
}

// end finishes a running attempt: a success, or a timeout that is retried
// while the class allows attempts.
func (e *engine) end(idx int32) {
	e.stop(idx)
	j := &e.jobs[idx]
	if !j.timeoutEnd {
		e.observe(EventComplete, j, "")
		e.stats.completed(e, j)
		e.release(idx)
		return
	}
	j.attempts++
	e.observe(EventTimeout, j, "")
	c := e.classes[j.class]
	if !attemptsLeft(c, int(j.attempts)) {
		e.fail(idx, fmt.Sprintf("timed out after %d s in each of %d attempts", c.MaxRuntimeSeconds, j.attempts))
		return
	}
	e.enqueue(idx)
}

// preempt stops a running job for another one and requeues it at its
// original place, or fails it when its class's preemption retries are spent.
func (e *engine) preempt(idx int32) {
	e.stop(idx)
	j := &e.jobs[idx]
	j.preempts++
	e.stats.preempted(j)
	e.observe(EventPreempt, j, "")
	if c := e.classes[j.class]; !preemptionRetriesLeft(c, int(j.preempts)) {
		e.fail(idx, fmt.Sprintf("preempted %d times, more than the class's %d preemption retries", j.preempts, *c.PreemptionRetries))
		return
	}
	// A pass may be walking the queue; the job rejoins it after the pass.
	e.requeue = append(e.requeue, idx)
}

func (e *engine) fail(idx int32, reason string) {
	j := &e.jobs[idx]
	e.observe(EventFail, j, reason)
	e.stats.failed(e, j, reason)
	e.release(idx)
}

func (e *engine) release(idx int32) {
	j := &e.jobs[idx]
	j.state = stDone
	j.id = ""
	e.free = append(e.free, idx)
}

func (e *engine) observe(kind EventKind, j *job, reason string) {
	if e.opts.Observer == nil {
		return
	}
	e.opts.Observer.Observe(Event{Kind: kind, At: e.now, JobID: j.id, Team: e.p.Teams[j.share].Name,
		Class: e.classes[j.class].Name, InstanceType: e.types[j.typ], Instances: int(j.k),
		Priority: int(j.prio), Submit: j.submit, Reason: reason},
		&State{Types: e.types, Pool: e.pool, Used: e.used, Teams: e.p.TeamNames(), TeamUsed: e.teamUsed})
}

// schedule runs one scheduling pass for every instance type whose capacity or
// queue changed.
func (e *engine) schedule() {
	if e.policy == PolicyFIFO {
		e.scheduleFIFO()
		return
	}
	for again := true; again; {
		again = false
		for t := range e.types {
			if !e.dirty[t] {
				continue
			}
			e.dirty[t] = false
			switch e.mode {
			case platform.ModeFairShare:
				e.scheduleFair(t)
			default:
				e.scheduleQuota(t)
			}
			e.flushRequeue()
		}
		for _, d := range e.dirty {
			again = again || d
		}
	}
}

// flushRequeue puts the jobs preempted in a pass back in their queues.
func (e *engine) flushRequeue() {
	for _, idx := range e.requeue {
		e.enqueue(idx)
	}
	e.requeue = e.requeue[:0]
}

// compact drops stale entries from the queue of share s and type t once
// they are at least a quarter of it, so that dropping costs O(1) amortized
// per start.
func (e *engine) compact(s, t int) {
	q := &e.waiting[s][t]
	if e.left[s][t]*4 < len(*q) {
		return
	}
	e.left[s][t] = 0
	*q = slices.DeleteFunc(*q, func(en qent) bool { return !e.live(en) })
}

// scheduleFIFO starts jobs from the head of the single queue while the head
// fits its pool; the first that does not fit blocks the rest.
func (e *engine) scheduleFIFO() {
	q := &e.waiting[0][0]
	n := 0
	for _, en := range *q {
		j := &e.jobs[en.idx]
		if e.used[j.typ]+int(j.k) > e.pool[j.typ] {
			break
		}
		e.start(en.idx)
		n++
	}
	if n > 0 {
		*q = slices.Delete(*q, 0, n)
	}
	clear(e.dirty)
}
