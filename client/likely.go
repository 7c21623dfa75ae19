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
//     minGroupSamples, of any class when its class has fewer);
//   - a running job runs what a job of that same pool ran beyond the time
//     it has already run (drawn among those that ran longer), at most to
//     its limit; when none ran longer, as long again as it has run;
//   - jobs of each class and team arrive as a Poisson process at the rate
//     they were submitted in the window, following the queue's daily cycle
//     (dailyCycle), each shaped like one of the group's recent jobs
//     (instance type, instances, priority, runtime).
// The figure is the median of the runs' starts, the range their 10th and
// 90th percentiles.

// minGroupSamples is the fewest runtimes a class and team (or a class)
// needs to be drawn from on its own.
const minGroupSamples = 5

// historyModel is a queue answer's history, ready to draw from.
type historyModel struct {
	// groups by class and team; classRuns and allRuns pool their runtimes.
	groups    map[[2]string]*histGroup
	classRuns map[string][]int64
	allRuns   []int64
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
	runs        []int64 // sorted
	shapes      []trace.Job
	// rate is the arrivals per second in each hour of the day (UTC), peak
	// the highest.
	rate [24]float64
	peak float64
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
	h := &historyModel{groups: map[[2]string]*histGroup{}, classRuns: map[string][]int64{}, teamClasses: map[string][]weighted{}}
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
			hg.runs = append(hg.runs, j.RunSeconds)
			if p.PoolInstances(j.InstanceType) > 0 {
				hg.shapes = append(hg.shapes, trace.Job{Duration: j.RunSeconds, Instances: max(1, j.Instances), InstanceType: j.InstanceType,
					Class: class.Name, Team: g.Team, Priority: requestPriority(class, j.SchedulingPriority)})
			}
		}
		slices.Sort(hg.runs)
		h.groups[[2]string{class.Name, g.Team}] = hg
		h.classRuns[class.Name] = append(h.classRuns[class.Name], hg.runs...)
		h.allRuns = append(h.allRuns, hg.runs...)
		classShapes[class.Name] = append(classShapes[class.Name], hg.shapes...)
		if hg.submitted > 0 {
			h.teamClasses[g.Team] = append(h.teamClasses[g.Team], weighted{class.Name, hg.submitted})
			h.allClasses = append(h.allClasses, weighted{class.Name, hg.submitted})
		}
		completed += max(0, g.Completed)
		submitted += hg.submitted
		samples += len(hg.runs)
	}
	if len(h.allRuns) == 0 {
		return nil, fmt.Sprintf("no history: no job completed from %s to %s to draw runtimes from", hs.From, hs.To)
	}
	for _, runs := range h.classRuns {
		slices.Sort(runs)
	}
	slices.Sort(h.allRuns)
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
		cycle := dailyCycle(hs.Groups)
		for hr := range 24 {
			hg.rate[hr] = float64(hg.submitted) / window * cycle[hr]
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
// the daily cycle toward the day's mean.
const cycleSmoothing = 2

// dailyCycle is the queue's daily cycle: for each hour of the day (UTC),
// its submissions (all classes and teams, each hour averaged with its
// neighbours, a thin hour pulled toward the mean) over the mean hour's;
// all 1 without submissionsByHour. One cycle for the whole queue: a class
// and team's own hours are too few to tell its cycle from noise.
func dailyCycle(groups []contract.HistoryGroup) [24]float64 {
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
	mean := total / 24
	for hr := range 24 {
		if total == 0 {
			out[hr] = 1
			continue
		}
		smoothed := (c[(hr+23)%24] + 2*c[hr] + c[(hr+1)%24]) / 4
		out[hr] = (smoothed + cycleSmoothing) / (mean + cycleSmoothing)
	}
	return out
}

// pools are the runtimes a job of class and team draws from, nearest first.
func (h *historyModel) pools(class, team string) [][]int64 {
	var out [][]int64
	if g := h.groups[[2]string{class, team}]; g != nil && len(g.runs) >= minGroupSamples {
		out = append(out, g.runs)
	}
	if r := h.classRuns[class]; len(r) >= minGroupSamples {
		out = append(out, r)
	}
	return append(out, h.allRuns)
}

// runtime draws how long a job of class and team runs.
func (h *historyModel) runtime(class, team string, rng *rand.Rand) int64 {
	pool := h.pools(class, team)[0]
	return pool[rng.IntN(len(pool))]
}

// remaining draws how much longer a job of class and team that has run
// elapsed seconds of its limit runs: what one of its pool's jobs that ran
// longer ran beyond elapsed, at most to the limit; as long again when none
// ran longer.
func (h *historyModel) remaining(class, team string, elapsed, limit int64, rng *rand.Rand) int64 {
	left := max(1, limit-elapsed)
	pool := h.pools(class, team)[0]
	i := sort.Search(len(pool), func(i int) bool { return pool[i] > elapsed })
	if n := len(pool) - i; n > 0 {
		return min(left, pool[i+rng.IntN(n)]-elapsed)
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
// median start and its range.
func (st *queueState) likely(p *platform.Platform, h *historyModel, opts EstimateOptions) (*LikelyStart, error) {
	runs := opts.Runs
	if runs <= 0 {
		runs = DefaultEstimateRuns
	}
	runs = min(runs, MaxEstimateRuns)
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	starts := make([]int64, 0, runs)
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
		for i, w := range st.waiting {
			j := w.job
			if w.unlisted {
				j.Class = h.drawClass(p, j.Team, j.Class, w.maxPrio, rng)
				c, _ := p.Class(j.Class)
				j.Priority = platform.DefaultRequestPriority
				if w.maxPrio >= 0 && c.SchedulingPriority(j.Priority) > w.maxPrio {
					j.Priority = requestPriority(c, w.maxPrio)
				}
			}
			j.Duration = h.runtime(j.Class, j.Team, rng)
			if w.shapeUnknown {
				if g := h.groups[[2]string{j.Class, j.Team}]; g != nil && len(g.shapes) > 0 {
					s := g.shapes[rng.IntN(len(g.shapes))]
					j.InstanceType, j.Instances, j.Duration = s.InstanceType, s.Instances, s.Duration
				}
			}
			from.Waiting[i] = j
		}
		w := newStartWatch()
		start, err := runTarget(p, from, newArrivals(h, st.at, rng, w), w)
		if err != nil {
			return nil, err
		}
		starts = append(starts, start)
	}
	// A run in which it never started counts as latest of all.
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
	l := &LikelyStart{Start: st.start(at(0.5), "if jobs run as long as recent jobs of their class and team ran "+
		"(running ones: as those that had run as long), and jobs arrive as often, as large and at the hours they did "+
		"(the median of the simulated runs; the range holds 80% of them)"),
		LowSeconds: at(0.1), HighSeconds: at(0.9), Runs: runs, History: h.desc}
	return l, nil
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
}

func newArrivals(h *historyModel, at time.Time, rng *rand.Rand, w *startWatch) *arrivals {
	a := &arrivals{h: h, rng: rng, w: w, hour: int64(at.UTC().Hour()*3600 + at.UTC().Minute()*60 + at.UTC().Second()), next: make([]float64, len(h.arrivals))}
	for i := range h.arrivals {
		a.next[i] = a.after(i, 0)
	}
	return a
}

// after draws group i's next arrival after t.
func (a *arrivals) after(i int, t float64) float64 {
	g := a.h.arrivals[i]
	for t <= MaxHorizonSeconds {
		t += a.rng.ExpFloat64() / g.peak
		hr := (a.hour + int64(t)) % 86400 / 3600
		if a.rng.Float64()*g.peak < g.rate[hr] {
			return t
		}
	}
	return t
}

func (a *arrivals) Next() (trace.Job, error) {
	if a.w.at >= 0 || a.n >= MaxArrivalsPerRun || len(a.next) == 0 {
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
	j.ID, j.Submit = fmt.Sprintf("a%d", a.n), int64(math.Ceil(t))
	a.next[first] = a.after(first, t)
	a.n++
	return j, nil
}
