package simulate

import (
	"math"
	"slices"
	"sort"

	"github.com/trainq/trainq/alarms"
	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// AlarmRecorder is an Observer that keeps what trainq's functions would have
// written during a run, so that the platform's alarm rules (package alarms)
// can be evaluated over it before a deploy: the poller's backlog and
// capacity gauges once a minute (RunnableJobs and OldestRunnableSeconds of
// the queue, of each class by room in its team's quota, and of each
// instance type; CapacityUtilization of the queue and of each type) and
// the observer's JobsFailed by class and fault, and its heartbeat every
// minute (a healthy pipeline). A failure the door would refuse (a job that
// can never fit) is no Batch job and counts nowhere.
//
// It keeps each wait and each change of the capacity in use: memory linear
// in the trace, unlike the run itself.
type AlarmRecorder struct {
	p        *platform.Platform
	waiting  map[string]*waitSeg
	segs     []waitSeg
	usage    []usageAt
	failures []failureAt
	first    int64
	last     int64
	seen     bool
}

// waitSeg is a job waiting for instanceType from from to to (unknown, -1,
// while it waits), runnable since since.
type waitSeg struct {
	team, class, typ int
	instances        int
	since, from, to  int64
}

// usageAt is the capacity in use from at on: per type, and per team and
// type.
type usageAt struct {
	at       int64
	used     []int
	teamUsed [][]int
}

type failureAt struct {
	at    int64
	class int
	fault string
}

// NewAlarmRecorder returns a recorder for a run of p.
func NewAlarmRecorder(p *platform.Platform) *AlarmRecorder {
	return &AlarmRecorder{p: p, waiting: map[string]*waitSeg{}}
}

// Observe implements Observer.
func (r *AlarmRecorder) Observe(e Event, s *State) {
	if !r.seen || e.Submit < r.first {
		r.first = e.Submit
	}
	r.seen = true
	r.last = max(r.last, e.At)
	team, class, typ := slices.Index(s.Teams, e.Team), slices.Index(r.p.ClassNames(), e.Class), slices.Index(s.Types, e.InstanceType)
	open := func(since int64) {
		r.waiting[e.JobID] = &waitSeg{team: team, class: class, typ: typ, instances: e.Instances, since: since, from: e.At, to: -1}
	}
	closeSeg := func() (since int64, ok bool) {
		w, ok := r.waiting[e.JobID]
		if !ok {
			return 0, false
		}
		w.to = e.At
		r.segs = append(r.segs, *w)
		delete(r.waiting, e.JobID)
		return w.since, true
	}
	switch e.Kind {
	case EventStart:
		if _, ok := closeSeg(); !ok {
			// The first start: the job waited from its submission.
			r.segs = append(r.segs, waitSeg{team: team, class: class, typ: typ, instances: e.Instances, since: e.Submit, from: e.Submit, to: e.At})
		}
	case EventPreempt, EventTimeout:
		// Runnable again from now (a last one is followed by EventFail).
		open(e.At)
	case EventMove:
		since, ok := closeSeg()
		if !ok {
			since = e.Submit
			r.segs = append(r.segs, waitSeg{team: team, class: class, typ: slices.Index(s.Types, e.From), instances: e.Instances, since: since, from: e.Submit, to: e.At})
		}
		open(since)
	case EventFail:
		if _, ok := closeSeg(); !ok && e.At == e.Submit {
			// It never fit: trainq's door refuses it, no Batch job fails.
			return
		}
		// The simulator fails jobs only for the platform's reasons (time
		// limits, preemption retries exhausted), never for their own code.
		r.failures = append(r.failures, failureAt{at: e.At, class: class, fault: metrics.FaultPlatform})
	}
	r.usage = append(r.usage, usageAt{at: e.At, used: slices.Clone(s.Used), teamUsed: cloneGrid(s.TeamUsed)})
}

func cloneGrid(g [][]int) [][]int {
	out := make([][]int, len(g))
	for i := range g {
		out[i] = slices.Clone(g[i])
	}
	return out
}

// AlarmSeries are the per-minute metric values a recorded run would have
// written, from Start (a whole minute) for Minutes minutes.
type AlarmSeries struct {
	Start   int64
	Minutes int
	values  map[string][]float64
}

// seriesKey names a metric and its dimensions beyond Queue.
func seriesKey(m metrics.Metric, dims map[string]string) string {
	keys := make([]string, 0, len(dims))
	for k := range dims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := m.Name
	for _, k := range keys {
		s += "," + k + "=" + dims[k]
	}
	return s
}

// Term is the per-minute values of t (alarms.Series), nil when the
// functions would never write it.
func (a *AlarmSeries) Term(t alarms.Term) []float64 {
	if t.Resource != "" {
		return nil
	}
	return a.values[seriesKey(t.Metric, t.Dimensions)]
}

// Series computes the recorded run's per-minute values.
func (r *AlarmRecorder) Series() *AlarmSeries {
	for _, w := range r.waiting {
		w.to = r.last
		r.segs = append(r.segs, *w)
	}
	r.waiting = map[string]*waitSeg{}
	start := r.first - ((r.first%60)+60)%60
	minutes := int((r.last-start)/60) + 1
	a := &AlarmSeries{Start: start, Minutes: minutes, values: map[string][]float64{}}
	set := func(m metrics.Metric, dims map[string]string, i int, v float64) {
		k := seriesKey(m, dims)
		s := a.values[k]
		if s == nil {
			s = make([]float64, minutes)
			for j := range s {
				s[j] = math.NaN()
			}
			a.values[k] = s
		}
		if math.IsNaN(s[i]) {
			s[i] = 0
		}
		s[i] += v
	}
	classes := r.p.ClassNames()
	types := r.p.InstanceTypes()
	teams := r.p.TeamNames()

	// The observer: failures, and a heartbeat every minute.
	for i := range minutes {
		set(metrics.ObserverHeartbeats, nil, i, 1)
	}
	for _, f := range r.failures {
		if f.class < 0 {
			continue
		}
		set(metrics.JobsFailed, map[string]string{metrics.Class: classes[f.class], metrics.Fault: f.fault}, int((f.at-start)/60), 1)
	}

	// The poller, at each minute: the state after every event before it.
	slices.SortStableFunc(r.segs, func(x, y waitSeg) int { return compare(x.from, y.from) })
	var active []waitSeg
	next, u := 0, -1
	for i := range minutes {
		t := start + int64(i)*60
		for u+1 < len(r.usage) && r.usage[u+1].at < t {
			u++
		}
		for next < len(r.segs) && r.segs[next].from <= t {
			active = append(active, r.segs[next])
			next++
		}
		active = slices.DeleteFunc(active, func(w waitSeg) bool { return w.to <= t })
		var used []int
		var teamUsed [][]int
		if u >= 0 {
			used, teamUsed = r.usage[u].used, r.usage[u].teamUsed
		}
		usage := &batchrules.Usage{ByType: map[string]float64{}, ByShare: map[string]map[string]float64{}}
		for ti, typ := range types {
			if used != nil {
				usage.ByType[typ] = float64(used[ti])
			}
			for mi, team := range teams {
				if teamUsed == nil {
					continue
				}
				if usage.ByShare[team] == nil {
					usage.ByShare[team] = map[string]float64{}
				}
				usage.ByShare[team][typ] = float64(teamUsed[mi][ti])
			}
		}
		type group struct {
			n      int
			oldest float64
		}
		groups := map[string]*group{}
		add := func(key string, w waitSeg) {
			g := groups[key]
			if g == nil {
				g = &group{}
				groups[key] = g
			}
			g.n++
			g.oldest = max(g.oldest, float64(t-w.since))
		}
		for _, w := range active {
			add("", w)
			if w.typ >= 0 {
				add("t"+types[w.typ], w)
			}
			if w.class >= 0 && w.team >= 0 && w.typ >= 0 {
				q := metrics.QuotaFull
				if r.p.RoomInQuota(usage, teams[w.team], types[w.typ], w.instances) {
					q = metrics.QuotaRoom
				}
				add("c"+classes[w.class]+"/"+q, w)
			}
		}
		write := func(key string, dims map[string]string) {
			g := groups[key]
			if g == nil {
				g = &group{}
			}
			set(metrics.RunnableJobs, dims, i, float64(g.n))
			set(metrics.OldestRunnableSeconds, dims, i, g.oldest)
		}
		write("", nil)
		total := 0
		for ti, typ := range types {
			write("t"+typ, map[string]string{metrics.InstanceType: typ})
			n := 0
			if used != nil {
				n = used[ti]
			}
			total += n
			set(metrics.CapacityUtilization, map[string]string{metrics.InstanceType: typ}, i, 100*float64(n)/float64(r.p.PoolInstances(typ)))
		}
		set(metrics.CapacityUtilization, nil, i, 100*float64(total)/float64(r.p.TotalInstances()))
		for _, c := range classes {
			for _, q := range []string{metrics.QuotaRoom, metrics.QuotaFull} {
				write("c"+c+"/"+q, map[string]string{metrics.Class: c, metrics.Quota: q})
			}
		}
	}
	return a
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
