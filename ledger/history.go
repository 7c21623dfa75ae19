package ledger

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/trainq/trainq/contract"
)

// History summarizes the jobs of [from, to) for the CLI's likely start
// (contract.History, which the submission function's queue action
// carries): per class and team, how many were submitted in the window, in
// which hour of the day (UTC) and in how many separate minutes (batches),
// how many completed in it, and the most recent of those with their shape and how long they ran (the sum of their
// attempts: what they held to complete). It reads the window once
// (Store.Jobs) and keeps at most contract.MaxHistorySamples jobs per group.
func (s *Store) History(ctx context.Context, from, to time.Time) (*contract.History, error) {
	type group struct {
		g    contract.HistoryGroup
		jobs []completed
		// minutes are the minutes its jobs were submitted in (Batches).
		minutes map[int64]bool
	}
	groups := map[[2]string]*group{}
	var order [][2]string
	lo, hi := from.UnixMilli(), to.UnixMilli()
	err := s.Jobs(ctx, from, to, func(j *Job) error {
		k := [2]string{j.Class, j.Team}
		g := groups[k]
		if g == nil {
			if len(groups) == contract.MaxHistoryGroups {
				return nil
			}
			g = &group{g: contract.HistoryGroup{Class: j.Class, Team: j.Team, SubmittedByHour: make([]int, 24), Jobs: []contract.HistoryJob{}},
				minutes: map[int64]bool{}}
			groups[k] = g
			order = append(order, k)
		}
		if j.CreatedAt >= lo && j.CreatedAt < hi {
			g.g.Submitted++
			g.g.SubmittedByHour[time.UnixMilli(j.CreatedAt).UTC().Hour()]++
			// At most one per minute of the window: bounded by the window.
			if m := j.CreatedAt / 60_000; !g.minutes[m] {
				g.minutes[m] = true
				g.g.Batches++
			}
		}
		if j.Outcome() != OutcomeSucceeded || j.EndedAt < lo || j.EndedAt >= hi {
			return nil
		}
		g.g.Completed++
		var ran int64
		for _, a := range j.Attempts {
			if a.StoppedAt > a.StartedAt {
				ran += a.StoppedAt - a.StartedAt
			}
		}
		if ran <= 0 {
			return nil
		}
		g.jobs = append(g.jobs, completed{end: j.EndedAt, id: j.JobID, job: contract.HistoryJob{InstanceType: j.InstanceType,
			Instances: max(1, j.Instances), SchedulingPriority: j.Priority, RunSeconds: (ran + 999) / 1000}})
		// Keep the most recent only: memory stays bounded by the groups.
		if len(g.jobs) > 2*contract.MaxHistorySamples {
			g.jobs = mostRecent(g.jobs)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("history from %s: %w", s.table, err)
	}
	slices.SortFunc(order, func(a, b [2]string) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	h := &contract.History{Source: "job ledger " + s.table, From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339),
		Groups: []contract.HistoryGroup{}}
	for _, k := range order {
		g := groups[k]
		for _, c := range mostRecent(g.jobs) {
			g.g.Jobs = append(g.g.Jobs, c.job)
		}
		h.Groups = append(h.Groups, g.g)
	}
	return h, nil
}

// completed is a completed job of a history group.
type completed struct {
	end int64
	id  string
	job contract.HistoryJob
}

// mostRecent is the MaxHistorySamples most recently ended of cs, latest
// first (ties by job id).
func mostRecent(cs []completed) []completed {
	slices.SortFunc(cs, func(a, b completed) int {
		if a.end != b.end {
			return cmp.Compare(b.end, a.end)
		}
		return cmp.Compare(a.id, b.id)
	})
	return cs[:min(len(cs), contract.MaxHistorySamples)]
}
