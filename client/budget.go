package client

import (
	"context"
	"fmt"
	"io"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// dryRunBudgets asks the function (its budgets action, which reads the job
// ledger and submits nothing) for the team's budgets now, when the platform
// gives the team any, each with what it does to the request's class past
// 100%: the figures a submission's answer would show. It says why when it
// could not ask.
func (c *cmd) dryRunBudgets(ctx context.Context, req contract.Request) ([]contract.BudgetView, string) {
	if c.dryPlatform == nil {
		return nil, ""
	}
	team, ok := c.dryPlatform.Team(req.Team)
	if !ok || len(team.Budgets) == 0 {
		return nil, ""
	}
	resp, err := c.invoke(ctx, contract.Request{Action: contract.ActionBudgets})
	if err != nil {
		return nil, err.Error()
	}
	var out []contract.BudgetView
	for _, v := range resp.Budgets {
		if v.Team != team.Name {
			continue
		}
		for _, b := range team.Budgets {
			if b.Name == v.Budget {
				v.Action = string(b.ActionFor(req.Class))
			}
		}
		out = append(out, v)
	}
	return out, ""
}

// printDryRunBudgets prints the team's budgets under the dry run, and what
// a used one would do to the job.
func printDryRunBudgets(w io.Writer, req contract.Request, d DryRun) error {
	if d.BudgetsNotRead != "" {
		_, err := fmt.Fprintf(w, "\nthe team's budgets were not read (the function decides them): %s\n", contract.Cut(d.BudgetsNotRead, contract.MaxShownChars))
		return err
	}
	if len(d.Budgets) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nbudgets of team %s now (the function judges the job by those that count the instance type it chooses):\n", req.Team)
	if err := printBudgets(w, d.Budgets); err != nil {
		return err
	}
	for _, b := range d.Budgets {
		if !b.Over {
			continue
		}
		var verdict string
		switch platform.BudgetAction(b.Action) {
		case platform.ActionRefuse:
			verdict = "would be refused"
		case platform.ActionLowerPriority:
			verdict = "would run at the bottom of its class's band"
		default:
			verdict = "would run as asked (the budget's alarms tell)"
		}
		if _, err := fmt.Fprintf(w, "%s is used: a %s job on a type it counts %s\n", b.Budget, req.Class, verdict); err != nil {
			return err
		}
	}
	return nil
}
