package client

import (
	"fmt"
	"strings"
	"sync"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// QueueEstimate is the start estimate of every listed waiting job of a
// queue answer, as trainq status gives it for one: the same simulated
// runs, which watch every waiting job of an instance type at once rather
// than one, so that a queue of a few hundred jobs costs about one status
// estimate per instance type (bench/eta's BenchmarkQueueEstimate).
type QueueEstimate struct {
	// At is the queue answer's time; the figures count from it.
	At string `json:"at"`
	// Rows are the figures of q.Jobs, by index: none for a placed job or
	// one the simulation leaves out (Note says which).
	Rows []RowEstimate `json:"-"`
	// LikelyAssumption and LatestAssumption say what each figure assumes;
	// LikelyUnavailable why no row has a likely start.
	LikelyAssumption  string `json:"likelyAssumption,omitempty"`
	LikelyUnavailable string `json:"likelyUnavailable,omitempty"`
	LatestAssumption  string `json:"latestAssumption"`
	// Runs and History are the likely start's, as trainq status's.
	Runs    int    `json:"runs,omitempty"`
	History string `json:"history,omitempty"`
	// Note says what the simulation left out or could not see.
	Note string `json:"note,omitempty"`
}

// RowEstimate is a waiting job's two figures.
type RowEstimate struct {
	Likely *RowLikely `json:"likely,omitempty"`
	Latest *RowStart  `json:"latest,omitempty"`
}

// RowStart is a start from the queue answer's time (-1: never, by the
// simulated rules; StartsBy empty).
type RowStart struct {
	StartsInSeconds int64  `json:"startsInSeconds"`
	StartsBy        string `json:"startsBy,omitempty"`
}

// RowLikely is a likely start with the range of its runs.
type RowLikely struct {
	RowStart
	LowSeconds  int64 `json:"lowSeconds"`
	HighSeconds int64 `json:"highSeconds"`
}

// EstimateQueue estimates the start of every listed waiting job of q on
// platform p. Each job's figures are the ones EstimateStart gives it with
// the same options: one simulation per instance type of the waiting jobs,
// in which the unlisted waiting jobs (whose type is unknown) take that
// type for the latest start, as they take the target's in EstimateStart.
func EstimateQueue(p *platform.Platform, q *contract.QueueView, opts EstimateOptions) (*QueueEstimate, error) {
	qe := &QueueEstimate{At: q.At, Rows: make([]RowEstimate, len(q.Jobs)), LatestAssumption: latestAssumption}
	// The waiting jobs the simulation takes, by instance type.
	var types []string
	byType := map[string][]int{}
	for i, j := range q.Jobs {
		if placedStatus(j.Status) {
			continue
		}
		_, classOK := p.Class(j.Class)
		_, teamOK := p.Team(j.Team)
		if !classOK || !teamOK || p.PoolInstances(j.InstanceType) == 0 {
			continue
		}
		if byType[j.InstanceType] == nil {
			types = append(types, j.InstanceType)
		}
		byType[j.InstanceType] = append(byType[j.InstanceType], i)
	}
	h, why := newHistoryModel(p, q)
	if h == nil {
		qe.LikelyUnavailable = why
	} else {
		qe.LikelyAssumption, qe.History = likelyAssumption, h.desc
	}
	// The types' simulations are independent: each on its own core, each
	// writing only its own rows.
	notes := make([][]string, len(types))
	runs := make([]int, len(types))
	errs := make([]error, len(types))
	var wg sync.WaitGroup
	for k, it := range types {
		wg.Add(1)
		go func() {
			defer wg.Done()
			notes[k], runs[k], errs[k] = estimateType(p, q, h, opts, byType[it], qe.Rows)
		}()
	}
	wg.Wait()
	for k := range types {
		if errs[k] != nil {
			return nil, errs[k]
		}
		qe.Runs = max(qe.Runs, runs[k])
	}
	if len(types) > 0 {
		qe.Note = strings.Join(notes[0], "; ")
	}
	return qe, nil
}

// estimateType simulates q for the waiting jobs rows (q.Jobs indexes, all
// of one instance type) and sets their figures in out; it returns the
// simulation's notes and how many runs the likely start took.
func estimateType(p *platform.Platform, q *contract.QueueView, h *historyModel, opts EstimateOptions, rows []int, out []RowEstimate) ([]string, int, error) {
	// The last of them stands as the target: the others are "q<i>".
	ti := rows[len(rows)-1]
	st, _, err := readQueue(p, q, &contract.Response{JobID: q.Jobs[ti].JobID}, ti)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, len(rows))
	for k, i := range rows {
		ids[k] = fmt.Sprintf("q%d", i)
	}
	ids[len(ids)-1] = targetID
	w := newStartWatch(ids)
	if err := st.latestRun(p, w); err != nil {
		return nil, 0, err
	}
	for k, i := range rows {
		out[i].Latest = &RowStart{StartsInSeconds: w.at[k], StartsBy: st.start(w.at[k], "").StartsBy}
	}
	// The likely start of the jobs that start by the simulated rules
	// (one that never does has none, as in EstimateStart; watching it
	// would draw arrivals to the horizon in every run).
	var starting []int
	ids = ids[:0]
	for k, i := range rows {
		if w.at[k] >= 0 {
			starting = append(starting, i)
			ids = append(ids, fmt.Sprintf("q%d", i))
			if i == ti {
				ids[len(ids)-1] = targetID
			}
		}
	}
	if h == nil || len(starting) == 0 {
		return st.notes, 0, nil
	}
	starts, err := st.likelyRuns(p, h, opts, newStartWatch(ids))
	if err != nil {
		return nil, 0, err
	}
	for k, i := range starting {
		start, low, high := likelyOf(starts[k])
		out[i].Likely = &RowLikely{RowStart: RowStart{StartsInSeconds: start, StartsBy: st.start(start, "").StartsBy}, LowSeconds: low,
			HighSeconds: high}
	}
	return st.notes, len(starts[0]), nil
}

// placedStatus is true for the statuses of a job that holds its
// instances.
func placedStatus(s string) bool { return s == "RUNNING" || s == "STARTING" || s == "SCHEDULED" }
