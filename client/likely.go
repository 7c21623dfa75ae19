package client

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// The likely start: many quick simulator runs from the present queue, each
// with runtimes and future arrivals drawn from the queue's recent history
// (contract.History, which the function fills from the job ledger):
//   - a waiting job runs for the runtime of a recent completed job of its
//     class and team (of its class when its team has fewer than
//     minGroupSamples, of any class when its class has fewer), smoothed by
//     a log-normal kernel (runPool.draw);
//   - a running job runs such a runtime drawn among those longer than the
//     time it has already run, less that time, at most to its limit; when
//     no past job of its pool ran longer, as long again as it has run;
//   - jobs of each class and team arrive in batches (a sweep submitted at
//     once: as many per batch, on average, as the history's submissions
//     per batch), the batches a Poisson process at the rate they were
//     submitted in the window, following the queue's daily cycle
//     (dailyCycle), each batch shaped like one of the group's recent jobs
//     (instance type, instances, priority), each job its own runtime;
//   - each run's rate is the history's times a log-normal factor
//     (rateSpread): the coming hours are busier or quieter than the
//     window's average.
// The figure is the likelyQuantile of the runs' starts, the range their
// 10th and 90th percentiles.

// minGroupSamples is the fewest runtimes a class and team (or a class)
// needs to be drawn from on its own.
const minGroupSamples = 5

// rateSpread is the σ of the log of a run's arrival-rate factor (its mean
// is 1). Without it the runs were too alike: in the backtest
// (bench/eta) the real start fell outside the runs' 10th–90th range more
// often than 20% of the time, on both traces.
const rateSpread = 0.5

// likelyQuantile is the runs' start the likely start gives: the 40th
// percentile, not the median. A figure within ±50% of the real wait A is
// one in [A/2, 1.5A], that is A in [e/1.5, 2e], a window reaching further
// above e than below it: for the right-skewed starts of the runs the
// figure with the most runs in that window lies below their median.
const likelyQuantile = 0.4

// historyModel is a queue answer's history, ready to draw from.
type historyModel struct {
	// groups by class and team; classRuns and allRuns pool their runtimes.
	groups    map[[2]string]*histGroup
	classRuns map[string]*runPool
	allRuns   runPool
	// arrivals are the groups jobs arrive in (a rate and shapes).
	arrivals []*histGroup
	// teamClasses is, per team, the classes it submitted, weighted by
	// count.
	teamClasses map[string][]weighted
	allClasses  []weighted
	desc        string
}

type histGroup struct {
	class, team string
	submitted   int
	runs        runPool
	shapes      []trace.Job
	// rate is the arrivals per second in each hour of the day (UTC), peak
	// the highest.
	rate [24]float64
	peak float64
	// batch is the mean number of jobs submitted together (1: one by one).
	batch float64
}

type weighted struct {
	class string
	n     int
}

