package client

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// Estimate is when a waiting job may start: two figures from trainq's
// simulator run on the queue as the queue action returned it, each with
// what it assumes.
type Estimate struct {
	// At is the queue answer's time (QueueView.At); the figures count from it.
	At string `json:"at"`
	// Likely is the likely start, from the queue's recent history (many
	// simulated runs with runtimes and arrivals drawn from it); nil when
	// there is no history, LikelyUnavailable saying why.
	Likely            *LikelyStart `json:"likely,omitempty"`
	LikelyUnavailable string       `json:"likelyUnavailable,omitempty"`
	// Latest is the start if every job runs to its limit and no job is
	// submitted meanwhile: a bound that holds unless later jobs of higher
	// priority overtake this one.
	Latest Start `json:"latest"`
	// Note says what the simulation left out or could not see (jobs of
	// unknown class or type, jobs past the queue answer's bound).
	Note string `json:"note,omitempty"`
}

// Start is one estimated start.
type Start struct {
	// StartsInSeconds is the simulated wait from Estimate.At; -1 when the
	// job never starts by the simulated rules.
	StartsInSeconds int64 `json:"startsInSeconds"`
	// StartsBy is Estimate.At plus StartsInSeconds, RFC 3339 ("" when it
	// never starts).
	StartsBy string `json:"startsBy,omitempty"`
	// Assumption is what the figure assumes, to print next to it.
	Assumption string `json:"assumption"`
}

// LikelyStart is the median of the runs' starts, with their range.
type LikelyStart struct {
	Start
	// LowSeconds and HighSeconds are the 10th and 90th percentiles of the
	// runs' starts, from Estimate.At.
	LowSeconds  int64 `json:"lowSeconds"`
	HighSeconds int64 `json:"highSeconds"`
	// Runs is how many simulated runs it took.
	Runs int `json:"runs"`
	// History says which history it drew from and how much of it.
	History string `json:"history"`
}

// EstimateOptions tune an estimate. The zero value is what trainq status
// uses.
type EstimateOptions struct {
	// Runs is how many simulated runs the likely start takes (at most
	// MaxEstimateRuns). Default: DefaultEstimateRuns.
	Runs int
	// Seed seeds the draws: the same queue, history and seed give the same
	// estimate. Default: 1.
	Seed uint64
}

// Bounds of an estimate's cost.
const (
	// DefaultEstimateRuns and MaxEstimateRuns bound the likely start's runs.
	DefaultEstimateRuns = 100
	MaxEstimateRuns     = 1000
	// MaxHorizonSeconds is how far ahead a run draws arrivals (14 days);
	// a run also stops drawing them once the job has started.
	MaxHorizonSeconds = 14 * 86400
	// MaxArrivalsPerRun bounds the arrivals one run draws.
	MaxArrivalsPerRun = 50000
)

// latestAssumption is printed next to the latest start.
const latestAssumption = "if every running job runs to its limit (its maxRuntimeSeconds less the time it has run), " +
	"every waiting job runs to its own, and no job is submitted or cancelled meanwhile " +
	"(simulated with the platform file's rules, preemptions included)"

// targetID is the estimated job's id in the simulated runs.
const targetID = "target"

// queueState is a queue answer as the simulator takes it.
type queueState struct {
	at      time.Time
	placed  []placedJob
	waiting []waitingJob
	notes   []string
}

// placedJob is a running job with its limit and the time it has run.
type placedJob struct {
	job            trace.Job
	elapsed, limit int64
	// unlisted: counted, not listed; its class is unknown, and it started
	// after a job that has run newest seconds.
	unlisted bool
	newest   int64
}

// waitingJob is a waiting job with its limit.
type waitingJob struct {
	job   trace.Job
	limit int64
	// unlisted: counted, not listed; its class is unknown and its
	// scheduling priority at most maxPrio (-1: any).
	unlisted bool
	maxPrio  int
	// shapeUnknown: its instance type and count are unknown.
	shapeUnknown bool
}

