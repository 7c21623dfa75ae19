package simulate

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

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
	// Observer, when set, sees every start, every end of an attempt and
	// every failure; tests use it to check invariants.
	Observer Observer
	// Jobs, when set, receives each job's record the moment the job ends
	// (completed or failed), in that order; an error stops the run.
	Jobs func(JobRecord) error
	// Epoch is the moment of the trace's second 0, which places the
	// calendar months of the platform's budgets. Default: 1970-01-01
	// 00:00 UTC (submit_s as Unix seconds).
	Epoch time.Time
}

// Observer sees each state change of a run as it happens, with a view of the
// capacity in use right after it. The State is the engine's own: read it
// during Observe, never keep or modify it.
type Observer interface {
	Observe(e Event, s *State)
}

// EventKind is what happened to a job.
type EventKind uint8

// Event kinds. Every EventStart is followed by exactly one of EventPreempt,
// EventTimeout and EventComplete for the same job (the end of that attempt).
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
	// EventMove: the re-router moves a waiting job to another instance
	// type (Event.From is the type it leaves, InstanceType the new one).
	EventMove
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
	// From is the instance type a moved job leaves (EventMove only).
	From string
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

// state of a job.
const (
	stWaiting uint8 = iota + 1
	stRunning
	stDone
)

type job struct {
	id        string
	submit    int64 // the trace's submission: waits count from it
	qsubmit   int64 // its place in the queue: submit, or when it was last moved
	duration  int64
	remaining int64 // work left: duration less what checkpoints kept
	saved     int64 // seconds of its attempts that checkpoints kept
	rrSeq     int64 // its entry in a re-routing queue (0: none)
	order     int64 // submission order, the last tie-break
	start     int64 // start of the current (or last) attempt
	end       int64 // end of the running attempt
	runTotal  int64 // seconds run by all attempts
	lost      int64 // seconds run by attempts that did not complete, less what checkpoints kept
	prio      int32 // AWS Batch scheduling priority
	k         int32 // instances
	starts    int32 // attempts started
	preempts  int32
	endPos    int32 // position in the end heap while running
	runIdx    int32 // position in running[share][typ] while running
	qpos      int32 // position in its waiting heap while waiting
	rrBucket  int32 // its live re-routing queue, -1 when none
	typ       int16 // the instance type it runs on now
	typ0      int16 // the trace's instance type
	moves     int16 // times the re-router moved it
	share     int16
	class     int16
	rank      int16 // rank of prio among the platform's scheduling priorities
	timeouts  int16 // attempts that timed out
	state     uint8
	timesOut  bool // the running attempt ends by timing out
	// keep is the work that checkpoints kept of attempts that did not
	// complete, by instance type and how the attempt ended: goodput if the
	// job completes, lost if it fails. Empty for most jobs.
	keep []kept
	// keptSpans are the times of that work, for the series.
	keptSpans []span
}

// kept is checkpointed work of one instance type and attempt outcome.
type kept struct {
	typ     int16
	outcome attemptOutcome
	is      int64 // instance-seconds
}

// engine holds one run.
type engine struct {
	p      *platform.Platform
	opts   Options
	policy Policy
	mode   platform.Mode

	types     []string
	teamNames []string
	typeIdx   map[string]int
	teams     teamMatch // the trace's team names → shares
	classIx   map[string]int
	classes   []platform.Class
	inShare   []bool  // per share: in-share preemption on
	rankOf    []int16 // scheduling priority → rank

	pool     []int                // capacity per type
	used     []int                // in use per type
	limits   [][]batchrules.Limit // [share][type]
	maxHeld  [][]int              // [share][type]: the most a share may ever hold
	teamUsed [][]int              // [share][type]
	running  [][][]int32          // [share][type] → jobs
	below    [][]fenwick          // [share][type]: running instances by priority rank
	waiting  [][]sizedQueue       // [share][type]
	fifo     qheap                // the FIFO baseline's one queue
	dirty    []bool               // per type: capacity or queue changed since the last pass
	waitN    []int                // waiting jobs per share
	runN     []int                // running instances per share

	jobs  []job
	free  []int32
	ends  endHeap
	now   int64
	order int64

	fair fairState

	ckpt []int64 // per class: checkpoint interval in seconds, 0 when off (and under FIFO)
	// ckptStop is, per class, whether its code checkpoints when SageMaker
	// stops an attempt (checkpoints.onStop; never under FIFO).
	ckptStop []bool
	rr       rerouter

	stats   *collector
	scratch []Victim
	pick    []int32
	view    quotaView
	sim     []batchrules.ShareState
	victims []int32
	cand    []candidate
	closed  []bool
	state   State
	err     error
	// begun is set when the run began before the loop (RunFrom).
	begun bool
	// budgets are the platform's teams' budgets (budget.go).
	budgets budgets
}

