// Package budget holds the one rule of trainq's budgets (the platform
// file's teams[].budgets): given a team's runs to date and a moment, what it
// has used of each budget, the limit, the forecast to the period's end at
// the current rate, when the budget resets, and what a submission of a
// (class, team) gets. The submission function (over the job ledger) and the
// simulator (over its replay) both call it, so that a lead sees before
// deploying what the function will do.
//
// Times are Unix milliseconds, as in package showback, whose intervals are
// the runs: a run still going is given up to now and counts to now. A
// budget never stops a running job; it decides only what a new submission
// gets.
//
// It imports only platform and showback: run-time code, it must never
// import the AWS CDK, jsii or constructs.
package budget

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

// RollingWindow is the length of a rolling-30-days budget's window.
const RollingWindow = 30 * 24 * time.Hour

const msPerHour = float64(time.Hour / time.Millisecond)

// Window returns where the period of now starts (since) and, for a month,
// when it ends and usage starts again from zero (00:00 UTC on the first of
// the next month). A rolling window has no end: next is now + 30 days, the
// end of the window that a forecast looks at.
func Window(period platform.BudgetPeriod, now time.Time) (since, next time.Time) {
	if period == platform.PeriodRolling30Days {
		return now.Add(-RollingWindow), now.Add(RollingWindow)
	}
	u := now.UTC()
	since = time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
	return since, since.AddDate(0, 1, 0)
}

// Earliest is the earliest start of any of the budgets' windows at now: how
// far back a reader of runs must look.
func Earliest(budgets []platform.Budget, now time.Time) time.Time {
	earliest := now
	for _, b := range budgets {
		if since, _ := Window(b.Period, now); since.Before(earliest) {
			earliest = since
		}
	}
	return earliest
}

// Status is one budget of one team at one moment.
type Status struct {
	Team, Budget string
	// Unit is what Used and Limit count: "instance-hours of
	// ml.p5.48xlarge", "weighted instance-hours", "instance-hours" or
	// "cost" (in ledger.hourlyPrices' currency).
	Unit   string
	Period platform.BudgetPeriod
	// Since is where the window starts; Now the moment evaluated.
	Since, Now time.Time
	// Used is the window's usage to now, running jobs counted to now; Limit
	// the budget's.
	Used, Limit float64
	// Rate is the current rate, per hour: the instances running now,
	// weighted.
	Rate float64
	// Forecast is the usage at the period's end if Rate holds: for a month,
	// Used + Rate × the hours left; for a rolling window, Rate × 720 (the
	// window 30 days from now).
	Forecast float64
	// Resets says when the team may use the budget again. For a month: the
	// first of the next month, 00:00 UTC, always. For a rolling window: the
	// earliest moment at which the usage counted so far has aged out of the
	// window down to the limit (nothing more running); Now when it is
	// already below the limit.
	Resets time.Time
	// used is Used in weighted instance-milliseconds, exactly as summed.
	used float64
}

// Percent is Used as a percent of Limit.
func (s Status) Percent() float64 { return 100 * s.Used / s.Limit }

// Reached reports whether the usage has reached percent of the limit,
// compared without dividing: used × 100 ≥ percent × limit.
func (s Status) Reached(percent float64) bool {
	return s.used*100 >= percent*s.Limit*msPerHour
}

// Over reports whether the budget is used: 100% of it or more.
func (s Status) Over() bool { return s.Reached(100) }

