// Package showback holds the one rule by which trainq attributes a team's
// instance-seconds to its quota or to borrowed capacity, and the exact
// accounting of instance-seconds per team × class × instance type × day
// (or month). The ledger's usage (package ledger) and the simulator's side
// of the ledger's round trip both call it, so that the two can be compared
// to the second.
//
// The rule (Attribute): at every moment, a team's running jobs on one
// instance type are ranked by when their attempt started (earliest first,
// ties by job id); instances are counted along that rank, and those within
// the team's quota of the type (its quota share's capacity limit) are
// within quota, the rest borrowed. A job that started while its team
// already held its quota borrows; when an earlier job of the team ends, a
// later one moves into the quota from that moment on. A job may be split:
// 8 instances started when 4 of a quota of 10 were in use are 6 within and
// 2 borrowed. Without a quota (fair share) every instance is within.
//
// Times are Unix milliseconds and amounts instance-milliseconds, so that
// nothing is rounded: days are UTC days.
//
// It imports nothing of trainq: run-time code, it must never import the
// AWS CDK, jsii or constructs.
package showback

import (
	"cmp"
	"slices"
	"time"
)

// Interval is one attempt's run (or the part of it inside a window):
// Instances of InstanceType held by Team from Start to End.
type Interval struct {
	Team, Class, InstanceType string
	// Start and End bound the part counted; StartedAt is when the attempt
	// really started (its rank), which may be before a window's Start.
	Start, End, StartedAt int64
	Instances             int
	// JobID breaks ties between attempts that started together.
	JobID string
	// Kind is what became of the work.
	Kind Kind
}

// Kind is what became of an attempt's work.
type Kind uint8

// Kinds of work.
const (
	// Goodput: the attempt that completed its job.
	Goodput Kind = iota + 1
	// LostPreempted: an attempt a preemption ended.
	LostPreempted
	// LostTimedOut: an attempt that ran its time limit.
	LostTimedOut
	// Failed: an attempt that failed otherwise (or was cancelled).
	Failed
	// Running: an attempt still running, counted to now.
	Running
)

// NoQuota is what a quota function returns for a team with no quota of a
// type (fair share): every instance is within.
const NoQuota = -1

// Attribute splits every interval into pieces during which its within-quota
// and borrowed instances are constant, and calls add for each piece with
// the interval's index. quota(team, instanceType) is the team's quota in
// instances, or NoQuota.
func Attribute(ivs []Interval, quota func(team, instanceType string) int, add func(i int, from, to int64, within, borrowed int)) {
	type group struct{ team, typ string }
	byGroup := map[group][]int{}
	for i, iv := range ivs {
		if iv.End <= iv.Start || iv.Instances <= 0 {
			continue
		}
		g := group{iv.Team, iv.InstanceType}
		byGroup[g] = append(byGroup[g], i)
	}
	groups := make([]group, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b group) int { return cmp.Or(cmp.Compare(a.team, b.team), cmp.Compare(a.typ, b.typ)) })
	for _, g := range groups {
		idx := byGroup[g]
		q := quota(g.team, g.typ)
		type edge struct {
			at    int64
			start bool
			i     int
		}
		edges := make([]edge, 0, 2*len(idx))
		for _, i := range idx {
			edges = append(edges, edge{ivs[i].Start, true, i}, edge{ivs[i].End, false, i})
		}
		slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
		rank := func(a, b int) int {
			return cmp.Or(cmp.Compare(ivs[a].StartedAt, ivs[b].StartedAt), cmp.Compare(ivs[a].JobID, ivs[b].JobID), cmp.Compare(a, b))
		}
		var active []int // by rank
		for k := 0; k < len(edges); {
			at := edges[k].at
			for ; k < len(edges) && edges[k].at == at; k++ {
				e := edges[k]
				pos, found := slices.BinarySearchFunc(active, e.i, rank)
				if e.start && !found {
					active = slices.Insert(active, pos, e.i)
				} else if !e.start && found {
					active = slices.Delete(active, pos, pos+1)
				}
			}
			if k == len(edges) || len(active) == 0 {
				continue
			}
			next := edges[k].at
			used := 0
			for _, i := range active {
				n := ivs[i].Instances
				within := n
				if q != NoQuota {
					within = min(n, max(0, q-used))
				}
				used += n
				add(i, at, next, within, n-within)
			}
		}
	}
}