// Run replays src against p and returns what happened. It reads src once, in
// order, and holds only waiting and running jobs: memory is bounded by the
// jobs active at once, not by the trace. An unknown class, team or instance
// type in a row is an error naming the row's line.
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
		typeIdx: map[string]int{}, classIx: map[string]int{}}
	e.ends.jobs = &e.jobs
	e.budgets = newBudgets(p, opts.Policy, opts.Epoch)
	e.fifo.fifo = true
	e.fifo.jobs = &e.jobs
	e.types = p.InstanceTypes()
	e.teamNames = p.TeamNames()
	e.teams = newTeamMatch(p)
	for i, t := range e.types {
		e.typeIdx[t] = i
		e.pool = append(e.pool, p.PoolInstances(t))
	}
	nt := len(e.types)
	e.used = make([]int, nt)
	e.dirty = make([]bool, nt)
	e.classes = p.Classes
	for i, c := range p.Classes {
		e.classIx[c.Name] = i
	}
	e.rankPriorities()
	nShares := len(p.Teams)
	shares := p.QuotaShares()
	for i, t := range p.Teams {
		l := make([]batchrules.Limit, nt)
		for ti, it := range e.types {
			l[ti] = shares[i].Limit(it)
		}
		e.limits = append(e.limits, l)
		e.inShare = append(e.inShare, e.mode == platform.ModeQuota && t.PreemptsInShare())
	}
	// The one never-fits rule (platform.JobLimit), which the submission
	// door refuses by and trainq status explains by.
	e.maxHeld = grid(nShares, nt)
	for ti, it := range e.types {
		for s := range nShares {
			e.maxHeld[s][ti] = p.JobLimit(p.Teams[s], it).Max
		}
	}
	e.teamUsed = grid(nShares, nt)
	e.running = make([][][]int32, nShares)
	e.waiting = make([][]sizedQueue, nShares)
	e.below = make([][]fenwick, nShares)
	for s := range nShares {
		e.running[s] = make([][]int32, nt)
		e.waiting[s] = make([]sizedQueue, nt)
		for t := range nt {
			e.waiting[s][t].jobs = &e.jobs
		}
		e.below[s] = make([]fenwick, nt)
		if e.inShare[s] {
			for t := range nt {
				e.below[s][t] = make(fenwick, e.ranks()+1)
			}
		}
	}
	e.waitN = make([]int, nShares)
	e.runN = make([]int, nShares)
	e.cand = make([]candidate, nShares)
	e.closed = make([]bool, nShares)
	e.view.Shares = make([]batchrules.ShareState, nShares)
	e.fair = newFairState(p, nShares)
	e.ckpt = make([]int64, len(e.classes))
	e.ckptStop = make([]bool, len(e.classes))
	if e.policy == PolicyPlatform {
		for i, c := range e.classes {
			e.ckpt[i] = checkpointSeconds(c)
			e.ckptStop[i] = c.CheckpointsOnStop()
		}
	}
	e.rr = newRerouter(e)
	e.state = State{Types: e.types, Pool: e.pool, Used: e.used, Teams: e.teamNames, TeamUsed: e.teamUsed}
	e.stats = newCollector(p, e.types)
	return e
}

// rankPriorities numbers the scheduling priorities the platform's classes
// can give (class.SchedulingPriority of 0–99), lowest first.
func (e *engine) rankPriorities() {
	seen := make([]bool, platform.MaxSchedulingPriority+1)
	for _, c := range e.classes {
		for p := 0; p <= platform.RequestPriorityMax; p++ {
			seen[c.SchedulingPriority(p)] = true
		}
	}
	e.rankOf = make([]int16, len(seen))
	r := int16(0)
	for sp, ok := range seen {
		e.rankOf[sp] = r
		if ok {
			r++
		}
	}
}

