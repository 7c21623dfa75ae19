package simulate

import (
	"math"
	"sort"

	"github.com/trainq/trainq/platform"
)

// Result is what one run produced. Times are simulated seconds, work is
// exact instance-seconds.
type Result struct {
	// Label names the run in tables, reports and the per-job CSV: the
	// platform file's name, or "fifo" for the baseline.
	Label string `json:"label"`
	// Platform is the platform's name.
	Platform string `json:"platform"`
	// Policy is what was simulated: quota, fairshare or fifo.
	Policy      string `json:"policy"`
	Jobs        int    `json:"jobs"`
	Completed   int    `json:"completed"`
	Failed      int    `json:"failed"`
	Preemptions int    `json:"preemptions"`
	// Timeouts counts attempts that ran the class's maximum runtime.
	Timeouts int `json:"timeouts"`
	// StartSeconds is the first submission, EndSeconds the last job's end,
	// MakespanSeconds their difference.
	StartSeconds    int64 `json:"startSeconds"`
	EndSeconds      int64 `json:"endSeconds"`
	MakespanSeconds int64 `json:"makespanSeconds"`
	// CapacityInstanceSeconds is all pools' instances × the makespan.
	CapacityInstanceSeconds int64 `json:"capacityInstanceSeconds"`
	// InstanceSeconds is the work done, split by how attempts ended.
	InstanceSeconds Work `json:"instanceSeconds"`
	// Utilization is busy ÷ capacity, Goodput completed attempts' work ÷
	// capacity, LostWork preempted and timed-out attempts' work ÷ capacity
	// (0–1, rounded to 4 decimals; Utilization = Goodput + LostWork up to
	// rounding).
	Utilization float64 `json:"utilization"`
	Goodput     float64 `json:"goodput"`
	LostWork    float64 `json:"lostWork"`
	// LostInstanceHours is InstanceSeconds.Lost() in instance-hours (4
	// decimals).
	LostInstanceHours float64 `json:"lostInstanceHours"`
	// Moves counts the re-router's moves (R23); Routes splits them by
	// class and from → to.
	Moves         int          `json:"moves"`
	Routes        []Route      `json:"routes"`
	InstanceTypes []TypeStats  `json:"instanceTypes"`
	Classes       []GroupStats `json:"classes"`
	Teams         []GroupStats `json:"teams"`
	Failures      []Failure    `json:"failures"`
	// Settings are the re-routing and checkpoint settings the run used.
	Settings Settings `json:"settings"`
	// BudgetRefused counts the submissions the teams' budgets refused
	// (they never enter the run: Jobs does not count them); Budgets are
	// each budget's figures (budget.go). None without budgets.
	BudgetRefused int            `json:"budgetRefused,omitempty"`
	Budgets       []BudgetResult `json:"budgets,omitempty"`

	series     *Series
	classWaits []*Hist
}

// Work is instance-seconds of busy capacity by what became of it.
// Busy = Goodput + LostPreempted + LostTimedOut.
type Work struct {
	Busy int64 `json:"busy"`
	// Goodput is the work that went into completed jobs: their completing
	// attempts, and what checkpoints kept of their earlier attempts (R22).
	Goodput int64 `json:"goodput"`
	// LostPreempted is the work of preempted attempts that no checkpoint
	// kept (all of it without checkpoints), and all the work of preempted
	// attempts of jobs that failed in the end.
	LostPreempted int64 `json:"lostPreempted"`
	// LostTimedOut is the same for attempts that ran the class's maximum
	// runtime and were terminated.
	LostTimedOut int64 `json:"lostTimedOut"`
	// Checkpointed is the work of preempted and timed-out attempts that
	// checkpoints kept, whether the job then completed (it is in Goodput)
	// or failed (in the Lost fields).
	Checkpointed int64 `json:"checkpointed"`
}

// Lost is all lost work.
func (w Work) Lost() int64 { return w.LostPreempted + w.LostTimedOut }

// addAttempt adds an attempt that used is instance-seconds and ended with
// o; of one that did not complete, checkpoints kept keep, which settle
// decides on when the job ends.
func (w *Work) addAttempt(is, keep int64, o attemptOutcome) {
	w.Busy += is
	if o == attemptCompleted {
		w.Goodput += is
		return
	}
	w.Checkpointed += keep
	w.lose(is-keep, o)
}

// settle books checkpointed work is of an attempt that ended with o, once
// its job has ended: goodput if the job completed, else lost.
func (w *Work) settle(is int64, o attemptOutcome, completed bool) {
	if completed {
		w.Goodput += is
		return
	}
	w.lose(is, o)
}

