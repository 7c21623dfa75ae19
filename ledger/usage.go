package ledger

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

// UsageQuery selects a usage report.
type UsageQuery struct {
	// Since and Until bound the window; running jobs count to Now when it
	// is earlier than Until.
	Since, Until time.Time
	// Period cuts the rows by UTC day or month. Default: day.
	Period showback.Period
}

// UsageReport is the exact usage of a window: instance-seconds per team ×
// class × instance type × period, within quota vs borrowed
// (showback.Attribute), goodput vs lost, and per team and class the jobs
// by outcome and their waits.
type UsageReport struct {
	Since, Until time.Time
	Period       showback.Period
	// Table holds instance-milliseconds by row.
	Table *showback.Table
	// Groups are per team and class, sorted.
	Groups []UsageGroup
}

// UsageGroup is what happened to one team's jobs of one class.
type UsageGroup struct {
	Team, Class string
	// Outcomes counts the jobs that ended in the window by Outcome, and
	// OutcomeRunning the jobs still alive.
	Outcomes map[string]int
	// Waits are over the jobs that ended in the window and ever started:
	// the time from submission to their end less the time they ran
	// (waiting again after a preemption counts), in seconds,
	// nearest-rank percentiles (the ⌈p·n/100⌉-th of n sorted waits).
	WaitP50, WaitP95, WaitMax int64
	Waited                    int
}

// Quota is a platform's quota of each team and type for showback: its
// quota share's capacity in quota mode, none in fair share.
func Quota(p *platform.Platform) func(team, instanceType string) int {
	return func(team, instanceType string) int {
		if p.Scheduling.Mode == platform.ModeFairShare {
			return showback.NoQuota
		}
		t, ok := p.Team(team)
		if !ok {
			return 0 // a team the platform no longer has: all borrowed
		}
		for _, c := range t.Capacity {
			if c.InstanceType == instanceType {
				return c.Instances
			}
		}
		return 0
	}
}

// Intervals are a job's attempts as showback intervals, clipped to [from,
// to]; an attempt still running counts to `to`.
func (j *Job) Intervals(from, to int64) []showback.Interval {
	var out []showback.Interval
	for i, a := range j.Attempts {
		stop := a.StoppedAt
		if stop == 0 {
			if j.Ended() {
				stop = j.EndedAt
			} else {
				stop = to
			}
		}
		start, end := max(a.StartedAt, from), min(stop, to)
		if end <= start {
			continue
		}
		out = append(out, showback.Interval{Team: j.Team, Class: j.Class, InstanceType: j.InstanceType,
			Start: start, End: end, StartedAt: a.StartedAt, Instances: j.Instances, JobID: j.JobID, Kind: kindOf(j.AttemptOutcome(i))})
	}
	return out
}

func kindOf(attemptOutcome string) showback.Kind {
	switch attemptOutcome {
	case "completed":
		return showback.Goodput
	case OutcomePreempted:
		return showback.LostPreempted
	case OutcomeTimedOut:
		return showback.LostTimedOut
	case OutcomeRunning:
		return showback.Running
	}
	return showback.Failed
}

// WaitSeconds is how long an ended job that started waited: from its
// submission to its end, less the time its attempts ran.
func (j *Job) WaitSeconds() (int64, bool) {
	if !j.Ended() || len(j.Attempts) == 0 || j.CreatedAt == 0 {
		return 0, false
	}
	ran := int64(0)
	for _, a := range j.Attempts {
		stop := a.StoppedAt
		if stop == 0 {
			stop = j.EndedAt
		}
		ran += stop - a.StartedAt
	}
	return (j.EndedAt - j.CreatedAt - ran) / 1000, true
}

// Usage computes the usage of q's window from the ledger, exactly: every
// job alive in the window is read once (Store.Jobs) and its attempts
// attributed with showback's rule under p's quotas.
func Usage(ctx context.Context, s *Store, p *platform.Platform, q UsageQuery) (*UsageReport, error) {
	if q.Period == "" {
		q.Period = showback.Day
	}
	if q.Period != showback.Day && q.Period != showback.Month {
		return nil, fmt.Errorf("usage: period %q; want day or month", q.Period)
	}
	now := s.now()
	until := q.Until
	if now.Before(until) {
		until = now
	}
	lo, hi := q.Since.UnixMilli(), until.UnixMilli()
	var ivs []showback.Interval
	type gk struct{ team, class string }
	groups := map[gk]*UsageGroup{}
	waits := map[gk][]int64{}
	err := s.Jobs(ctx, q.Since, until, func(j *Job) error {
		ivs = append(ivs, j.Intervals(lo, hi)...)
		k := gk{j.Team, j.Class}
		g := groups[k]
		if g == nil {
			g = &UsageGroup{Team: j.Team, Class: j.Class, Outcomes: map[string]int{}}
			groups[k] = g
		}
		switch {
		case !j.Ended():
			g.Outcomes[OutcomeRunning]++
		case j.EndedAt >= lo && j.EndedAt <= hi:
			g.Outcomes[j.Outcome()]++
			if w, ok := j.WaitSeconds(); ok {
				waits[k] = append(waits[k], w)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	r := &UsageReport{Since: q.Since, Until: until, Period: q.Period, Table: showback.NewTable(q.Period)}
	r.Table.Tally(ivs, Quota(p))
	for k, g := range groups {
		w := waits[k]
		slices.Sort(w)
		if n := len(w); n > 0 {
			g.Waited = n
			g.WaitP50, g.WaitP95, g.WaitMax = w[nearestRank(50, n)], w[nearestRank(95, n)], w[n-1]
		}
		r.Groups = append(r.Groups, *g)
	}
	slices.SortFunc(r.Groups, func(a, b UsageGroup) int {
		if a.Team != b.Team {
			return compare(a.Team, b.Team)
		}
		return compare(a.Class, b.Class)
	})
	return r, nil
}

// nearestRank is the 0-based index of the p-th percentile of n sorted
// values: ⌈p·n/100⌉ − 1.
func nearestRank(p, n int) int { return max(0, (p*n+99)/100-1) }

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
