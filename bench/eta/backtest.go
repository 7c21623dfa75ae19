// Package etabench backtests trainq status's start estimates: it replays a
// trace through the simulator, asks the estimator (client.EstimateStart)
// about sampled waiting jobs with only what it could have known at that
// moment — the queue as the queue action would have answered it, capped at
// its 100 jobs, and the history of the days before — and compares each
// figure with when the job really started in the same simulation.
// cmd/ runs it on a trace file and prints the table docs/submission.md
// quotes; run.sh runs it on the two traces the docs name.
//
// It must never import the AWS CDK, jsii or constructs.
package etabench

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// Options tune a backtest.
type Options struct {
	// Samples is how many waiting jobs to ask about (drawn evenly at
	// random among the jobs that waited at least MinWaitSeconds).
	Samples int
	// MinWaitSeconds is the shortest wait a sampled job had.
	MinWaitSeconds int64
	// At is the share of its wait after which a job is asked about
	// (0.25: a quarter of its wait).
	At float64
	// WindowDays is how many days of history the estimator gets.
	WindowDays int
	// Runs and Seed are the estimator's (client.EstimateOptions).
	Runs int
	Seed uint64
	// RandomMoments asks at moments drawn evenly over the trace, each
	// about a job drawn among those waiting then, instead of at At of
	// each sampled job's wait: the moment asked then says nothing of the
	// job's future (at a share of its wait, the remaining wait is always
	// (1−At)/At times the wait so far).
	RandomMoments bool
	// ListAll lists every job in the queue answer, as if the queue
	// action had no bound: what the bound costs the estimate.
	ListAll bool
}

// Sample is one question and its answer.
type Sample struct {
	Class string
	// Actual is the job's real remaining wait; Likely (−1: unavailable
	// or never) and Latest the estimates, seconds from the moment asked.
	Actual, Likely, Latest int64
	// Low and High are the likely start's range.
	Low, High int64
	// Queued is how many jobs the queue held (listed or not).
	Queued int
	// At is the moment asked, seconds from the trace's start.
	At int64
}

// job is a trace job with what the replay did to it.
type job struct {
	trace.Job
	prio     int // scheduling priority
	attempts [][2]int64
	first    int64 // first start, -1 never
	end      int64 // when it completed or failed
	done     bool
	ok       bool // completed
}

// recorder notes every attempt of every job.
type recorder struct {
	byID map[string]*job
}

func (r *recorder) Observe(e simulate.Event, _ *simulate.State) {
	j := r.byID[e.JobID]
	switch e.Kind {
	case simulate.EventStart:
		j.attempts = append(j.attempts, [2]int64{e.At, math.MaxInt64})
		if j.first < 0 {
			j.first = e.At
		}
	case simulate.EventPreempt, simulate.EventTimeout, simulate.EventComplete:
		j.attempts[len(j.attempts)-1][1] = e.At
		if e.Kind == simulate.EventComplete {
			j.end, j.done, j.ok = e.At, true, true
		}
	case simulate.EventFail:
		j.end, j.done = e.At, true
	}
}

// base is the replay's time 0 as a date, for the RFC 3339 fields.
var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func stamp(t int64) string { return base.Add(time.Duration(t) * time.Second).Format(time.RFC3339) }

