package simulate

import (
	"math"
	"slices"
	"sort"

	"github.com/trainq/trainq/platform"
)

// Result is what one run produced. Times are simulated seconds.
type Result struct {
	// Policy is what was simulated: quota, fairshare or fifo.
	Policy      string `json:"policy"`
	Jobs        int    `json:"jobs"`
	Completed   int    `json:"completed"`
	Failed      int    `json:"failed"`
	Preemptions int    `json:"preemptions"`
	// StartSeconds is the first submission, EndSeconds the last job's end,
	// MakespanSeconds their difference.
	StartSeconds    int64 `json:"startSeconds"`
	EndSeconds      int64 `json:"endSeconds"`
	MakespanSeconds int64 `json:"makespanSeconds"`
	// Utilization is busy instance-seconds over capacity × makespan, all
	// types together (0–1).
	Utilization   float64     `json:"utilization"`
	InstanceTypes []TypeStats `json:"instanceTypes"`
	// Classes and Teams are in platform order.
	Classes  []GroupStats `json:"classes"`
	Teams    []GroupStats `json:"teams"`
	Failures []Failure    `json:"failures"`

	series *Series
	waits  [][]int64 // per class, sorted
}

// TypeStats is the use of one instance type.
type TypeStats struct {
	InstanceType  string  `json:"instanceType"`
	Instances     int     `json:"instances"`
	InstanceHours float64 `json:"instanceHours"`
	// Utilization is busy instance-seconds over instances × makespan (0–1),
	// counting attempts later cut short by preemption.
	Utilization float64 `json:"utilization"`
}

// GroupStats describe the jobs of one class or one team.
type GroupStats struct {
	Name        string `json:"name"`
	Jobs        int    `json:"jobs"`
	Completed   int    `json:"completed"`
	Failed      int    `json:"failed"`
	Preemptions int    `json:"preemptions"`
	// Wait is over completed jobs: the time each spent waiting, from
	// submission to completion less the time it ran (so time waiting again
	// after a preemption or a timeout counts).
	Wait WaitStats `json:"waitSeconds"`
	// RunSecondsMean is the mean time a completed job ran, all attempts.
	RunSecondsMean float64 `json:"runSecondsMean"`
	// InstanceHours is the capacity used by all attempts; LostInstanceHours
	// the part used by attempts cut short by preemption.
	InstanceHours     float64 `json:"instanceHours"`
	LostInstanceHours float64 `json:"lostInstanceHours"`
}

// WaitStats are nearest-rank percentiles of waits, in seconds: the p-th
// percentile of n sorted waits is the ceil(p/100·n)-th. All are 0 when no
// job completed.
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

// Waits returns the sorted waits of completed jobs of each class, in
// platform order.
func (r *Result) Waits() [][]int64 { return r.waits }

// Series are time-bucketed aggregates for plots. Bucket i covers
// [Start+i·Width, Start+(i+1)·Width).
type Series struct {
	Start int64
	Width int64
	// Teams and Classes name the rows of TeamBusy and ClassWaiting.
	Teams, Classes []string
	Capacity       int
	// TeamBusy is instance-seconds per team and bucket.
	TeamBusy [][]float64
	// ClassWaiting is waiting-job-seconds per class and bucket.
	ClassWaiting [][]float64
}

// Buckets is the number of buckets in use.
func (s *Series) Buckets() int {
	if len(s.TeamBusy) == 0 {
		return 0
	}
	return len(s.TeamBusy[0])
}

const maxBuckets = 512

type group struct {
	jobs, completed, failed, preempts int
	waits                             []int64
	runSum                            int64
	instSec, lostSec                  float64
}

type collector struct {
	types     []string
	classes   []group
	teams     []group
	typeSec   []float64
	failures  map[string]int
	start     int64
	end       int64
	started   bool
	classWait []int
	lastRun   float64
	series    Series
}

func newCollector(p *platform.Platform, types []string) *collector {
	c := &collector{types: types, classes: make([]group, len(p.Classes)), teams: make([]group, len(p.Teams)),
		typeSec: make([]float64, len(types)), failures: map[string]int{}, classWait: make([]int, len(p.Classes))}
	c.series = Series{Width: 60, Teams: p.TeamNames(), Classes: p.ClassNames(), Capacity: p.TotalInstances(),
		TeamBusy: make([][]float64, len(p.Teams)), ClassWaiting: make([][]float64, len(p.Classes))}
	return c
}

func (c *collector) begin(t int64) {
	c.start, c.end, c.started = t, t, true
	c.series.Start = t
}