// ranks is the number of distinct scheduling priorities.
func (e *engine) ranks() int { return int(e.rankOf[len(e.rankOf)-1]) + 1 }

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
	first := !e.begun
	for more || e.ends.len() > 0 {
		t := int64(math.MaxInt64)
		if more {
			t = next.Submit
		}
		if e.ends.len() > 0 && e.jobs[e.ends.top()].end < t {
			t = e.jobs[e.ends.top()].end
		}
		if tick, ok := e.rr.nextTick(); ok && tick < t {
			t = tick
		}
		if first {
			e.stats.begin(t)
			e.now, e.fair.last = t, t
			first = false
		}
		e.advance(t)
		for e.ends.len() > 0 && e.jobs[e.ends.top()].end == t {
			e.end(e.ends.top())
		}
		if e.err != nil {
			return e.err
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
		if tick, ok := e.rr.nextTick(); ok && tick == t {
			// The re-router runs after Batch's pass of this second: it sees
			// only jobs that could not start. The jobs it moves are placed
			// by the pass that follows.
			e.reroute()
			e.schedule()
			e.rr.placed(e)
		}
		if e.err != nil {
			return e.err
		}
	}
	if n := e.fifo.len() + sum(e.waitN); n > 0 {
		// Under the modelled rules a job that passed neverFits always starts
		// once the pools drain, so any left is a bug in the simulator.
		return fmt.Errorf("simulate: %d jobs still waiting after the last event with nothing running (a simulator bug)", n)
	}
	if e.opts.Progress != nil {
		e.opts.Progress(read)
	}
	return nil
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// advance moves simulated time to t, accumulating usage and series.
func (e *engine) advance(t int64) {
	if t < e.now {
		return
	}
	e.stats.advance(e, t)
	if e.fairShare() {
		e.fair.advance(e, t)
	}
	e.now = t
}

func (e *engine) fairShare() bool {
	return e.mode == platform.ModeFairShare && e.policy == PolicyPlatform
}

func (e *engine) submit(tj trace.Job) error {
	where := func(col, val, allowed string) error {
		return &trace.LineError{Line: tj.Line, Column: col, Value: val, Allowed: allowed}
	}
	ti, ok := e.typeIdx[tj.InstanceType]
	if !ok {
		return where(trace.ColInstanceType, tj.InstanceType, "an instance type of the pools ("+strings.Join(e.types, ", ")+")")
	}
	si, err := e.teams.resolve(tj)
	if err != nil {
		return err
	}
	ci, ok := e.classIx[tj.Class]
	if !ok {
		return where(trace.ColClass, tj.Class, "a class of the platform ("+strings.Join(e.p.ClassNames(), ", ")+")")
	}
	prio := tj.Priority
	if prio == trace.NoPriority {
		prio = platform.DefaultRequestPriority
	}
	sp := e.classes[ci].SchedulingPriority(prio)
	if e.budgets.on {
		// The team's budgets, as the submission function applies them.
		d := e.budgetDecision(si, ci, ti)
		if d.Refused() {
			e.stats.refused++
			return nil
		}
		sp = d.SchedulingPriority(e.classes[ci], prio)
	}
	var idx int32
	if n := len(e.free); n > 0 {
		idx = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		e.jobs = append(e.jobs, job{})
		idx = int32(len(e.jobs) - 1)
	}
	keep := e.jobs[idx].keep[:0] // reuse the slot's buffer
	e.jobs[idx] = job{id: tj.ID, submit: tj.Submit, qsubmit: tj.Submit, duration: tj.Duration, remaining: tj.Duration,
		order: e.order, prio: int32(sp), rank: e.rankOf[sp], k: int32(tj.Instances), endPos: -1, qpos: -1, rrBucket: -1,
		typ: int16(ti), typ0: int16(ti), share: int16(si), class: int16(ci), state: stWaiting, keep: keep}
	j := &e.jobs[idx]
	e.order++
	e.stats.submitted(j)
	if reason := e.neverFits(j); reason != "" {
		e.fail(idx, reason)
		return e.err
	}
	e.enqueue(idx)
	return nil
}

// neverFits explains why a job can never start under this run's rules (R20),
// or returns "".
func (e *engine) neverFits(j *job) string {
	t, k := int(j.typ), int(j.k)
	if k > e.pool[t] {
		return fmt.Sprintf("needs %d × %s, the pool has %d", k, e.types[t], e.pool[t])
	}
	if e.policy == PolicyFIFO || e.mode != platform.ModeQuota {
		return ""
	}
	if m := e.maxHeld[j.share][t]; k > m {
		return fmt.Sprintf("needs %d × %s, team %s can use at most %d", k, e.types[t], e.teamNames[j.share], m)
	}
	return ""
}

func (e *engine) enqueue(idx int32) {
	j := &e.jobs[idx]
	j.state = stWaiting
	en := qent{submit: j.qsubmit, order: j.order, prio: j.prio, idx: idx}
	if e.policy == PolicyFIFO {
		e.fifo.push(en)
	} else {
		e.waiting[j.share][j.typ].push(j.k, en)
	}
	e.dirty[j.typ] = true
	e.waitN[j.share]++
	e.stats.waitingDelta(j, +1)
	e.rr.add(e, idx)
}

// start runs a waiting job now. The caller has taken it off its queue.
func (e *engine) start(idx int32) {
	j := &e.jobs[idx]
	s, t := int(j.share), int(j.typ)
	wasActive := shareActive(e.runN[s])
	e.rr.leave(j, e.jobs)
	j.state = stRunning
	j.start = e.now
	j.starts++
	e.used[t] += int(j.k)
	e.teamUsed[s][t] += int(j.k)
	e.waitN[s]--
	e.runN[s] += int(j.k)
	if e.inShare[s] {
		e.below[s][t].add(int(j.rank), j.k)
	}
	j.runIdx = int32(len(e.running[s][t]))
	e.running[s][t] = append(e.running[s][t], idx)
	run, timeout := attemptSeconds(e.classes[j.class], j.remaining)
	j.timesOut = timeout
	j.end = e.now + run
	e.ends.push(idx)
	if e.mode != platform.ModeQuota {
		e.rr.changed(e.now)
	}
	e.stats.attemptStarted(e, j)
	e.stats.waitingDelta(j, -1)
	e.observe(EventStart, j, "")
	if e.fairShare() && !wasActive {
		e.reservationChanged()
	}
}

// stop takes a running job off its instances.
func (e *engine) stop(idx int32, outcome attemptOutcome) {
	j := &e.jobs[idx]
	s, t := int(j.share), int(j.typ)
	e.ends.remove(idx)
	e.used[t] -= int(j.k)
	e.teamUsed[s][t] -= int(j.k)
	e.runN[s] -= int(j.k)
	if e.inShare[s] {
		e.below[s][t].add(int(j.rank), -j.k)
	}
	r := e.running[s][t]
	last := r[len(r)-1]
	r[j.runIdx] = last
	e.jobs[last].runIdx = j.runIdx
	e.running[s][t] = r[:len(r)-1]
	d := e.now - j.start
	if e.budgets.on {
		e.budgetEnded(j)
	}
	j.runTotal += d
	var keep int64
	if outcome != attemptCompleted {
		keep = checkpointed(d, e.ckpt[j.class], e.ckptStop[j.class])
		j.remaining -= keep
		j.saved += keep
		j.lost += d - keep
		if keep > 0 {
			j.addKept(keep*int64(j.k), outcome)
		}
	}
	e.stats.ran(e, j, d, keep, outcome)
	e.dirty[t] = true
	e.rr.changed(e.now)
	if e.fairShare() && !shareActive(e.runN[s]) {
		e.reservationChanged()
	}
}

// reservationChanged marks every type for a pass: the number of active
// shares, and so the compute reservation (R17), changed.
func (e *engine) reservationChanged() {
	if e.fair.reservation == 0 {
		return
	}
	for i := range e.dirty {
		e.dirty[i] = true
	}
}

// end finishes a running attempt at its scheduled end: a success, or a
// timeout that is retried while the class allows attempts (R12, R13).
func (e *engine) end(idx int32) {
	j := &e.jobs[idx]
	if !j.timesOut {
		e.stop(idx, attemptCompleted)
		e.observe(EventComplete, j, "")
		e.stats.completed(e, j)
		e.finish(idx, OutcomeCompleted, "")
		return
	}
	e.stop(idx, attemptTimedOut)
	j.timeouts++
	e.observe(EventTimeout, j, "")
	c := e.classes[j.class]
	if !attemptsLeft(c, int(j.timeouts)) {
		e.fail(idx, fmt.Sprintf("timed out after %d s in each of %d attempts", c.MaxRuntimeSeconds, j.timeouts))
		return
	}
	e.enqueue(idx)
}

// preempt stops a running job for another one and requeues it at its
// original place, or fails it when its class's preemption retries are spent
// (R10).
func (e *engine) preempt(idx int32) {
	e.stop(idx, attemptPreempted)
	j := &e.jobs[idx]
	j.preempts++
	e.stats.preempted(j)
	e.observe(EventPreempt, j, "")
	if c := e.classes[j.class]; !preemptionRetriesLeft(c, int(j.preempts)) {
		e.fail(idx, fmt.Sprintf("preempted %d times, more than the class's %d preemption retries", j.preempts, *c.PreemptionRetries))
		return
	}
	e.enqueue(idx)
}

// addKept notes is instance-seconds of checkpointed work on the job's
// current type, of an attempt that ended with outcome o.
func (j *job) addKept(is int64, o attemptOutcome) {
	for i := range j.keep {
		if j.keep[i].typ == j.typ && j.keep[i].outcome == o {
			j.keep[i].is += is
			return
		}
	}
	j.keep = append(j.keep, kept{typ: j.typ, outcome: o, is: is})
}

func (e *engine) fail(idx int32, reason string) {
	j := &e.jobs[idx]
	e.observe(EventFail, j, reason)
	e.stats.failed(e, j, reason)
	e.finish(idx, OutcomeFailed, reason)
}

// finish hands the ended job's record to Options.Jobs and frees its slot.
func (e *engine) finish(idx int32, outcome Outcome, reason string) {
	j := &e.jobs[idx]
	if e.opts.Jobs != nil && e.err == nil {
		if err := e.opts.Jobs(e.record(j, outcome, reason)); err != nil {
			e.err = fmt.Errorf("job %q: %w", j.id, err)
		}
	}
	j.state = stDone
	j.id = ""
	j.keep = j.keep[:0]
	j.keptSpans = j.keptSpans[:0]
	e.free = append(e.free, idx)
}

func (e *engine) observe(kind EventKind, j *job, reason string) {
	e.observeFrom(kind, j, reason, "")
}

func (e *engine) observeFrom(kind EventKind, j *job, reason, from string) {
	if e.opts.Observer == nil {
		return
	}
	e.opts.Observer.Observe(Event{Kind: kind, At: e.now, JobID: j.id, Team: e.teamNames[j.share],
		Class: e.classes[j.class].Name, InstanceType: e.types[j.typ], Instances: int(j.k),
		Priority: int(j.prio), Submit: j.submit, Reason: reason, From: from}, &e.state)
}

// schedule runs scheduling passes for the instance types whose capacity or
// queue changed, until none is left (a fair-share pass on one type can
// change the compute reservation of all).
func (e *engine) schedule() {
	if e.policy == PolicyFIFO {
		e.scheduleFIFO()
		clear(e.dirty)
		return
	}
	for again := true; again && e.err == nil; {
		again = false
		for t := range e.types {
			if !e.dirty[t] {
				continue
			}
			e.dirty[t] = false
			if e.mode == platform.ModeFairShare {
				e.scheduleFair(t)
			} else {
				e.scheduleQuota(t)
			}
		}
		again = slices.Contains(e.dirty, true)
	}
}

// scheduleFIFO starts jobs from the head of the single queue while the head
// fits its pool; the first that does not fit blocks the rest (R19).
func (e *engine) scheduleFIFO() {
	for e.fifo.len() > 0 {
		idx := e.fifo.head().idx
		j := &e.jobs[idx]
		if e.used[j.typ]+int(j.k) > e.pool[j.typ] {
			return
		}
		e.fifo.pop()
		e.start(idx)
	}
}
