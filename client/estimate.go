package client

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// Estimate is when a waiting job may start, from trainq's simulator run on
// the queue as the queue action returned it.
type Estimate struct {
	// StartsInSeconds is the simulated wait from QueueView.At; -1 when the
	// job never starts by the simulated rules.
	StartsInSeconds int64 `json:"startsInSeconds"`
	// StartsBy is QueueView.At plus StartsInSeconds, RFC 3339 ("" when it
	// never starts).
	StartsBy string `json:"startsBy,omitempty"`
	// Assumption is what the figure assumes, to print next to it.
	Assumption string `json:"assumption"`
	// Note says what the simulation left out (jobs of unknown class or
	// type, a truncated queue).
	Note string `json:"note,omitempty"`
}

// estimateAssumption is printed next to every estimate.
const estimateAssumption = "if every running job runs to its limit (its maxRuntimeSeconds less the time it has run), " +
	"every waiting job runs to its own, and no job is submitted or cancelled meanwhile " +
	"(simulated with the platform file's rules, preemptions included)"

// estimateStart simulates the queue q on platform p and returns when the
// described job target starts (a target the answer does not list, when it
// was truncated, joins the waiting jobs last, asking what its explanation
// says). Placed jobs (RUNNING, STARTING, SCHEDULED) hold their instances at
// t = 0 for what is left of their limit; waiting ones are in the queue at
// t = 0, in the queue's order (the snapshot's front first, then oldest
// first), each for its limit (simulate.RunFrom).
func estimateStart(p *platform.Platform, q *contract.QueueView, target *contract.Response) (*Estimate, error) {
	jobID := target.JobID
	at, err := time.Parse(time.RFC3339, q.At)
	if err != nil {
		return nil, fmt.Errorf("queue answer's at: got %q, want an RFC 3339 time", q.At)
	}
	var from simulate.From
	skipped := map[string]int{}
	found := false
	type queued struct {
		job trace.Job
		qj  contract.QueueJob
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
		if j.JobID == jobID && jobID != "" {
			tj.ID, found = "target", true
		}
		switch j.Status {
		case "RUNNING", "STARTING", "SCHEDULED":
			if tj.ID == "target" {
				return &Estimate{StartsInSeconds: 0, StartsBy: q.At, Assumption: "it has been placed (" + j.Status + ")"}, nil
			}
			// A SCHEDULED job has not started: it has run 0 s of its limit.
			elapsed := max(0, j.RunningSeconds)
			tj.Duration = max(1, limit-elapsed)
			from.Placed = append(from.Placed, simulate.Placed{Job: tj, Elapsed: elapsed})
		default:
			tj.Submit, tj.Duration = -max(0, j.AgeSeconds), limit
			ahead = append(ahead, queued{tj, j})
		}
	}
	if !found {
		class, ok := p.Class(target.Class)
		if !ok || target.Explanation == nil || p.PoolInstances(target.Explanation.InstanceType) == 0 {
			return nil, fmt.Errorf("job %s is not among the %d jobs the queue answer lists", jobID, len(q.Jobs))
		}
		limit := int64(class.MaxRuntimeSeconds)
		ahead = append(ahead, queued{trace.Job{ID: "target", Duration: limit, Instances: max(1, target.Explanation.Instances),
			InstanceType: target.Explanation.InstanceType, Class: class.Name, Team: target.Team, Priority: requestPriority(class, target.SchedulingPriority)},
			contract.QueueJob{QueuePosition: target.Explanation.QueuePosition}})
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
		from.Waiting = append(from.Waiting, a.job)
	}
	start := int64(-2)
	_, err = simulate.RunFrom(p, from, &simulate.SliceSource{}, simulate.Options{Jobs: func(r simulate.JobRecord) error {
		if r.ID == "target" {
			start = r.Start
		}
		return nil
	}})
	if err != nil {
		return nil, fmt.Errorf("simulate the queue: %w", err)
	}
	e := &Estimate{Assumption: estimateAssumption}
	var notes []string
	for _, why := range []string{"of unknown class", "on an instance type outside the pool", "of a team the platform lacks"} {
		if n := skipped[why]; n > 0 {
			notes = append(notes, fmt.Sprintf("%d jobs %s left out", n, why))
		}
	}
	if q.Truncated {
		notes = append(notes, "the queue answer was truncated: jobs it left out are not counted")
	}
	e.Note = strings.Join(notes, "; ")
	switch {
	case start == -2:
		return nil, fmt.Errorf("the simulation did not finish job %s", jobID)
	case start < 0:
		e.StartsInSeconds = -1
		return e, nil
	}
	e.StartsInSeconds = start
	e.StartsBy = at.Add(time.Duration(e.StartsInSeconds) * time.Second).UTC().Format(time.RFC3339)
	return e, nil
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