func (w *Work) lose(is int64, o attemptOutcome) {
	if o == attemptTimedOut {
		w.LostTimedOut += is
	} else {
		w.LostPreempted += is
	}
}

// Route counts the moves of one class from one instance type to another.
type Route struct {
	Class string `json:"class"`
	From  string `json:"from"`
	To    string `json:"to"`
	Moves int    `json:"moves"`
}

// Settings are what a run modelled of re-routing and checkpoints: the
// platform's, or nothing under FIFO.
type Settings struct {
	// Rerouting is the re-router's schedule and bound; nil when no class
	// is re-routed in this run.
	Rerouting *RerouteRun `json:"rerouting"`
	// Classes are in platform order.
	Classes []ClassSettings `json:"classes"`
}

// RerouteRun is the re-router's schedule: a run every EveryMinutes, at most
// MaxMovesPerMinute moves a run.
type RerouteRun struct {
	EveryMinutes      int `json:"everyMinutes"`
	MaxMovesPerMinute int `json:"maxMovesPerMinute"`
}

// ClassSettings are one class's re-routing and checkpoints in a run.
type ClassSettings struct {
	Name string `json:"name"`
	// Reroute is nil when the class's jobs are not moved.
	Reroute *platform.Reroute `json:"reroute"`
	// CheckpointSeconds is the checkpoint interval, 0 when off.
	CheckpointSeconds int64 `json:"checkpointSeconds"`
	// CheckpointOnStop is true when the class's code also saves when
	// SageMaker stops the job (checkpoints.onStop).
	CheckpointOnStop bool `json:"checkpointOnStop"`
}

// TypeStats is the use of one instance type.
type TypeStats struct {
	InstanceType            string `json:"instanceType"`
	Instances               int    `json:"instances"`
	CapacityInstanceSeconds int64  `json:"capacityInstanceSeconds"`
	InstanceSeconds         Work   `json:"instanceSeconds"`
	// Utilization, Goodput and LostWork are as in Result, for the type.
	Utilization float64 `json:"utilization"`
	Goodput     float64 `json:"goodput"`
	LostWork    float64 `json:"lostWork"`
	// PeakInstances is the most instances of the type in use at once.
	PeakInstances int `json:"peakInstances"`
}

// GroupStats describe the jobs of one class or one team.
type GroupStats struct {
	Name string `json:"name"`
	// TraceName is, for a team, the trace's name for it when it differs
	// from Name: search-ranking for a fair-share identifier search_ranking
	// (the two are one team once '-' and '_' are read alike).
	TraceName   string `json:"traceName,omitempty"`
	Jobs        int    `json:"jobs"`
	Completed   int    `json:"completed"`
	Failed      int    `json:"failed"`
	Preemptions int    `json:"preemptions"`
	Timeouts    int    `json:"timeouts"`
	// Wait is over completed jobs: the time each spent waiting, from
	// submission to completion less the time it ran (so time waiting again
	// after a preemption or a timeout counts).
	Wait WaitStats `json:"waitSeconds"`
	// RunSecondsMean is the mean time a completed job ran, all attempts.
	RunSecondsMean  float64 `json:"runSecondsMean"`
	InstanceSeconds Work    `json:"instanceSeconds"`
	// LostInstanceHours is InstanceSeconds.Lost() in instance-hours.
	LostInstanceHours float64 `json:"lostInstanceHours"`
	// Moves counts the group's jobs' moves to another instance type.
	Moves int `json:"moves"`
	// PeakInstances is the most instances the group's jobs held at once,
	// all types together; PeakInstancesByType the most of each type.
	PeakInstances       int            `json:"peakInstances"`
	PeakInstancesByType map[string]int `json:"peakInstancesByType"`
}

// WaitStats are nearest-rank percentiles of waits, in seconds: the p-th
// percentile of n sorted waits is the ⌈p·n/100⌉-th, exact below 2,048 s and
// otherwise at most 0.1% below (see Hist). Max and Mean are exact. All are 0
// when no job completed.
type WaitStats struct {
	P50  int64   `json:"p50"`
	P95  int64   `json:"p95"`
	P99  int64   `json:"p99"`
	Max  int64   `json:"max"`
	Mean float64 `json:"mean"`
}

// Failure counts jobs that failed for one reason.
type Failure struct {
	Reason string `json:"reason"`
	Jobs   int    `json:"jobs"`
}

// Series returns the run's time series for plots.
func (r *Result) Series() *Series { return r.series }

// ClassWaits returns the waits of completed jobs of each class, in platform
// order.
func (r *Result) ClassWaits() []*Hist { return r.classWaits }