// newHistoryModel reads q's history; nil and why when there is none to
// draw from.
func newHistoryModel(p *platform.Platform, q *contract.QueueView) (*historyModel, string) {
	hs := q.History
	if hs == nil {
		if q.NoHistory != "" {
			return nil, "no history: " + q.NoHistory
		}
		return nil, "no history: the function's queue answer carried none (is it older than the history?)"
	}
	from, err1 := time.Parse(time.RFC3339, hs.From)
	to, err2 := time.Parse(time.RFC3339, hs.To)
	window := to.Sub(from).Seconds()
	if err1 != nil || err2 != nil || window <= 0 {
		return nil, fmt.Sprintf("no history: its window %q to %q is not a range of RFC 3339 times", hs.From, hs.To)
	}
	h := &historyModel{groups: map[[2]string]*histGroup{}, classRuns: map[string]*runPool{}, teamClasses: map[string][]weighted{}}
	completed, submitted, samples := 0, 0, 0
	classShapes := map[string][]trace.Job{}
	for i, g := range hs.Groups {
		if i == contract.MaxHistoryGroups {
			break
		}
		class, ok := p.Class(g.Class)
		if _, known := p.Team(g.Team); !ok || !known {
			continue
		}
		hg := &histGroup{class: class.Name, team: g.Team, submitted: max(0, g.Submitted)}
		for k, j := range g.Jobs {
			if k == contract.MaxHistorySamples || j.RunSeconds <= 0 {
				continue
			}
			hg.runs.runs = append(hg.runs.runs, j.RunSeconds)
			if p.PoolInstances(j.InstanceType) > 0 {
				hg.shapes = append(hg.shapes, trace.Job{Duration: j.RunSeconds, Instances: max(1, j.Instances), InstanceType: j.InstanceType,
					Class: class.Name, Team: g.Team, Priority: requestPriority(class, j.SchedulingPriority)})
			}
		}
		hg.runs.sort()
		h.groups[[2]string{class.Name, g.Team}] = hg
		if h.classRuns[class.Name] == nil {
			h.classRuns[class.Name] = &runPool{}
		}
		h.classRuns[class.Name].runs = append(h.classRuns[class.Name].runs, hg.runs.runs...)
		h.allRuns.runs = append(h.allRuns.runs, hg.runs.runs...)
		classShapes[class.Name] = append(classShapes[class.Name], hg.shapes...)
		if hg.submitted > 0 {
			h.teamClasses[g.Team] = append(h.teamClasses[g.Team], weighted{class.Name, hg.submitted})
			h.allClasses = append(h.allClasses, weighted{class.Name, hg.submitted})
		}
		completed += max(0, g.Completed)
		submitted += hg.submitted
		samples += len(hg.runs.runs)
	}
	if len(h.allRuns.runs) == 0 {
		return nil, fmt.Sprintf("no history: no job completed from %s to %s to draw runtimes from", hs.From, hs.To)
	}
	for _, runs := range h.classRuns {
		runs.sort()
	}
	h.allRuns.sort()
	cycle := dailyCycle(hs.Groups, from, to)
	// Deterministic order: the history's own.
	for i, g := range hs.Groups {
		if i == contract.MaxHistoryGroups {
			break
		}
		hg, ok := h.groups[[2]string{g.Class, g.Team}]
		if !ok || hg.submitted == 0 || slices.Contains(h.arrivals, hg) {
			continue
		}
		if len(hg.shapes) == 0 {
			// Its jobs are shaped like its class's, in its own team.
			for _, s := range classShapes[hg.class] {
				s.Team = hg.team
				hg.shapes = append(hg.shapes, s)
			}
		}
		if len(hg.shapes) == 0 {
			continue
		}
		hg.batch = 1
		if b := g.Batches; b > 0 && b <= hg.submitted {
			hg.batch = float64(hg.submitted) / float64(b)
		}
		for hr := range 24 {
			hg.rate[hr] = float64(hg.submitted) / hg.batch / window * cycle[hr]
			hg.peak = max(hg.peak, hg.rate[hr])
		}
		if hg.peak > 0 {
			h.arrivals = append(h.arrivals, hg)
		}
	}
	h.desc = fmt.Sprintf("%s, %s to %s (%.1f days): runtimes of %d of the %d jobs completed, arrivals at the rate of the %d submitted",
		hs.Source, hs.From, hs.To, window/86400, samples, completed, submitted)
	return h, ""
}

// cycleSmoothing is the pseudo-count that pulls a thinly observed hour of
// the daily cycle toward the window's mean rate.
const cycleSmoothing = 2

// dailyCycle is the queue's daily cycle: for each hour of the day (UTC),
// the rate of submissions in it (all classes and teams) over the window's
// mean rate; all 1 without submissionsByHour. An hour's rate is its
// submissions over the time the window spent in that hour of the day (its
// exposure: a window of 2.5 days holds some hours three times, others
// twice, and one shorter than a day holds some hours not at all), each
// averaged with its neighbours' and pulled toward the mean by
// cycleSmoothing submissions at the mean rate: an hour the window never
// held is at the mean, not empty. One cycle for the whole queue: a class
// and team's own hours are too few to tell its cycle from noise.
func dailyCycle(groups []contract.HistoryGroup, from, to time.Time) [24]float64 {
	var c [24]float64
	total := 0.0
	for i, g := range groups {
		if i == contract.MaxHistoryGroups || len(g.SubmittedByHour) != 24 {
			continue
		}
		for hr, n := range g.SubmittedByHour {
			c[hr] += float64(max(0, n))
			total += float64(max(0, n))
		}
	}
	var out [24]float64
	e := hourExposure(from, to)
	hours := to.Sub(from).Hours()
	for hr := range 24 {
		if total == 0 || hours <= 0 {
			out[hr] = 1
			continue
		}
		prev, next := (hr+23)%24, (hr+1)%24
		sc := (c[prev] + 2*c[hr] + c[next]) / 4
		se := (e[prev] + 2*e[hr] + e[next]) / 4
		// Submissions expected in se hours at the mean rate total/hours.
		expected := se * total / hours
		out[hr] = (sc + cycleSmoothing) / (expected + cycleSmoothing)
	}
	return out
}