// Evaluate is budget b of team at now over runs (the team's; runs of other
// teams and types the budget does not count are ignored), prices being
// ledger.hourlyPrices. A run's End is when it stopped, or now for a run
// still going (showback.Running).
func Evaluate(team string, b platform.Budget, prices map[string]float64, runs []showback.Interval, now time.Time) Status {
	since, next := Window(b.Period, now)
	lo, hi := since.UnixMilli(), now.UnixMilli()
	s := Status{Team: team, Budget: b.Name, Unit: b.Unit(), Period: b.Period, Since: since, Now: now, Limit: b.Limit()}
	type piece struct {
		start, end int64
		rate       float64 // weighted instances
	}
	var pieces []piece
	for _, r := range runs {
		w := b.Weight(r.InstanceType, prices)
		if r.Team != team || w <= 0 || r.Instances <= 0 {
			continue
		}
		rate := w * float64(r.Instances)
		if r.Kind == showback.Running && r.End >= hi {
			s.Rate += rate
		}
		start, end := max(r.Start, lo), min(r.End, hi)
		if end <= start {
			continue
		}
		s.used += rate * float64(end-start)
		pieces = append(pieces, piece{start, end, rate})
	}
	s.Used = s.used / msPerHour
	if b.Period == platform.PeriodRolling30Days {
		s.Forecast = s.Rate * RollingWindow.Hours()
	} else {
		s.Forecast = s.Used + s.Rate*float64(next.UnixMilli()-hi)/msPerHour
	}
	if b.Period != platform.PeriodRolling30Days {
		s.Resets = next
		return s
	}
	s.Resets = now
	if !s.Over() {
		return s
	}
	// The window's start moves from lo to hi: the usage counted so far
	// falls, linearly between the pieces' edges, at the rate of the pieces
	// the start is inside. Find where it comes down to the limit.
	edges := make([]int64, 0, 2*len(pieces))
	for _, p := range pieces {
		edges = append(edges, p.start, p.end)
	}
	slices.Sort(edges)
	limit := s.Limit * msPerHour
	left, at, found := s.used, lo, false
	for _, e := range edges {
		if e <= at {
			continue
		}
		slope := 0.0
		for _, p := range pieces {
			if p.start <= at && at < p.end {
				slope += p.rate
			}
		}
		if drop := slope * float64(e-at); slope > 0 && left-drop < limit {
			// The first whole millisecond at which it is below the limit.
			at += int64(math.Floor((left-limit)/slope)) + 1
			found = true
			break
		} else {
			left -= drop
		}
		at = e
	}
	if !found {
		at = hi // rounding: at now the window holds nothing counted so far
	}
	s.Resets = time.UnixMilli(at).Add(RollingWindow).UTC()
	return s
}

// All is every budget of every team of p at now over runs (every team's),
// in the platform file's order: what the usage action answers and the
// poller's budget figures write. Budgets is every budget of p, whose
// windows' earliest start (Earliest) is how far back runs must reach.
func All(p *platform.Platform, runs []showback.Interval, now time.Time) []Status {
	var out []Status
	for _, t := range p.Teams {
		for _, b := range t.Budgets {
			out = append(out, Evaluate(t.Name, b, p.Ledger.HourlyPrices, runs, now))
		}
	}
	return out
}

// Budgets is every budget of every team of p.
func Budgets(p *platform.Platform) []platform.Budget {
	var all []platform.Budget
	for _, t := range p.Teams {
		all = append(all, t.Budgets...)
	}
	return all
}

// Used is what team's runs used of budget b from from to to (a closed
// month, say), in the budget's unit: Evaluate's sum over another window.
func Used(team string, b platform.Budget, prices map[string]float64, runs []showback.Interval, from, to time.Time) float64 {
	lo, hi := from.UnixMilli(), to.UnixMilli()
	used := 0.0
	for _, r := range runs {
		w := b.Weight(r.InstanceType, prices)
		if r.Team != team || w <= 0 || r.Instances <= 0 {
			continue
		}
		if start, end := max(r.Start, lo), min(r.End, hi); end > start {
			used += w * float64(r.Instances) * float64(end-start)
		}
	}
	return used / msPerHour
}