// EstimateStart estimates when the described job target starts on
// platform p, from the queue answer q (which carries the history): the
// latest start, and the likely start when q has history. A target the
// answer does not list (it was truncated) joins the waiting jobs last,
// with what its explanation says.
func EstimateStart(p *platform.Platform, q *contract.QueueView, target *contract.Response, opts EstimateOptions) (*Estimate, error) {
	ti := -1
	for i, j := range q.Jobs {
		if target.JobID != "" && j.JobID == target.JobID {
			ti = i
			break
		}
	}
	st, placedAs, err := readQueue(p, q, target, ti)
	if err != nil {
		return nil, err
	}
	e := &Estimate{At: q.At, Note: strings.Join(st.notes, "; ")}
	if placedAs != "" {
		now := Start{StartsInSeconds: 0, StartsBy: q.At, Assumption: "it has been placed (" + placedAs + ")"}
		e.Latest = now
		e.Likely = &LikelyStart{Start: now, Runs: 0, History: "none needed"}
		return e, nil
	}
	latest, err := st.latest(p)
	if err != nil {
		return nil, err
	}
	e.Latest = st.start(latest, latestAssumption)
	if latest < 0 {
		e.LikelyUnavailable = "the job never starts by the simulated rules"
		return e, nil
	}
	h, why := newHistoryModel(p, q)
	if h == nil {
		e.LikelyUnavailable = why
		return e, nil
	}
	l, err := st.likely(p, h, opts)
	if err != nil {
		return nil, err
	}
	e.Likely = l
	if l.StartsInSeconds > latest {
		e.Note = strings.TrimPrefix(e.Note+"; the likely start is after the latest: in most runs jobs submitted meanwhile "+
			"go first, which the latest start assumes none do", "; ")
	}
	return e, nil
}

// start is a figure of s seconds from the queue's time.
func (st *queueState) start(s int64, assumption string) Start {
	if s < 0 {
		return Start{StartsInSeconds: -1, Assumption: assumption}
	}
	return Start{StartsInSeconds: s, StartsBy: st.at.Add(time.Duration(s) * time.Second).UTC().Format(time.RFC3339), Assumption: assumption}
}

// readQueue turns the queue answer into the simulator's jobs, the target
// among the waiting ones (ID targetID): q.Jobs[ti], or when ti is -1 (or
// that job cannot be simulated) the job target describes, past the listed
// ones. Every other listed job i is "q<i>". placedAs is the target's status
// when it is already placed.
func readQueue(p *platform.Platform, q *contract.QueueView, target *contract.Response, ti int) (st *queueState, placedAs string, err error) {
	jobID := target.JobID
	at, err := time.Parse(time.RFC3339, q.At)
	if err != nil {
		return nil, "", fmt.Errorf("queue answer's at: got %q, want an RFC 3339 time", q.At)
	}
	st = &queueState{at: at}
	skipped := map[string]int{}
	found := false
	type queued struct {
		w  waitingJob
		qj contract.QueueJob
	}
	var ahead []queued
	for i, j := range q.Jobs {
		class, ok := p.Class(j.Class)
		switch {
		case !ok:
			skipped["of unknown class"]++
			continue
		case p.PoolInstances(j.InstanceType) == 0:
			skipped["on an instance type outside the pool"]++
			continue
		}
		if _, ok := p.Team(j.Team); !ok {
			skipped["of a team the platform lacks"]++
			continue
		}
		limit := int64(class.MaxRuntimeSeconds)
		if own := int64(j.MaxRuntimeSeconds); own > 0 && own < limit {
			limit = own
		}
		tj := trace.Job{ID: fmt.Sprintf("q%d", i), Instances: max(1, j.Instances), InstanceType: j.InstanceType, Class: class.Name, Team: j.Team,
			Priority: requestPriority(class, j.SchedulingPriority)}
		if i == ti {
			tj.ID, found = targetID, true
		}
		switch j.Status {
		case "RUNNING", "STARTING", "SCHEDULED":
			if tj.ID == targetID {
				return nil, j.Status, nil
			}
			// A SCHEDULED job has not started: it has run 0 s of its limit.
			st.placed = append(st.placed, placedJob{job: tj, elapsed: max(0, j.RunningSeconds), limit: limit})
		default:
			tj.Submit = -max(0, j.AgeSeconds)
			ahead = append(ahead, queued{waitingJob{job: tj, limit: limit}, j})
		}
	}
	if !found {
		class, ok := p.Class(target.Class)
		if !ok || target.Explanation == nil || p.PoolInstances(target.Explanation.InstanceType) == 0 {
			return nil, "", fmt.Errorf("job %s is not among the %d jobs the queue answer lists", jobID, len(q.Jobs))
		}
		ahead = append(ahead, queued{waitingJob{job: trace.Job{ID: targetID, Instances: max(1, target.Explanation.Instances),
			InstanceType: target.Explanation.InstanceType, Class: class.Name, Team: target.Team, Priority: requestPriority(class, target.SchedulingPriority)},
			limit: int64(class.MaxRuntimeSeconds)}, contract.QueueJob{QueuePosition: target.Explanation.QueuePosition}})
	}
	sort.SliceStable(ahead, func(a, b int) bool {
		pa, pb := ahead[a].qj.QueuePosition, ahead[b].qj.QueuePosition
		if (pa > 0) != (pb > 0) {
			return pa > 0
		}
		if pa != pb {
			return pa < pb
		}
		return ahead[a].qj.AgeSeconds > ahead[b].qj.AgeSeconds
	})
	for _, a := range ahead {
		st.waiting = append(st.waiting, a.w)
	}
	for _, why := range []string{"of unknown class", "on an instance type outside the pool", "of a team the platform lacks"} {
		if n := skipped[why]; n > 0 {
			st.notes = append(st.notes, fmt.Sprintf("%d jobs %s left out", n, why))
		}
	}
	// An unlisted target's place among the first RUNNABLE jobs says how
	// many unlisted jobs are ahead of it: those of its place not listed
	// (all of them when it is not among the first).
	aheadUnlisted := -1
	if !found {
		if pos := target.Explanation.QueuePosition; pos > 0 {
			aheadUnlisted = pos - 1
			for _, a := range ahead {
				if a.w.job.ID != targetID && a.qj.QueuePosition > 0 && a.qj.QueuePosition < pos {
					aheadUnlisted--
				}
			}
			aheadUnlisted = max(0, aheadUnlisted)
		}
	}
	st.addUnlisted(p, q, found, aheadUnlisted)
	return st, "", nil
}