// hourExposure is, for each hour of the day (UTC), how many hours of
// [from, to) fell in it.
func hourExposure(from, to time.Time) [24]float64 {
	var e [24]float64
	if !to.After(from) {
		return e
	}
	from, to = from.UTC(), to.UTC()
	days := math.Floor(to.Sub(from).Hours() / 24)
	for hr := range 24 {
		e[hr] = days
	}
	// The rest, less than a day, hour slot by hour slot.
	for t := from.Add(time.Duration(days) * 24 * time.Hour); t.Before(to); {
		next := t.Truncate(time.Hour).Add(time.Hour)
		if next.After(to) {
			next = to
		}
		e[t.Hour()] += next.Sub(t).Hours()
		t = next
	}
	return e
}

// runPool is the runtimes of a group of recent completed jobs, sorted,
// and the width of the kernel that smooths them.
type runPool struct {
	runs []int64
	// bw is the kernel's width on the log of a runtime: Silverman's rule,
	// 0.9 min(σ, IQR/1.34) n^(-1/5), over the logs of runs.
	bw float64
}

// sort sorts the runtimes and sets the kernel's width.
func (p *runPool) sort() {
	slices.Sort(p.runs)
	n := len(p.runs)
	if n < 2 {
		p.bw = 0
		return
	}
	logs := make([]float64, n)
	mean := 0.0
	for i, r := range p.runs {
		logs[i] = math.Log(float64(max(1, r)))
		mean += logs[i]
	}
	mean /= float64(n)
	ss := 0.0
	for _, l := range logs {
		ss += (l - mean) * (l - mean)
	}
	spread := math.Sqrt(ss / float64(n-1))
	if spread < 1e-9 {
		// Equal runtimes (their logs' mean may differ from each by a
		// rounding): no spread.
		p.bw = 0
		return
	}
	if iqr := (logs[3*n/4] - logs[n/4]) / 1.34; iqr > 0 && iqr < spread {
		spread = iqr
	}
	p.bw = 0.9 * spread * math.Pow(float64(n), -0.2)
}

// draw is one runtime: a recent job's, scaled by e^(bw·Z), Z standard
// normal. A runtime is never exactly one of a few dozen past ones: the
// kernel fills the gaps between them, so that the first of many running
// jobs to end is not held to the nearest past runtime above its elapsed
// time.
func (p *runPool) draw(rng *rand.Rand) int64 {
	r := p.runs[rng.IntN(len(p.runs))]
	if p.bw == 0 {
		return r
	}
	return max(1, int64(math.Round(float64(r)*math.Exp(p.bw*rng.NormFloat64()))))
}

// pool is the runtimes a job of class and team draws from: its class and
// team's when they are at least minGroupSamples, else its class's, else
// every class's.
func (h *historyModel) pool(class, team string) *runPool {
	if g := h.groups[[2]string{class, team}]; g != nil && len(g.runs.runs) >= minGroupSamples {
		return &g.runs
	}
	if r := h.classRuns[class]; r != nil && len(r.runs) >= minGroupSamples {
		return r
	}
	return &h.allRuns
}

// runtime draws how long a job of class and team runs.
func (h *historyModel) runtime(class, team string, rng *rand.Rand) int64 {
	return h.pool(class, team).draw(rng)
}

// conditionedDraws is how many draws remaining makes before it falls
// back to the past runtimes above the elapsed time.
const conditionedDraws = 64

// remaining draws how much longer a job of class and team that has run
// elapsed seconds of its limit runs: a runtime drawn from its pool among
// those longer than elapsed, less elapsed, at most to the limit; as long
// again when no past job of the pool ran longer.
func (h *historyModel) remaining(class, team string, elapsed, limit int64, rng *rand.Rand) int64 {
	left := max(1, limit-elapsed)
	p := h.pool(class, team)
	for range conditionedDraws {
		if r := p.draw(rng); r > elapsed {
			return min(left, r-elapsed)
		}
	}
	i := sort.Search(len(p.runs), func(i int) bool { return p.runs[i] > elapsed })
	if n := len(p.runs) - i; n > 0 {
		return min(left, p.runs[i+rng.IntN(n)]-elapsed)
	}
	return min(left, max(1, elapsed))
}