// Run backtests the estimator on the jobs of a trace on platform p.
func Run(p *platform.Platform, src simulate.Source, opts Options, progress io.Writer) ([]Sample, error) {
	var jobs []*job
	byID := map[string]*job{}
	for {
		tj, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if _, dup := byID[tj.ID]; dup {
			return nil, fmt.Errorf("job_id %q appears twice: the backtest needs unique ids", tj.ID)
		}
		c, ok := p.Class(tj.Class)
		if !ok {
			return nil, fmt.Errorf("job %q: class %q not in the platform", tj.ID, tj.Class)
		}
		prio := tj.Priority
		if prio == trace.NoPriority {
			prio = platform.DefaultRequestPriority
		}
		j := &job{Job: tj, prio: c.SchedulingPriority(prio), first: -1}
		jobs = append(jobs, j)
		byID[tj.ID] = j
	}
	all := make([]trace.Job, len(jobs))
	for i, j := range jobs {
		all[i] = j.Job
	}
	if _, err := simulate.Run(p, &simulate.SliceSource{Jobs: all}, simulate.Options{Observer: &recorder{byID: byID}}); err != nil {
		return nil, fmt.Errorf("replay the trace: %w", err)
	}
	var cands []*job
	for _, j := range jobs {
		if j.first >= 0 && j.first-j.Submit >= max(1, opts.MinWaitSeconds) {
			cands = append(cands, j)
		}
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0xe7a))
	rng.Shuffle(len(cands), func(a, b int) { cands[a], cands[b] = cands[b], cands[a] })
	cands = cands[:min(len(cands), opts.Samples)]
	ats := make([]int64, len(cands))
	for i, target := range cands {
		ats[i] = target.Submit + int64(opts.At*float64(target.first-target.Submit))
	}
	if opts.RandomMoments && len(jobs) > 1 && len(cands) > 0 {
		// Moments drawn evenly from the first submission to the last, a
		// job drawn among those waiting then (moments with none are drawn
		// again, a bounded number of times).
		lo, hi := jobs[0].Submit, jobs[len(jobs)-1].Submit
		cands, ats = cands[:0], ats[:0]
		for tries := 0; len(cands) < opts.Samples && tries < 100*opts.Samples && hi > lo; tries++ {
			t := lo + rng.Int64N(hi-lo)
			var waiting []*job
			for _, j := range jobs {
				if j.Submit < t && j.first > t {
					waiting = append(waiting, j)
				}
			}
			if len(waiting) > 0 {
				cands = append(cands, waiting[rng.IntN(len(waiting))])
				ats = append(ats, t)
			}
		}
	}
	// The estimates, on every core: each is seeded, so the samples are the
	// same whatever the order.
	out := make([]Sample, len(cands))
	errs := make([]error, len(cands))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = sample(p, jobs, cands[i], ats[i], opts)
				mu.Lock()
				done++
				if progress != nil && done%50 == 0 {
					fmt.Fprintf(progress, "%d of %d estimates\n", done, len(cands))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range cands {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sample asks the estimator about target at time at.
func sample(p *platform.Platform, jobs []*job, target *job, at int64, opts Options) (Sample, error) {
	q, resp := queueAt(p, jobs, target, at, opts.WindowDays, opts.ListAll)
	e, err := client.EstimateStart(p, q, resp, client.EstimateOptions{Runs: opts.Runs, Seed: opts.Seed})
	if err != nil {
		return Sample{}, fmt.Errorf("estimate job %s at %d s: %w", target.ID, at, err)
	}
	s := Sample{Class: target.Class, Actual: target.first - at, Likely: -1, Latest: e.Latest.StartsInSeconds, Low: -1, High: -1,
		Queued: len(q.Jobs), At: at}
	for _, u := range q.Unlisted {
		s.Queued += u.Jobs
	}
	if e.Likely != nil {
		s.Likely, s.Low, s.High = e.Likely.StartsInSeconds, e.Likely.LowSeconds, e.Likely.HighSeconds
	}
	return s, nil
}

// queueAt is the queue action's answer at time at, as the function would
// give it, with the history of the windowDays before, and describe's
// answer for target.
func queueAt(p *platform.Platform, jobs []*job, target *job, at int64, windowDays int, listAll bool) (*contract.QueueView, *contract.Response) {
	type listed struct {
		j       *job
		running bool
		started int64
	}
	var running, waiting []listed
	from := max(0, at-int64(windowDays)*86400)
	type key struct{ class, team string }
	groups := map[key]*contract.HistoryGroup{}
	var order []key
	group := func(j *job) *contract.HistoryGroup {
		k := key{j.Class, j.Team}
		g := groups[k]
		if g == nil {
			g = &contract.HistoryGroup{Class: j.Class, Team: j.Team, Jobs: []contract.HistoryJob{}}
			groups[k] = g
			order = append(order, k)
		}
		return g
	}
	type ended struct {
		j   *job
		end int64
	}
	var completed []ended
	minutes := map[key]map[int64]bool{}
	for _, j := range jobs {
		if j.Submit >= from && j.Submit < at {
			g := group(j)
			g.Submitted++
			if g.SubmittedByHour == nil {
				g.SubmittedByHour = make([]int, 24)
			}
			g.SubmittedByHour[base.Add(time.Duration(j.Submit)*time.Second).Hour()]++
			k := key{j.Class, j.Team}
			if minutes[k] == nil {
				minutes[k] = map[int64]bool{}
			}
			if !minutes[k][j.Submit/60] {
				minutes[k][j.Submit/60] = true
				g.Batches++
			}
		}
		if j.done && j.ok && j.end >= from && j.end < at {
			group(j).Completed++
			completed = append(completed, ended{j, j.end})
		}
		if j.Submit > at || j.done && j.end <= at {
			continue
		}
		run := false
		for _, a := range j.attempts {
			if a[0] <= at && at < a[1] {
				running = append(running, listed{j, true, a[0]})
				run = true
			}
		}
		if !run {
			waiting = append(waiting, listed{j: j})
		}
	}
	// The most recent completions first, MaxHistorySamples per group.
	sort.SliceStable(completed, func(a, b int) bool { return completed[a].end > completed[b].end })
	for _, c := range completed {
		g := group(c.j)
		if len(g.Jobs) < contract.MaxHistorySamples {
			g.Jobs = append(g.Jobs, contract.HistoryJob{InstanceType: c.j.InstanceType, Instances: c.j.Instances,
				SchedulingPriority: c.j.prio, RunSeconds: c.j.Duration})
		}
	}
	q := &contract.QueueView{JobQueue: "backtest", At: stamp(at), Scope: "backtest", Jobs: []contract.QueueJob{}}
	if at > from {
		h := &contract.History{Source: "replayed trace", From: stamp(from), To: stamp(at), Groups: []contract.HistoryGroup{}}
		for _, k := range order {
			h.Groups = append(h.Groups, *groups[k])
		}
		q.History = h
	} else {
		q.NoHistory = "the trace has no past at this moment"
	}
	// The queue action's order: running by start, then the queue's
	// (priority, then oldest first), at most MaxQueueJobs.
	sort.SliceStable(running, func(a, b int) bool { return running[a].started < running[b].started })
	sort.SliceStable(waiting, func(a, b int) bool {
		if waiting[a].j.prio != waiting[b].j.prio {
			return waiting[a].j.prio > waiting[b].j.prio
		}
		return waiting[a].j.Submit < waiting[b].j.Submit
	})
	unlisted := map[[3]string]*contract.QueueCount{}
	var ukeys [][3]string
	resp := &contract.Response{JobID: target.ID, Team: target.Team, Class: target.Class, SchedulingPriority: target.prio, Status: "RUNNABLE"}
	for i, l := range append(running, waiting...) {
		status := "RUNNABLE"
		if l.running {
			status = "RUNNING"
		}
		pos := 0
		if !l.running && i-len(running) < 100 {
			pos = i - len(running) + 1
		}
		if l.j == target {
			resp.Explanation = &contract.Explanation{InstanceType: target.InstanceType, Instances: target.Instances, QueuePosition: pos}
		}
		if len(q.Jobs) == contract.MaxQueueJobs && !listAll {
			// As Batch's summaries: a waiting job's type and instances
			// are unknown.
			it, n := l.j.InstanceType, l.j.Instances
			if !l.running {
				it, n = "", 0
			}
			k := [3]string{status, l.j.Team, it}
			u := unlisted[k]
			if u == nil {
				u = &contract.QueueCount{Status: status, Team: l.j.Team, InstanceType: it}
				unlisted[k] = u
				ukeys = append(ukeys, k)
			}
			u.Jobs++
			u.Instances += n
			q.Truncated = true
			continue
		}
		c, _ := p.Class(l.j.Class)
		qj := contract.QueueJob{JobID: l.j.ID, Team: l.j.Team, Class: l.j.Class, Status: status, SchedulingPriority: l.j.prio,
			InstanceType: l.j.InstanceType, Instances: l.j.Instances, MaxRuntimeSeconds: c.MaxRuntimeSeconds, AgeSeconds: at - l.j.Submit,
			QueuePosition: pos}
		if l.running {
			qj.RunningSeconds = at - l.started
		}
		q.Jobs = append(q.Jobs, qj)
	}
	for _, k := range ukeys {
		q.Unlisted = append(q.Unlisted, *unlisted[k])
	}
	return q, resp
}

// Row is one line of the report: an estimator on the samples of a class
// (or all).
type Row struct {
	Estimator, Class string
	N                int
	// ActualMedianHours is the median real remaining wait.
	ActualMedianHours float64
	// Ratio percentiles of estimate/actual.
	P10, P50, P90 float64
	// Within25 and Within50 are the shares within ±25% and ±50%.
	Within25, Within50 float64
	// Early is the share of estimates earlier than reality (the latest
	// start beaten); Covered the share of samples with a figure; InRange
	// the share whose actual wait fell in the likely range.
	Early, Covered, InRange float64
}

// Report summarizes samples per estimator and class, classes in platform
// order, then all.
func Report(p *platform.Platform, samples []Sample) []Row {
	var rows []Row
	for _, est := range []string{"likely", "latest"} {
		for _, class := range append(p.ClassNames(), "all") {
			var ratios []float64
			var actual []float64
			r := Row{Estimator: est, Class: class}
			in, early, n := 0, 0, 0
			for _, s := range samples {
				if class != "all" && s.Class != class {
					continue
				}
				n++
				v := s.Likely
				if est == "latest" {
					v = s.Latest
				}
				if v < 0 {
					continue
				}
				ratio := float64(v) / float64(s.Actual)
				ratios = append(ratios, ratio)
				actual = append(actual, float64(s.Actual)/3600)
				if ratio >= 0.75 && ratio <= 1.25 {
					r.Within25++
				}
				if ratio >= 0.5 && ratio <= 1.5 {
					r.Within50++
				}
				if v < s.Actual {
					early++
				}
				if est == "likely" && s.Low <= s.Actual && (s.High < 0 || s.Actual <= s.High) {
					in++
				}
			}
			if n == 0 {
				continue
			}
			r.N = len(ratios)
			r.Covered = float64(len(ratios)) / float64(n)
			if len(ratios) > 0 {
				slices.Sort(ratios)
				slices.Sort(actual)
				k := float64(len(ratios))
				r.P10, r.P50, r.P90 = pct(ratios, 0.1), pct(ratios, 0.5), pct(ratios, 0.9)
				r.ActualMedianHours = pct(actual, 0.5)
				r.Within25 /= k
				r.Within50 /= k
				r.Early = float64(early) / k
				r.InRange = float64(in) / k
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// pct is the q-quantile of sorted xs (nearest rank).
func pct(xs []float64, q float64) float64 {
	return xs[min(len(xs)-1, int(math.Floor(q*float64(len(xs)))))]
}

// WriteTable prints rows as a Markdown table.
func WriteTable(w io.Writer, rows []Row) error {
	fmt.Fprintln(w, "| estimator | class | samples | actual remaining wait, median | estimate / actual, median [p10, p90] | within ±25% | within ±50% | earlier than reality | actual in the likely range |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		inRange := "—"
		if r.Estimator == "likely" {
			inRange = fmt.Sprintf("%.0f%%", 100*r.InRange)
		}
		n := fmt.Sprint(r.N)
		if r.Covered < 1 {
			n += fmt.Sprintf(" (%.0f%% had a figure)", 100*r.Covered)
		}
		if _, err := fmt.Fprintf(w, "| %s | %s | %s | %.2f h | %s [%s, %s] | %.0f%% | %.0f%% | %.0f%% | %s |\n", r.Estimator, r.Class, n, r.ActualMedianHours,
			ratio(r.P50), ratio(r.P10), ratio(r.P90), 100*r.Within25, 100*r.Within50, 100*r.Early, inRange); err != nil {
			return err
		}
	}
	return nil
}

func ratio(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