// addUnlisted adds the jobs the answer counted but did not list. Their
// class is unknown, but the answer lists running jobs oldest start first
// and waiting ones in the queue's order, so an unlisted running job started
// after every listed one, and an unlisted waiting job is behind every
// listed one: at most at the priority of the last. For the latest start
// they run the longest limit of any class from now (running) or are of the
// last listed waiting job's class and priority (waiting); the likely start
// draws their class from their team's history among the classes at or
// below that priority.
//
// When the target itself was not listed, aheadUnlisted of the unlisted
// waiting jobs (all of them when -1) are ahead of it: between the last
// listed job and it in the queue's order, they are taken at its class and
// priority.
func (st *queueState) addUnlisted(p *platform.Platform, q *contract.QueueView, targetListed bool, aheadUnlisted int) {
	longest := p.Classes[0]
	for _, c := range p.Classes {
		if c.MaxRuntimeSeconds > longest.MaxRuntimeSeconds {
			longest = c
		}
	}
	// behind is the class and priority of the last listed waiting job
	// (the highest class when none is listed); newest the least time a
	// listed running job has run.
	behind, behindPrio := p.Classes[0], -1
	for _, c := range p.Classes {
		if c.SchedulingPriority(platform.RequestPriorityMax) > behind.SchedulingPriority(platform.RequestPriorityMax) {
			behind = c
		}
	}
	newest := int64(-1)
	for _, pj := range st.placed {
		if newest < 0 || pj.elapsed < newest {
			newest = pj.elapsed
		}
	}
	ti := -1
	for i, w := range st.waiting {
		if w.job.ID == targetID {
			ti = i
		}
		if w.job.ID != targetID || targetListed || len(st.waiting) == 1 {
			behind, _ = p.Class(w.job.Class)
			behindPrio = behind.SchedulingPriority(w.job.Priority)
		}
	}
	var before []waitingJob
	running, waiting, left := 0, 0, 0
	for _, u := range q.Unlisted {
		placed := u.Status == "RUNNING" || u.Status == "STARTING" || u.Status == "SCHEDULED"
		// A waiting job's type is unknown until Batch schedules it: for
		// the latest start it is one instance of the target's type; the
		// likely start draws its shape from its class and team's history.
		it, shapeUnknown := u.InstanceType, u.InstanceType == "" && !placed && ti >= 0
		if shapeUnknown {
			it = st.waiting[ti].job.InstanceType
		}
		if _, ok := p.Team(u.Team); !ok || p.PoolInstances(it) == 0 || u.Jobs <= 0 {
			left += max(0, u.Jobs)
			continue
		}
		for k := range u.Jobs {
			// Instances split evenly, the remainder to the first jobs.
			n := max(1, u.Instances/u.Jobs)
			if k < u.Instances%u.Jobs {
				n++
			}
			tj := trace.Job{ID: fmt.Sprintf("u%d", len(st.placed)+len(st.waiting)), Instances: n, InstanceType: it, Team: u.Team}
			switch {
			case placed:
				tj.Class, tj.Priority = longest.Name, platform.DefaultRequestPriority
				st.placed = append(st.placed, placedJob{job: tj, limit: int64(longest.MaxRuntimeSeconds), unlisted: true, newest: max(0, newest)})
				running++
			case !targetListed && (aheadUnlisted < 0 || len(before) < aheadUnlisted):
				t := st.waiting[ti]
				tj.Class, tj.Priority, tj.Submit = t.job.Class, t.job.Priority, t.job.Submit
				before = append(before, waitingJob{job: tj, limit: t.limit, shapeUnknown: shapeUnknown})
				waiting++
			default:
				tj.Class, tj.Priority = behind.Name, platform.RequestPriorityMax
				if behindPrio >= 0 {
					tj.Priority = requestPriority(behind, behindPrio)
				}
				st.waiting = append(st.waiting, waitingJob{job: tj, limit: int64(behind.MaxRuntimeSeconds), unlisted: true, maxPrio: behindPrio,
					shapeUnknown: shapeUnknown})
				waiting++
			}
		}
	}
	if len(before) > 0 {
		st.waiting = slices.Insert(st.waiting, ti, before...)
	}
	if running+waiting > 0 {
		st.notes = append(st.notes, fmt.Sprintf("%d running and %d waiting jobs past the queue answer's %d were counted, not listed: "+
			"for the latest start the running ones run %s's limit from now and the waiting ones are of %s behind the listed ones; "+
			"the likely start draws their class from history",
			running, waiting, contract.MaxQueueJobs, longest.Name, behind.Name))
	}
	if left > 0 {
		st.notes = append(st.notes, fmt.Sprintf("%d unlisted jobs of a team or type the platform lacks left out", left))
	}
	if q.Uncounted {
		st.notes = append(st.notes, "Batch had more jobs than the queue answer counts: those are not seen, and both figures may be early")
	} else if q.Truncated && len(q.Unlisted) == 0 {
		st.notes = append(st.notes, "the queue answer was truncated and did not count the jobs it left out: they are not seen, and both figures may be early")
	}
}