// drawClass draws the class of a job of team whose class is unknown, in
// proportion to what the team submitted (else everyone), among the classes
// whose band reaches down to maxPrio (-1: any); else fallback.
func (h *historyModel) drawClass(p *platform.Platform, team, fallback string, maxPrio int, rng *rand.Rand) string {
	fits := func(ws []weighted) ([]weighted, int) {
		var out []weighted
		total := 0
		for _, w := range ws {
			if c, _ := p.Class(w.class); maxPrio < 0 || c.SchedulingPriority(0) <= maxPrio {
				out = append(out, w)
				total += w.n
			}
		}
		return out, total
	}
	ws, total := fits(h.teamClasses[team])
	if total == 0 {
		ws, total = fits(h.allClasses)
	}
	if total == 0 {
		return fallback
	}
	r := rng.IntN(total)
	for _, w := range ws {
		if r < w.n {
			return w.class
		}
		r -= w.n
	}
	return fallback
}

// likely runs the queue opts.Runs times with draws from h and returns the
// target's likely start and its range.
func (st *queueState) likely(p *platform.Platform, h *historyModel, opts EstimateOptions) (*LikelyStart, error) {
	w := newStartWatch([]string{targetID})
	starts, err := st.likelyRuns(p, h, opts, w)
	if err != nil {
		return nil, err
	}
	start, low, high := likelyOf(starts[0])
	return &LikelyStart{Start: st.start(start, likelyAssumption), LowSeconds: low, HighSeconds: high, Runs: len(starts[0]), History: h.desc}, nil
}

// likelyAssumption is printed next to the likely start.
const likelyAssumption = "if jobs run as long as recent jobs of their class and team ran " +
	"(running ones: as those that had run as long), and jobs arrive as often, in batches as large and at the hours they did " +
	"(40% of the simulated runs start it sooner; the range holds 80% of them)"

// likelyRuns runs the queue opts.Runs times with draws from h, each run
// drawing arrivals until every job w watches has started, and returns for
// each watched job its start in every run (-1: never).
func (st *queueState) likelyRuns(p *platform.Platform, h *historyModel, opts EstimateOptions, w *startWatch) ([][]int64, error) {
	runs := opts.Runs
	if runs <= 0 {
		runs = DefaultEstimateRuns
	}
	runs = min(runs, MaxEstimateRuns)
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	starts := make([][]int64, len(w.at))
	for i := range starts {
		starts[i] = make([]int64, 0, runs)
	}
	from := simulate.From{Placed: make([]simulate.Placed, len(st.placed)), Waiting: make([]trace.Job, len(st.waiting))}
	for r := range runs {
		rng := rand.New(rand.NewPCG(seed, uint64(r)))
		for i, pj := range st.placed {
			j := pj.job
			elapsed := pj.elapsed
			if pj.unlisted {
				j.Class = h.drawClass(p, j.Team, j.Class, -1, rng)
				c, _ := p.Class(j.Class)
				elapsed = int64(rng.Float64() * float64(pj.newest))
				j.Duration = h.remaining(j.Class, j.Team, elapsed, int64(c.MaxRuntimeSeconds), rng)
			} else {
				j.Duration = h.remaining(j.Class, j.Team, pj.elapsed, pj.limit, rng)
			}
			from.Placed[i] = simulate.Placed{Job: j, Elapsed: elapsed}
		}
		for i, wj := range st.waiting {
			j := wj.job
			if wj.unlisted {
				j.Class = h.drawClass(p, j.Team, j.Class, wj.maxPrio, rng)
				c, _ := p.Class(j.Class)
				j.Priority = platform.DefaultRequestPriority
				if wj.maxPrio >= 0 && c.SchedulingPriority(j.Priority) > wj.maxPrio {
					j.Priority = requestPriority(c, wj.maxPrio)
				}
			}
			j.Duration = h.runtime(j.Class, j.Team, rng)
			if wj.shapeUnknown {
				if g := h.groups[[2]string{j.Class, j.Team}]; g != nil && len(g.shapes) > 0 {
					s := g.shapes[rng.IntN(len(g.shapes))]
					j.InstanceType, j.Instances, j.Duration = s.InstanceType, s.Instances, s.Duration
				}
			}
			from.Waiting[i] = j
		}
		if err := runWatched(p, from, newArrivals(h, st.at, rng, w), w); err != nil {
			return nil, err
		}
		for i, at := range w.at {
			starts[i] = append(starts[i], at)
		}
	}
	return starts, nil
}