// Usage is instance-milliseconds of one row.
type Usage struct {
	// Within and Borrowed split every instance-millisecond (Attribute).
	Within, Borrowed int64
	// Goodput, LostPreempted, LostTimedOut, Failed and Running split them
	// again by what became of the work.
	Goodput, LostPreempted, LostTimedOut, Failed, Running int64
}

// Total is all instance-milliseconds of the row.
func (u Usage) Total() int64 { return u.Within + u.Borrowed }

func (u *Usage) add(v Usage) {
	u.Within += v.Within
	u.Borrowed += v.Borrowed
	u.Goodput += v.Goodput
	u.LostPreempted += v.LostPreempted
	u.LostTimedOut += v.LostTimedOut
	u.Failed += v.Failed
	u.Running += v.Running
}

// Key is a row of a usage table.
type Key struct {
	Team, Class, InstanceType string
	// Period is the UTC day (2026-12-01) or month (2026-12).
	Period string
}

// Period is how a table's rows are cut in time.
type Period string

// Periods.
const (
	Day   Period = "day"
	Month Period = "month"
)

// Table accumulates usage by Key.
type Table struct {
	Period Period
	Rows   map[Key]*Usage
}

// NewTable returns an empty table cut by p.
func NewTable(p Period) *Table { return &Table{Period: p, Rows: map[Key]*Usage{}} }

// Tally attributes ivs (Attribute) and adds every piece to t, cut at UTC
// day (or month) boundaries.
func (t *Table) Tally(ivs []Interval, quota func(team, instanceType string) int) {
	Attribute(ivs, quota, func(i int, from, to int64, within, borrowed int) {
		iv := ivs[i]
		for from < to {
			start, end := t.periodOf(from)
			cut := min(to, end)
			ms := cut - from
			u := Usage{Within: ms * int64(within), Borrowed: ms * int64(borrowed)}
			all := ms * int64(within+borrowed)
			switch iv.Kind {
			case Goodput:
				u.Goodput = all
			case LostPreempted:
				u.LostPreempted = all
			case LostTimedOut:
				u.LostTimedOut = all
			case Failed:
				u.Failed = all
			case Running:
				u.Running = all
			}
			k := Key{Team: iv.Team, Class: iv.Class, InstanceType: iv.InstanceType, Period: start}
			row := t.Rows[k]
			if row == nil {
				row = &Usage{}
				t.Rows[k] = row
			}
			row.add(u)
			from = cut
		}
	})
}

// periodOf names the UTC day or month of ms and returns its end.
func (t *Table) periodOf(ms int64) (string, int64) {
	at := time.UnixMilli(ms).UTC()
	if t.Period == Month {
		start := time.Date(at.Year(), at.Month(), 1, 0, 0, 0, 0, time.UTC)
		return start.Format("2006-01"), start.AddDate(0, 1, 0).UnixMilli()
	}
	start := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	return start.Format(time.DateOnly), start.AddDate(0, 0, 1).UnixMilli()
}

// Keys returns the table's keys, sorted by team, class, type and period.
func (t *Table) Keys() []Key {
	keys := make([]Key, 0, len(t.Rows))
	for k := range t.Rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int {
		return cmp.Or(cmp.Compare(a.Team, b.Team), cmp.Compare(a.Class, b.Class), cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.Period, b.Period))
	})
	return keys
}

// ByTeam sums the table per team.
func (t *Table) ByTeam() map[string]Usage {
	out := map[string]Usage{}
	for k, u := range t.Rows {
		v := out[k.Team]
		v.add(*u)
		out[k.Team] = v
	}
	return out
}