// Reached is the moment from which team's runs had used all of budget b in
// [from, to] (Used reached the limit), and false when they never did.
func Reached(team string, b platform.Budget, prices map[string]float64, runs []showback.Interval, from, to time.Time) (time.Time, bool) {
	lo, hi := from.UnixMilli(), to.UnixMilli()
	type edge struct {
		at   int64
		rate float64
	}
	var edges []edge
	for _, r := range runs {
		w := b.Weight(r.InstanceType, prices)
		if r.Team != team || w <= 0 || r.Instances <= 0 {
			continue
		}
		if start, end := max(r.Start, lo), min(r.End, hi); end > start {
			rate := w * float64(r.Instances)
			edges = append(edges, edge{start, rate}, edge{end, -rate})
		}
	}
	slices.SortFunc(edges, func(a, c edge) int { return cmp.Compare(a.at, c.at) })
	limit := b.Limit() * msPerHour
	used, rate, at := 0.0, 0.0, lo
	for _, e := range edges {
		if rate > 0 && used+rate*float64(e.at-at) >= limit {
			return time.UnixMilli(at + int64(math.Ceil((limit-used)/rate))).UTC(), true
		}
		used += rate * float64(e.at-at)
		rate += e.rate
		at = e.at
	}
	return time.Time{}, false
}

// Decision is what a submission of one (class, team) on one instance type
// gets from the team's budgets.
type Decision struct {
	// Action is what the submission gets: "" when no budget that counts
	// the instance type is used, else the strictest action of the used ones
	// for the class (refuse over lower-priority over alarm).
	Action platform.BudgetAction
	// By is the budget that decided Action (the first of the strictest).
	By *Status
	// Budgets are every budget of the team that counts the instance type,
	// in the platform file's order.
	Budgets []Status
}

// Decide evaluates team's budgets that count instanceType at now over the
// team's runs, and what a submission of class gets.
func Decide(p *platform.Platform, team, class, instanceType string, runs []showback.Interval, now time.Time) Decision {
	var d Decision
	t, ok := p.Team(team)
	if !ok {
		return d
	}
	by := -1
	strictness := func(a platform.BudgetAction) int { return slices.Index(platform.BudgetActions(), a) }
	for _, b := range t.Budgets {
		if b.Weight(instanceType, p.Ledger.HourlyPrices) <= 0 {
			continue
		}
		s := Evaluate(team, b, p.Ledger.HourlyPrices, runs, now)
		d.Budgets = append(d.Budgets, s)
		if !s.Over() {
			continue
		}
		if a := b.ActionFor(class); d.Action == "" || strictness(a) > strictness(d.Action) {
			d.Action, by = a, len(d.Budgets)-1
		}
	}
	if by >= 0 {
		d.By = &d.Budgets[by]
	}
	return d
}

// SchedulingPriority is the scheduling priority a submission of class
// asking for request priority asked gets under the decision: the bottom of
// the class's band when its budget lowers it, else the class's mapping.
func (d Decision) SchedulingPriority(c platform.Class, asked int) int {
	if d.Action == platform.ActionLowerPriority {
		return c.Priority.Min
	}
	return c.SchedulingPriority(asked)
}

// Refused reports whether the submission is refused.
func (d Decision) Refused() bool { return d.Action == platform.ActionRefuse }

// String says what the budget is at: its name, used, limit, percent and
// when it resets, as every answer shows it.
func (s Status) String() string {
	resets := "resets " + s.Resets.UTC().Format(time.RFC3339)
	if s.Period == platform.PeriodRolling30Days {
		if s.Over() {
			resets = "back under its limit at " + s.Resets.UTC().Format(time.RFC3339) + " if nothing more runs"
		} else {
			resets = "rolling 30 days"
		}
	}
	return fmt.Sprintf("budget %s of team %s: used %s of %s %s (%.1f%%) since %s; %s", s.Budget, s.Team,
		figure(s.Used), figure(s.Limit), s.Unit, s.Percent(), s.Since.UTC().Format(time.RFC3339), resets)
}

// figure prints an amount rounded to two decimals, without trailing
// zeros.
func figure(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
