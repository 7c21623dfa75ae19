package poll

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trainq/trainq/budget"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/showback"
)

// The budget pass's cadence: the poller writes every team's budgets'
// figures (metrics.BudgetMetrics) once every BudgetInterval, in the run of
// the minute BudgetOffset into it (minutes 7, 22, 37 and 52 of each hour).
// The offset keeps the pass out of the reconciling pass's run (the first
// minute of each 15) and puts it mid-way through each 15-minute period of
// the budget alarms (alarms.BudgetRules), so that each period holds one
// figure whatever the emission's jitter.
const (
	BudgetInterval = 15 * time.Minute
	BudgetOffset   = 7 * time.Minute
)

// BudgetLedger is the part of the job ledger the budget pass reads
// (ledger.Store): every job alive in a window, running ones included.
type BudgetLedger interface {
	Jobs(ctx context.Context, since, until time.Time, fn func(*ledger.Job) error) error
}

// BudgetsDue reports whether a run at now makes the budget pass: some team
// has a budget, and now is in the minute BudgetOffset into its
// BudgetInterval.
func (p *Poller) BudgetsDue(now time.Time) bool {
	if len(budget.Budgets(p.cfg.Platform)) == 0 {
		return false
	}
	return now.Sub(now.Truncate(BudgetInterval)).Truncate(time.Minute) == BudgetOffset
}

// WriteBudgets is the budget pass: it reads from l every team's runs in the
// longest window of the platform's budgets (running jobs counted to now,
// as the submission function reads them), evaluates every budget with
// package budget's rule (budget.All over budget.Evaluate, by which the
// submission function decides), and writes one EMF line per team and
// budget: BudgetUsedPercent and BudgetForecastPercent, in percent of the
// budget's limit. It returns the figures written. A failed read writes
// nothing: no figure rather than a low one (the budget alarms keep their
// state through a missing figure).
func (p *Poller) WriteBudgets(ctx context.Context, l BudgetLedger) ([]budget.Status, error) {
	all := budget.Budgets(p.cfg.Platform)
	if len(all) == 0 {
		return nil, nil
	}
	now := p.cfg.Now()
	since := budget.Earliest(all, now)
	lo, hi := since.UnixMilli(), now.UnixMilli()
	var runs []showback.Interval
	err := l.Jobs(ctx, since, now, func(j *ledger.Job) error {
		runs = append(runs, j.Intervals(lo, hi)...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("budgets: read the job ledger: %w", err)
	}
	statuses := budget.All(p.cfg.Platform, runs, now)
	var buf bytes.Buffer
	var errs []error
	for _, s := range statuses {
		line, err := BudgetRecord(p.queueName, s).Encode()
		if err != nil {
			errs = append(errs, fmt.Errorf("budgets: encode %s of %s: %w", s.Budget, s.Team, err))
			continue
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if _, err := p.cfg.Out.Write(buf.Bytes()); err != nil {
		errs = append(errs, fmt.Errorf("budgets: write metrics: %w", err))
	}
	return statuses, errors.Join(errs...)
}

// BudgetRecord is the EMF record of one budget's figures at s.Now.
func BudgetRecord(queue string, s budget.Status) *metrics.Record {
	r := &metrics.Record{Time: s.Now, Dimensions: map[string]string{metrics.Queue: queue, metrics.Team: s.Team, metrics.Budget: s.Budget},
		Properties: map[string]any{"unit": s.Unit, "period": string(s.Period), "used": s.Used, "limit": s.Limit,
			"forecast": s.Forecast, "ratePerHour": s.Rate, "resets": s.Resets.UTC().Format(time.RFC3339)}}
	r.Add(metrics.BudgetUsedPercent, s.Percent())
	r.Add(metrics.BudgetForecastPercent, 100*s.Forecast/s.Limit)
	return r
}
