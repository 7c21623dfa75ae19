package simulate

import (
	"fmt"
	"time"

	"github.com/trainq/trainq/budget"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

// BudgetResult is one team's budget over a run (platform teams[].budgets):
// what its submissions got from it and what the team used of it in each
// period. Refused jobs never enter the run (a pipeline would submit them
// again after the reset; the trace does not say when).
type BudgetResult struct {
	Team   string  `json:"team"`
	Budget string  `json:"budget"`
	Unit   string  `json:"unit"`
	Period string  `json:"period"`
	Limit  float64 `json:"limit"`
	// Accepted, Alarmed, Lowered and Refused count the team's submissions
	// that the budget counted, by what they got: accepted under 100%, or
	// past it alarmed (as asked), lowered to the bottom of their class's
	// band, or refused. A submission judged by several budgets counts in
	// the one that decided.
	Accepted int `json:"accepted"`
	Alarmed  int `json:"alarmed"`
	Lowered  int `json:"lowered"`
	Refused  int `json:"refused"`
	// Periods are, for a monthly budget, each calendar month the run
	// touched (the last one to the run's end) and what the team used of
	// the budget in it; for a rolling one, the whole run and the most the
	// window held at any submission.
	Periods []BudgetPeriod `json:"periods"`
}

// BudgetPeriod is what a team used of a budget in one period.
type BudgetPeriod struct {
	// Since and Until bound the period (RFC 3339).
	Since string  `json:"since"`
	Until string  `json:"until"`
	Used  float64 `json:"used"`
	// Over is Used − the limit when positive: the jobs the budget could not
	// stop (accepted before 100%, and running when it was reached).
	Over float64 `json:"over"`
	// Reached is when the team had used all of it (RFC 3339; "" never);
	// HeldAfterSeconds how long after that the team's counted work in the
	// period still ran (the jobs accepted before), to set beside
	// LongestRunSeconds, the longest part of an attempt it counted in the
	// period.
	Reached           string `json:"reached,omitempty"`
	HeldAfterSeconds  int64  `json:"heldAfterSeconds,omitempty"`
	LongestRunSeconds int64  `json:"longestRunSeconds"`
}

// budgets models the platform's budgets in a run: each submission of a
// team with budgets gets budget.Decide's action over the team's attempts
// so far (ended ones, and running ones counted to now), the rule the
// submission function applies to the job ledger.
type budgets struct {
	// epoch is the moment of the trace's second 0, in Unix milliseconds.
	epoch int64
	teams []teamBudgets // per share
	on    bool
}

type teamBudgets struct {
	budgets []platform.Budget
	// ended are the team's ended attempts still inside a window.
	ended   []showback.Interval
	results []BudgetResult
	// closed is, per budget, the start of the first month not yet
	// reported (monthly budgets); peak the most a rolling window held.
	closed []time.Time
	peak   []float64
	first  time.Time
}

func newBudgets(p *platform.Platform, policy Policy, epoch time.Time) budgets {
	if epoch.IsZero() {
		epoch = time.Unix(0, 0)
	}
	b := budgets{epoch: epoch.UnixMilli(), teams: make([]teamBudgets, len(p.Teams))}
	if policy != PolicyPlatform {
		return b // the FIFO baseline has no budgets
	}
	for i, t := range p.Teams {
		if len(t.Budgets) == 0 {
			continue
		}
		b.on = true
		tb := &b.teams[i]
		tb.budgets = t.Budgets
		tb.closed = make([]time.Time, len(t.Budgets))
		tb.peak = make([]float64, len(t.Budgets))
		for _, bu := range t.Budgets {
			tb.results = append(tb.results, BudgetResult{Team: t.Name, Budget: bu.Name, Unit: bu.Unit(), Period: string(bu.Period), Limit: bu.Limit()})
		}
	}
	return b
}

// at is simulated second s as a moment.
func (b *budgets) at(s int64) time.Time { return time.UnixMilli(b.epoch + s*1000).UTC() }

// runs are share si's attempts at now: the ended ones kept and the running
// ones counted to now.
func (e *engine) budgetRuns(si int) []showback.Interval {
	tb := &e.budgets.teams[si]
	runs := tb.ended
	now := e.budgets.epoch + e.now*1000
	for t := range e.running[si] {
		for _, idx := range e.running[si][t] {
			j := &e.jobs[idx]
			runs = append(runs, showback.Interval{Team: e.teamNames[si], Class: e.classes[j.class].Name, InstanceType: e.types[t],
				Start: e.budgets.epoch + j.start*1000, End: now, StartedAt: e.budgets.epoch + j.start*1000, Instances: int(j.k), JobID: j.id, Kind: showback.Running})
		}
	}
	return runs
}

// budgetEnded keeps an ended attempt of a team with budgets.
func (e *engine) budgetEnded(j *job) {
	tb := &e.budgets.teams[j.share]
	if len(tb.budgets) == 0 {
		return
	}
	start := e.budgets.epoch + j.start*1000
	tb.ended = append(tb.ended, showback.Interval{Team: e.teamNames[j.share], Class: e.classes[j.class].Name, InstanceType: e.types[j.typ],
		Start: start, End: e.budgets.epoch + e.now*1000, StartedAt: start, Instances: int(j.k), JobID: j.id, Kind: showback.Goodput})
}

// budgetDecision is what the budgets of share si say of a submission of
// class ci on type ti now; it reports the months that ended before now
// first, and then forgets the attempts no window holds.
func (e *engine) budgetDecision(si, ci, ti int) budget.Decision {
	tb := &e.budgets.teams[si]
	if len(tb.budgets) == 0 {
		return budget.Decision{}
	}
	now := e.budgets.at(e.now)
	runs := e.budgetRuns(si)
	e.closeMonths(si, runs, now)
	d := budget.Decide(e.p, e.teamNames[si], e.classes[ci].Name, e.types[ti], runs, now)
	for _, s := range d.Budgets {
		for k := range tb.budgets {
			if tb.budgets[k].Name == s.Budget {
				tb.peak[k] = max(tb.peak[k], s.Used)
			}
		}
	}
	decided := ""
	if d.By != nil {
		decided = d.By.Budget
	}
	for k := range tb.results {
		r := &tb.results[k]
		switch {
		case r.Budget == decided && d.Action == platform.ActionRefuse:
			r.Refused++
		case r.Budget == decided && d.Action == platform.ActionLowerPriority:
			r.Lowered++
		case r.Budget == decided:
			r.Alarmed++
		case d.By == nil && tb.budgets[k].Weight(e.types[ti], e.p.Ledger.HourlyPrices) > 0:
			r.Accepted++
		}
	}
	// Forget the attempts that ended before every window's start.
	earliest := budget.Earliest(tb.budgets, now)
	for k, b := range tb.budgets {
		if b.Period == platform.PeriodMonth && tb.closed[k].Before(earliest) {
			earliest = tb.closed[k]
		}
	}
	kept := tb.ended[:0]
	for _, r := range tb.ended {
		if r.End > earliest.UnixMilli() {
			kept = append(kept, r)
		}
	}
	tb.ended = kept
	return d
}

// closeMonths reports every month of share si's monthly budgets that ended
// at or before now.
func (e *engine) closeMonths(si int, runs []showback.Interval, now time.Time) {
	tb := &e.budgets.teams[si]
	if tb.first.IsZero() {
		tb.first = e.budgets.at(e.stats.start)
		for k := range tb.budgets {
			tb.closed[k], _ = budget.Window(platform.PeriodMonth, tb.first)
		}
	}
	for k, b := range tb.budgets {
		if b.Period != platform.PeriodMonth {
			continue
		}
		for {
			_, next := budget.Window(platform.PeriodMonth, tb.closed[k])
			if next.After(now) {
				break
			}
			tb.results[k].add(e.teamNames[si], b, e.p.Ledger.HourlyPrices, runs, tb.closed[k], next)
			tb.closed[k] = next
		}
	}
}

// add reports what team's runs used of b in [since, until].
func (r *BudgetResult) add(team string, b platform.Budget, prices map[string]float64, runs []showback.Interval, since, until time.Time) {
	used := round4(budget.Used(team, b, prices, runs, since, until))
	pd := BudgetPeriod{Since: since.Format(time.RFC3339), Until: until.Format(time.RFC3339), Used: used, Over: round4(max(0, used-r.Limit))}
	lo, hi := since.UnixMilli(), until.UnixMilli()
	last := int64(0)
	for _, run := range runs {
		if run.Team != team || b.Weight(run.InstanceType, prices) <= 0 || run.End <= lo || run.Start >= hi {
			continue
		}
		last = max(last, min(run.End, hi))
		pd.LongestRunSeconds = max(pd.LongestRunSeconds, (min(run.End, hi)-max(run.Start, lo))/1000)
	}
	if at, ok := budget.Reached(team, b, prices, runs, since, until); ok {
		pd.Reached = at.Format(time.RFC3339)
		pd.HeldAfterSeconds = max(0, (last-at.UnixMilli())/1000)
	}
	r.Periods = append(r.Periods, pd)
}

// budgetResults closes the run's budgets at its end.
func (e *engine) budgetResults(end int64) []BudgetResult {
	if !e.budgets.on {
		return nil
	}
	var out []BudgetResult
	until := e.budgets.at(end)
	for si := range e.budgets.teams {
		tb := &e.budgets.teams[si]
		if len(tb.budgets) == 0 {
			continue
		}
		runs := e.budgetRuns(si)
		e.closeMonths(si, runs, until)
		for k, b := range tb.budgets {
			if b.Period == platform.PeriodMonth {
				if until.After(tb.closed[k]) {
					tb.results[k].add(e.teamNames[si], b, e.p.Ledger.HourlyPrices, runs, tb.closed[k], until)
				}
				continue
			}
			tb.results[k].add(e.teamNames[si], b, e.p.Ledger.HourlyPrices, runs, tb.first, until)
			p := &tb.results[k].Periods[len(tb.results[k].Periods)-1]
			// A rolling window: the most it held at any submission.
			p.Used = round4(max(tb.peak[k], budget.Evaluate(e.teamNames[si], b, e.p.Ledger.HourlyPrices, runs, until).Used))
			p.Over = round4(max(0, p.Used-b.Limit()))
		}
		out = append(out, tb.results...)
	}
	return out
}

// budgetRefusal is the reason a refused job names.
func budgetRefusal(d budget.Decision) string {
	return fmt.Sprintf("refused: %s", d.By)
}