type group struct {
	jobs, completed, failed, preempts, timeouts, moves int
	waits                                              Hist
	runSum                                             int64
	work                                               Work
	running, peak                                      int
	runningByType, peakByType                          []int
}

type collector struct {
	types    []string
	classes  []group
	teams    []group
	typeWork []Work
	typePeak []int
	failures map[string]int
	start    int64
	end      int64
	// refused counts submissions the budgets refused.
	refused   int
	started   bool
	classWait []int
	series    Series
	routes    map[[3]int]int // (class, from, to) → moves
}

func newCollector(p *platform.Platform, types []string) *collector {
	c := &collector{types: types, classes: make([]group, len(p.Classes)), teams: make([]group, len(p.Teams)),
		typeWork: make([]Work, len(types)), typePeak: make([]int, len(types)), failures: map[string]int{},
		classWait: make([]int, len(p.Classes)), routes: map[[3]int]int{}}
	for _, gs := range [][]group{c.classes, c.teams} {
		for i := range gs {
			gs[i].runningByType = make([]int, len(types))
			gs[i].peakByType = make([]int, len(types))
		}
	}
	c.series = newSeries(p)
	return c
}

func (c *collector) begin(t int64) {
	c.start, c.end, c.started = t, t, true
	c.series.Start, c.series.End = t, t
}

// advance integrates running instances per team and waiting jobs per class
// from e.now to t into the series.
func (c *collector) advance(e *engine, t int64) {
	if !c.started || t <= e.now {
		return
	}
	c.series.integrate(e.now, t, e.runN, c.classWait)
}

func (c *collector) submitted(j *job) {
	c.classes[j.class].jobs++
	c.teams[j.share].jobs++
}

func (c *collector) waitingDelta(j *job, d int) { c.classWait[j.class] += d }

func (c *collector) attemptStarted(e *engine, j *job) {
	t := int(j.typ)
	c.typePeak[t] = max(c.typePeak[t], e.used[t])
	for _, g := range []*group{&c.classes[j.class], &c.teams[j.share]} {
		g.running += int(j.k)
		g.runningByType[t] += int(j.k)
		g.peak = max(g.peak, g.running)
		g.peakByType[t] = max(g.peakByType[t], g.runningByType[t])
	}
}

// ran accounts an attempt of d seconds that just ended with outcome o, of
// which checkpoints kept keep seconds.
func (c *collector) ran(e *engine, j *job, d, keep int64, o attemptOutcome) {
	k := int64(j.k)
	t := int(j.typ)
	c.typeWork[t].addAttempt(d*k, keep*k, o)
	for _, g := range []*group{&c.classes[j.class], &c.teams[j.share]} {
		g.work.addAttempt(d*k, keep*k, o)
		g.running -= int(j.k)
		g.runningByType[t] -= int(j.k)
	}
	c.series.attempt(e.now-d, e.now, keep, int(j.k), o)
	if o != attemptCompleted && keep > 0 {
		j.keptSpans = append(j.keptSpans, span{from: e.now - d, to: e.now - d + keep})
	}
	c.end = max(c.end, e.now)
}

// settle books the job's checkpointed work once it ended: goodput if it
// completed, else lost — in the totals and, over the times the work ran,
// in the series.
func (c *collector) settle(j *job, completed bool) {
	row := c.series.Lost
	if completed {
		row = c.series.Goodput
	}
	for _, sp := range j.keptSpans {
		c.series.add(row, sp.from, sp.to, int(j.k))
	}
	for _, kp := range j.keep {
		c.typeWork[kp.typ].settle(kp.is, kp.outcome, completed)
		c.classes[j.class].work.settle(kp.is, kp.outcome, completed)
		c.teams[j.share].work.settle(kp.is, kp.outcome, completed)
	}
}

func (c *collector) moved(j *job, from, to int) {
	c.classes[j.class].moves++
	c.teams[j.share].moves++
	c.routes[[3]int{int(j.class), from, to}]++
}

func (c *collector) preempted(j *job) {
	c.classes[j.class].preempts++
	c.teams[j.share].preempts++
}

func (c *collector) completed(e *engine, j *job) {
	w := e.now - j.submit - j.runTotal
	for _, g := range []*group{&c.classes[j.class], &c.teams[j.share]} {
		g.completed++
		g.timeouts += int(j.timeouts)
		g.waits.Add(w)
		g.runSum += j.runTotal
	}
	c.settle(j, true)
	c.end = max(c.end, e.now)
}