// advance integrates running instances per team and waiting jobs per class
// from e.now to t into the series buckets.
func (c *collector) advance(e *engine, t int64) {
	from := e.now
	if !c.started || t <= from {
		return
	}
	s := &c.series
	for from < t {
		b := int((from - s.Start) / s.Width)
		for b >= maxBuckets {
			s.coarsen()
			b = int((from - s.Start) / s.Width)
		}
		for len(s.TeamBusy[0]) <= b {
			for i := range s.TeamBusy {
				s.TeamBusy[i] = append(s.TeamBusy[i], 0)
			}
			for i := range s.ClassWaiting {
				s.ClassWaiting[i] = append(s.ClassWaiting[i], 0)
			}
		}
		to := min(t, s.Start+int64(b+1)*s.Width)
		dt := float64(to - from)
		for i, r := range e.runN {
			s.TeamBusy[i][b] += float64(r) * dt
		}
		for i, w := range c.classWait {
			s.ClassWaiting[i][b] += float64(w) * dt
		}
		from = to
	}
}

// coarsen doubles the bucket width, merging pairs of buckets.
func (s *Series) coarsen() {
	merge := func(rows [][]float64) {
		for i, r := range rows {
			n := (len(r) + 1) / 2
			for k := range n {
				v := r[2*k]
				if 2*k+1 < len(r) {
					v += r[2*k+1]
				}
				r[k] = v
			}
			rows[i] = r[:n]
		}
	}
	merge(s.TeamBusy)
	merge(s.ClassWaiting)
	s.Width *= 2
}

func (c *collector) submitted(j *job) {
	c.classes[j.class].jobs++
	c.teams[j.share].jobs++
}

func (c *collector) waitingDelta(j *job, d int) { c.classWait[j.class] += d }

func (c *collector) ran(e *engine, j *job, d int64) {
	is := float64(d) * float64(j.k)
	c.lastRun = is
	c.typeSec[j.typ] += is
	c.classes[j.class].instSec += is
	c.teams[j.share].instSec += is
	if e.now > c.end {
		c.end = e.now
	}
}

// preempted counts a preemption of j; the attempt just stopped is lost work.
func (c *collector) preempted(j *job) {
	for _, g := range []*group{&c.classes[j.class], &c.teams[j.share]} {
		g.preempts++
		g.lostSec += c.lastRun
	}
}

func (c *collector) completed(e *engine, j *job) {
	w := e.now - j.submit - j.runTotal
	for _, g := range []*group{&c.classes[j.class], &c.teams[j.share]} {
		g.completed++
		g.waits = append(g.waits, w)
		g.runSum += j.runTotal
	}
	if e.now > c.end {
		c.end = e.now
	}
}

func (c *collector) failed(e *engine, j *job, reason string) {
	c.classes[j.class].failed++
	c.teams[j.share].failed++
	c.failures[reason]++
	if e.now > c.end {
		c.end = e.now
	}
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func (g *group) stats(name string) GroupStats {
	slices.Sort(g.waits)
	gs := GroupStats{Name: name, Jobs: g.jobs, Completed: g.completed, Failed: g.failed, Preemptions: g.preempts,
		InstanceHours: round4(g.instSec / 3600), LostInstanceHours: round4(g.lostSec / 3600)}
	if n := len(g.waits); n > 0 {
		gs.Wait = WaitStats{P50: percentile(g.waits, 50), P95: percentile(g.waits, 95), P99: percentile(g.waits, 99), Max: g.waits[n-1]}
		sum := 0.0
		for _, w := range g.waits {
			sum += float64(w)
		}
		gs.Wait.Mean = round4(sum / float64(n))
		gs.RunSecondsMean = round4(float64(g.runSum) / float64(n))
	}
	return gs
}

// percentile is the nearest-rank p-th percentile of sorted values.
func percentile(sorted []int64, p int) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

func (c *collector) result(e *engine) *Result {
	r := &Result{Policy: string(e.mode), StartSeconds: c.start, EndSeconds: c.end, MakespanSeconds: c.end - c.start,
		series: &c.series, Failures: []Failure{}}
	if e.policy == PolicyFIFO {
		r.Policy = string(PolicyFIFO)
	}
	span := float64(max(r.MakespanSeconds, 1))
	busy, capacity := 0.0, 0.0
	for t, it := range c.types {
		r.InstanceTypes = append(r.InstanceTypes, TypeStats{InstanceType: it, Instances: e.pool[t],
			InstanceHours: round4(c.typeSec[t] / 3600), Utilization: round4(c.typeSec[t] / (float64(e.pool[t]) * span))})
		busy += c.typeSec[t]
		capacity += float64(e.pool[t])
	}
	r.Utilization = round4(busy / (capacity * span))
	for i, cl := range e.classes {
		g := c.classes[i].stats(cl.Name)
		r.Classes = append(r.Classes, g)
		r.waits = append(r.waits, c.classes[i].waits)
		r.Jobs += g.Jobs
		r.Completed += g.Completed
		r.Failed += g.Failed
		r.Preemptions += g.Preemptions
	}
	for i, t := range e.p.Teams {
		r.Teams = append(r.Teams, c.teams[i].stats(t.Name))
	}
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