// likelyOf is the likely start of a job that started at starts in the
// runs (-1: never; counted as latest of all): their likelyQuantile, and
// their 10th and 90th percentiles. It sorts starts.
func likelyOf(starts []int64) (start, low, high int64) {
	slices.SortFunc(starts, func(a, b int64) int {
		if (a < 0) != (b < 0) {
			if a < 0 {
				return 1
			}
			return -1
		}
		return int(a - b)
	})
	at := func(q float64) int64 { return starts[min(len(starts)-1, int(math.Floor(q*float64(len(starts)))))] }
	return at(likelyQuantile), at(0.1), at(0.9)
}

// arrivals is a Source of jobs drawn from history: a Poisson process per
// class and team whose rate follows the hour of the day (drawn at the
// peak rate and thinned), until the target has started, MaxHorizonSeconds
// or MaxArrivalsPerRun.
type arrivals struct {
	h    *historyModel
	rng  *rand.Rand
	w    *startWatch
	hour int64 // the hour of the day at time 0, in seconds since midnight UTC
	next []float64
	n    int
	// pending are the rest of the batch last drawn, all at pendingAt.
	pending   []trace.Job
	pendingAt int64
	// mult scales every group's rate in this run.
	mult float64
}

func newArrivals(h *historyModel, at time.Time, rng *rand.Rand, w *startWatch) *arrivals {
	a := &arrivals{h: h, rng: rng, w: w, hour: int64(at.UTC().Hour()*3600 + at.UTC().Minute()*60 + at.UTC().Second()), next: make([]float64, len(h.arrivals))}
	// The whole run's rate, in mean the history's.
	a.mult = math.Exp(rateSpread*rng.NormFloat64() - rateSpread*rateSpread/2)
	for i := range h.arrivals {
		a.next[i] = a.after(i, 0)
	}
	return a
}

// after draws group i's next arrival after t.
func (a *arrivals) after(i int, t float64) float64 {
	g := a.h.arrivals[i]
	for t <= MaxHorizonSeconds {
		t += a.rng.ExpFloat64() / g.peak / a.mult
		hr := (a.hour + int64(t)) % 86400 / 3600
		if a.rng.Float64()*g.peak < g.rate[hr] {
			return t
		}
	}
	return t
}

func (a *arrivals) Next() (trace.Job, error) {
	if a.w.done() || a.n >= MaxArrivalsPerRun {
		return trace.Job{}, io.EOF
	}
	if len(a.pending) > 0 {
		j := a.pending[0]
		a.pending = a.pending[1:]
		j.ID, j.Submit = fmt.Sprintf("a%d", a.n), a.pendingAt
		a.n++
		return j, nil
	}
	if len(a.next) == 0 {
		return trace.Job{}, io.EOF
	}
	first := 0
	for i, t := range a.next {
		if t < a.next[first] {
			first = i
		}
	}
	t := a.next[first]
	if t > MaxHorizonSeconds {
		return trace.Job{}, io.EOF
	}
	g := a.h.arrivals[first]
	j := g.shapes[a.rng.IntN(len(g.shapes))]
	a.next[first] = a.after(first, t)
	// A batch: geometric in size with the group's mean, the jobs alike in
	// shape and priority, each running its own drawn runtime.
	n := 1
	if g.batch > 1 {
		n = 1 + int(math.Floor(math.Log(1-a.rng.Float64())/math.Log(1-1/g.batch)))
	}
	a.pendingAt = int64(math.Ceil(t))
	for k := 1; k < n; k++ {
		b := j
		b.Duration = a.h.runtime(g.class, g.team, a.rng)
		a.pending = append(a.pending, b)
	}
	if n > 1 {
		j.Duration = a.h.runtime(g.class, g.team, a.rng)
	}
	j.ID, j.Submit = fmt.Sprintf("a%d", a.n), a.pendingAt
	a.n++
	return j, nil
}