func (c *collector) failed(e *engine, j *job, reason string) {
	for _, g := range []*group{&c.classes[j.class], &c.teams[j.share]} {
		g.failed++
		g.timeouts += int(j.timeouts)
	}
	c.failures[reason]++
	c.settle(j, false)
	c.end = max(c.end, e.now)
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// instanceHoursOf is instance-seconds in instance-hours, 4 decimals.
func instanceHoursOf(is int64) float64 { return round4(float64(is) / 3600) }

func fraction(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return round4(float64(part) / float64(whole))
}

func (g *group) stats(name string, types []string) GroupStats {
	gs := GroupStats{Name: name, Jobs: g.jobs, Completed: g.completed, Failed: g.failed, Preemptions: g.preempts,
		Timeouts: g.timeouts, InstanceSeconds: g.work, LostInstanceHours: instanceHoursOf(g.work.Lost()), Moves: g.moves,
		PeakInstances: g.peak, PeakInstancesByType: map[string]int{}}
	for t, it := range types {
		gs.PeakInstancesByType[it] = g.peakByType[t]
	}
	if n := g.waits.N(); n > 0 {
		gs.Wait = WaitStats{P50: g.waits.Percentile(50), P95: g.waits.Percentile(95), P99: g.waits.Percentile(99),
			Max: g.waits.Max(), Mean: round4(g.waits.Mean())}
		gs.RunSecondsMean = round4(float64(g.runSum) / float64(n))
	}
	return gs
}

func (c *collector) result(e *engine) *Result {
	c.series.End = c.end
	r := &Result{Platform: e.p.Name, Policy: string(e.mode), StartSeconds: c.start, EndSeconds: c.end,
		MakespanSeconds: c.end - c.start, series: &c.series, Failures: []Failure{}}
	if e.policy == PolicyFIFO {
		r.Policy = string(PolicyFIFO)
	}
	r.BudgetRefused, r.Budgets = c.refused, e.budgetResults(c.end)
	span := r.MakespanSeconds
	for t, it := range c.types {
		w := c.typeWork[t]
		capacity := int64(e.pool[t]) * span
		r.InstanceTypes = append(r.InstanceTypes, TypeStats{InstanceType: it, Instances: e.pool[t], CapacityInstanceSeconds: capacity,
			InstanceSeconds: w, Utilization: fraction(w.Busy, capacity), Goodput: fraction(w.Goodput, capacity),
			LostWork: fraction(w.Lost(), capacity), PeakInstances: c.typePeak[t]})
		r.CapacityInstanceSeconds += capacity
		r.InstanceSeconds.Busy += w.Busy
		r.InstanceSeconds.Goodput += w.Goodput
		r.InstanceSeconds.LostPreempted += w.LostPreempted
		r.InstanceSeconds.LostTimedOut += w.LostTimedOut
		r.InstanceSeconds.Checkpointed += w.Checkpointed
	}
	r.LostInstanceHours = instanceHoursOf(r.InstanceSeconds.Lost())
	r.Utilization = fraction(r.InstanceSeconds.Busy, r.CapacityInstanceSeconds)
	r.Goodput = fraction(r.InstanceSeconds.Goodput, r.CapacityInstanceSeconds)
	r.LostWork = fraction(r.InstanceSeconds.Lost(), r.CapacityInstanceSeconds)
	for i, cl := range e.classes {
		g := c.classes[i].stats(cl.Name, c.types)
		r.Classes = append(r.Classes, g)
		r.classWaits = append(r.classWaits, &c.classes[i].waits)
		r.Jobs += g.Jobs
		r.Completed += g.Completed
		r.Failed += g.Failed
		r.Preemptions += g.Preemptions
		r.Timeouts += g.Timeouts
	}
	for i, t := range e.p.Teams {
		g := c.teams[i].stats(t.Name, c.types)
		g.TraceName = e.teams.traceName(i)
		r.Teams = append(r.Teams, g)
	}
	r.Routes = []Route{}
	for key, n := range c.routes {
		r.Routes = append(r.Routes, Route{Class: e.classes[key[0]].Name, From: c.types[key[1]], To: c.types[key[2]], Moves: n})
		r.Moves += n
	}
	sort.Slice(r.Routes, func(a, b int) bool {
		x, y := r.Routes[a], r.Routes[b]
		if x.Class != y.Class {
			return e.classIx[x.Class] < e.classIx[y.Class]
		}
		if x.From != y.From {
			return e.typeIdx[x.From] < e.typeIdx[y.From]
		}
		return e.typeIdx[x.To] < e.typeIdx[y.To]
	})
	r.Settings = e.settings()
	reasons := make([]string, 0, len(c.failures))
	for k := range c.failures {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		r.Failures = append(r.Failures, Failure{Reason: k, Jobs: c.failures[k]})
	}
	return r
}
