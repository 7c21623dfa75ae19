package submit

import (
	"context"
	"errors"
	"time"

	"github.com/trainq/trainq/budget"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

// budgetDecision is what team's budgets say of a submission of class on
// instanceType now (package budget's rule over the job ledger's runs). A
// team with no budget counting the type reads nothing. When the ledger
// cannot be read (or none is configured), a class that every such budget
// only alarms for goes on without figures; any other is refused as
// UpstreamError, to retry: a budget that refuses or lowers is not skipped
// because it could not be read.
func (h *Handler) budgetDecision(ctx context.Context, team platform.Team, class, instanceType string, now time.Time) (budget.Decision, error) {
	var counting []platform.Budget
	acts := false
	for _, b := range team.Budgets {
		if b.Weight(instanceType, h.cfg.Platform.Ledger.HourlyPrices) > 0 {
			counting = append(counting, b)
			acts = acts || b.ActionFor(class) != platform.ActionAlarm
		}
	}
	if len(counting) == 0 {
		return budget.Decision{}, nil
	}
	runs, err := h.budgetRuns(ctx, counting, func(t string) bool { return t == team.Name }, now)
	if err != nil {
		if !acts {
			h.log.Warn("budgets not read; the class's budgets only alarm", "team", team.Name, "class", class, "error", err)
			return budget.Decision{}, nil
		}
		return budget.Decision{}, &Error{Kind: contract.KindUpstream, Message: "the team's budgets could not be read from the job ledger; retry with the same idempotencyKey", Err: err}
	}
	return budget.Decide(h.cfg.Platform, team.Name, class, instanceType, runs, now), nil
}

// budgetRuns reads from the ledger the runs of the teams keep accepts in
// the windows of budgets at now: every attempt since the earliest window's
// start, a running one counted to now.
func (h *Handler) budgetRuns(ctx context.Context, budgets []platform.Budget, keep func(team string) bool, now time.Time) ([]showback.Interval, error) {
	if h.cfg.Ledger == nil {
		return nil, errNoLedger
	}
	since := budget.Earliest(budgets, now)
	lo, hi := since.UnixMilli(), now.UnixMilli()
	var runs []showback.Interval
	err := h.cfg.Ledger.Jobs(ctx, since, now, func(j *ledger.Job) error {
		if keep(j.Team) {
			runs = append(runs, j.Intervals(lo, hi)...)
		}
		return nil
	})
	return runs, err
}

var errNoLedger = errors.New("no job ledger is configured for the submission function (" + contract.EnvLedgerTable + ")")

// budgetViews are the answer's figures of statuses; action is what the
// budgets do to the submission's class past 100% ("" for the usage
// action, which judges no submission).
func budgetViews(statuses []budget.Status, actionOf func(budgetName string) platform.BudgetAction) []contract.BudgetView {
	out := make([]contract.BudgetView, 0, len(statuses))
	for _, s := range statuses {
		v := contract.BudgetView{Team: s.Team, Budget: s.Budget, Unit: s.Unit, Period: string(s.Period),
			Since: s.Since.UTC().Format(time.RFC3339), Used: round2(s.Used), Limit: s.Limit, Percent: round2(s.Percent()),
			RatePerHour: round2(s.Rate), Forecast: round2(s.Forecast), Resets: s.Resets.UTC().Format(time.RFC3339),
			Over: s.Over(), Summary: contract.Cut(s.String(), contract.MaxShownChars)}
		if actionOf != nil {
			v.Action = string(actionOf(s.Budget))
		}
		out = append(out, v)
	}
	return out
}

// classAction is what each of team's budgets does to class past 100%.
func classAction(team platform.Team, class string) func(budgetName string) platform.BudgetAction {
	return func(name string) platform.BudgetAction {
		for _, b := range team.Budgets {
			if b.Name == name {
				return b.ActionFor(class)
			}
		}
		return ""
	}
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// teamBudgets is every team's budgets at now, for the usage action: nil
// when no team has one.
func (h *Handler) teamBudgets(ctx context.Context, now time.Time) ([]contract.BudgetView, error) {
	all := budget.Budgets(h.cfg.Platform)
	if len(all) == 0 {
		return nil, nil
	}
	runs, err := h.budgetRuns(ctx, all, func(string) bool { return true }, now)
	if err != nil {
		return nil, err
	}
	return budgetViews(budget.All(h.cfg.Platform, runs, now), nil), nil
}

// budgets answers the budgets action: every team's budgets now.
func (h *Handler) budgets(ctx context.Context, req contract.Request) (*contract.Response, error) {
	var ps problems
	for _, f := range []struct {
		name string
		set  bool
	}{{"jobId", req.JobID != ""}, {"jobName", req.JobName != ""}, {"trainingJob", len(req.TrainingJob) > 0}, {"priority", req.Priority != nil},
		{"since", req.Since != ""}, {"until", req.Until != ""}, {"period", req.Period != ""}} {
		if f.set {
			ps.Add(f.name, "given", "nothing: budgets are read as of now")
		}
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}
	views, err := h.teamBudgets(ctx, h.cfg.Now())
	if err != nil {
		return nil, &Error{Kind: contract.KindUpstream, Message: "budgets: the job ledger could not be read", Err: err}
	}
	return &contract.Response{Budgets: views}, nil
}