// latest simulates the queue with every job running to its limit and no
// arrivals, and returns when the target starts (-1: never).
func (st *queueState) latest(p *platform.Platform) (int64, error) {
	w := newStartWatch([]string{targetID})
	if err := st.latestRun(p, w); err != nil {
		return 0, err
	}
	return w.at[0], nil
}

// latestRun simulates the queue with every job running to its limit and
// no arrivals, w noting when its jobs start.
func (st *queueState) latestRun(p *platform.Platform, w *startWatch) error {
	var from simulate.From
	for _, pj := range st.placed {
		j := pj.job
		j.Duration = max(1, pj.limit-pj.elapsed)
		from.Placed = append(from.Placed, simulate.Placed{Job: j, Elapsed: pj.elapsed})
	}
	for _, w := range st.waiting {
		j := w.job
		j.Duration = max(1, w.limit)
		from.Waiting = append(from.Waiting, j)
	}
	return runWatched(p, from, &simulate.SliceSource{}, w)
}

// runWatched runs from with the arrivals src, w noting when the jobs it
// watches first start.
func runWatched(p *platform.Platform, from simulate.From, src simulate.Source, w *startWatch) error {
	w.reset()
	if _, err := simulate.RunFrom(p, from, src, simulate.Options{Observer: w}); err != nil {
		return fmt.Errorf("simulate the queue: %w", err)
	}
	return nil
}

// startWatch notes when each of the jobs it watches first starts (-1: not
// yet, or never).
type startWatch struct {
	slot map[string]int
	at   []int64
	left int
}

func newStartWatch(ids []string) *startWatch {
	w := &startWatch{slot: make(map[string]int, len(ids)), at: make([]int64, len(ids))}
	for i, id := range ids {
		w.slot[id] = i
	}
	w.reset()
	return w
}

func (w *startWatch) reset() {
	for i := range w.at {
		w.at[i] = -1
	}
	w.left = len(w.at)
}

// done is true once every watched job has started.
func (w *startWatch) done() bool { return w.left == 0 }

func (w *startWatch) Observe(e simulate.Event, _ *simulate.State) {
	if e.Kind != simulate.EventStart {
		return
	}
	if i, ok := w.slot[e.JobID]; ok && w.at[i] < 0 {
		w.at[i] = e.At
		w.left--
	}
}

// requestPriority is the request priority (0–99) inside class's band that
// gives the scheduling priority sp: the highest whose
// class.SchedulingPriority is at most sp.
func requestPriority(class platform.Class, sp int) int {
	best := 0
	for p := 0; p <= platform.RequestPriorityMax; p++ {
		if class.SchedulingPriority(p) <= sp {
			best = p
		}
	}
	return best
}
