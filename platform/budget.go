package platform

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Budget limits how much of the pools one team uses over a period:
// instance-hours of one type, of every type, or weighted across types (by
// explicit weights or by price), per calendar month (UTC) or over a rolling
// 30 days; and, per class, what a submission gets once the team has used
// all of it. Jobs already running are never stopped by a budget. The rule
// that evaluates a budget is package budget's, which the submission
// function and the simulator both call.
type Budget struct {
	// Name names the budget in answers, metrics and alarms: 1–64 letters,
	// digits, '-' or '_', unique within the team. Required.
	Name string `json:"name"`
	// InstanceHours is the limit in instance-hours: of InstanceType when it
	// is set, weighted by Weights when they are set, else of every type.
	// One of instanceHours or cost is required.
	InstanceHours float64 `json:"instanceHours,omitempty"`
	// InstanceType, with InstanceHours, counts only this type (a pool's).
	// Default: every type counts.
	InstanceType string `json:"instanceType,omitempty"`
	// Weights, with InstanceHours, counts each listed type's
	// instance-hours times its weight (e.g. ml.p5.48xlarge 1,
	// ml.p4d.24xlarge 0.4: hours in ml.p5.48xlarge equivalents); a type
	// not listed counts nothing. Default: every type counts 1.
	Weights map[string]float64 `json:"weights,omitempty"`
	// Cost is the limit in money: every type's instance-hours times its
	// ledger.hourlyPrices price, so every pool's type needs a price.
	Cost float64 `json:"cost,omitempty"`
	// Period is month (the calendar month, UTC) or rolling-30-days.
	// Default: month.
	Period BudgetPeriod `json:"period,omitempty"`
	// Actions say per class what a submission gets once the team has used
	// 100% of the budget: alarm (accepted as asked; the alarms tell), lower-
	// priority (accepted at the bottom of the class's band) or refuse.
	// Default: alarm for every class not listed.
	Actions map[string]BudgetAction `json:"actions,omitempty"`
	// Alarms are the percents of the limit at which an alarm fires (on the
	// figure the poller writes every 15 minutes; alarms.BudgetRules) and
	// each one's severity. Default: 80 and 100, both ticket.
	Alarms []BudgetAlarm `json:"alarms,omitempty"`
}

// BudgetPeriod is the window a budget counts over.
type BudgetPeriod string

// Budget periods.
const (
	// PeriodMonth is the calendar month, UTC: usage starts again at 00:00
	// UTC on the first of each month.
	PeriodMonth BudgetPeriod = "month"
	// PeriodRolling30Days is the 30 days (720 hours) before now: usage falls
	// out of the window as it ages.
	PeriodRolling30Days BudgetPeriod = "rolling-30-days"
)

// BudgetAction is what a submission gets once its team has used its
// budget.
type BudgetAction string

// Budget actions, from the mildest.
const (
	// ActionAlarm accepts the job as asked; only the alarms tell.
	ActionAlarm BudgetAction = "alarm"
	// ActionLowerPriority accepts the job at the bottom of its class's
	// priority band.
	ActionLowerPriority BudgetAction = "lower-priority"
	// ActionRefuse refuses the job.
	ActionRefuse BudgetAction = "refuse"
)

// BudgetActions lists the actions, from the mildest.
func BudgetActions() []BudgetAction {
	return []BudgetAction{ActionAlarm, ActionLowerPriority, ActionRefuse}
}

// BudgetAlarm is one alarm of a budget: it fires when the team's usage
// reaches Percent of the limit.
type BudgetAlarm struct {
	// Percent of the limit, 1–1000. Required.
	Percent float64 `json:"percent"`
	// Severity is page or ticket. Default: ticket.
	Severity string `json:"severity,omitempty"`
}

// DefaultBudgetAlarms are a budget's alarms when it lists none: 80% and
// 100%, both tickets (a budget is spent over days, which on-call need not be
// woken for).
func DefaultBudgetAlarms() []BudgetAlarm {
	return []BudgetAlarm{{Percent: 80, Severity: SeverityTicket}, {Percent: 100, Severity: SeverityTicket}}
}

// Limits of budgets.
const (
	// MaxBudgetsPerTeam bounds teams[].budgets.
	MaxBudgetsPerTeam = 10
	// MaxBudgetAlarms bounds a budget's alarms.
	MaxBudgetAlarms = 5
	// MaxBudgetAlarmPercent bounds an alarm's percent.
	MaxBudgetAlarmPercent = 1000.0
	// MaxBudgetWeight bounds a weight of budgets[].weights.
	MaxBudgetWeight = 1000.0
	// MaxBudgetAlarmsTotal bounds the budget alarms of all teams together:
	// the stack deploys a CloudWatch alarm for each, and a CloudFormation
	// stack holds at most 500 resources, of which the rest of the platform
	// takes about 100.
	MaxBudgetAlarmsTotal = 200
)

// budgetNamePattern: 1 to 64 letters, digits, _ and -.
var budgetNamePattern = charPattern{letters + digits + "_-", letters + digits + "_-", 64}

// ActionFor is what a submission of class gets once the budget is used:
// the class's action, alarm when none is listed.
func (b Budget) ActionFor(class string) BudgetAction {
	if a, ok := b.Actions[class]; ok {
		return a
	}
	return ActionAlarm
}

// Weight is what one instance-hour of instanceType counts in the budget's
// unit (0: it does not count), prices being ledger.hourlyPrices.
func (b Budget) Weight(instanceType string, prices map[string]float64) float64 {
	switch {
	case b.Cost > 0:
		return prices[instanceType]
	case b.InstanceType != "":
		if instanceType == b.InstanceType {
			return 1
		}
		return 0
	case b.Weights != nil:
		return b.Weights[instanceType]
	}
	return 1
}

// Limit is the budget's limit in its unit.
func (b Budget) Limit() float64 {
	if b.Cost > 0 {
		return b.Cost
	}
	return b.InstanceHours
}

// Unit names what the budget counts, for answers.
func (b Budget) Unit() string {
	switch {
	case b.Cost > 0:
		return "cost"
	case b.InstanceType != "":
		return "instance-hours of " + b.InstanceType
	case b.Weights != nil:
		return "weighted instance-hours"
	}
	return "instance-hours"
}

func (p *Platform) applyBudgetDefaults(t *Team) {
	for i := range t.Budgets {
		b := &t.Budgets[i]
		if b.Period == "" {
			b.Period = PeriodMonth
		}
		if b.Alarms == nil {
			b.Alarms = DefaultBudgetAlarms()
		}
		for j := range b.Alarms {
			if b.Alarms[j].Severity == "" {
				b.Alarms[j].Severity = SeverityTicket
			}
		}
	}
}

// validateBudgetAlarmsTotal bounds the budget alarms of all teams
// (MaxBudgetAlarmsTotal); a budget that lists none has the default two.
func (p *Platform) validateBudgetAlarmsTotal(ps *Problems) {
	n := 0
	for _, t := range p.Teams {
		for _, b := range t.Budgets {
			if b.Alarms == nil {
				n += len(DefaultBudgetAlarms())
			} else {
				n += len(b.Alarms)
			}
		}
	}
	if n > MaxBudgetAlarmsTotal {
		ps.Addf("teams", fmt.Sprintf("%d budget alarms", n), "at most %d budget alarms in all (teams[].budgets[].alarms, 2 for a budget that lists none): the stack deploys a CloudWatch alarm for each, and a CloudFormation stack holds at most 500 resources", MaxBudgetAlarmsTotal)
	}
}

// validateBudgets checks one team's budgets: f is the team's field.
func (p *Platform) validateBudgets(ps *Problems, f string, t Team) {
	if len(t.Budgets) > MaxBudgetsPerTeam {
		ps.Addf(f+".budgets", fmt.Sprintf("%d budgets", len(t.Budgets)), "at most %d budgets per team", MaxBudgetsPerTeam)
	}
	types := p.InstanceTypes()
	seen := map[string]bool{}
	for i, b := range t.Budgets {
		bf := fmt.Sprintf("%s.budgets[%d]", f, i)
		switch {
		case !budgetNamePattern.MatchString(b.Name):
			ps.Add(bf+".name", b.Name, "1-64 letters, digits, '-' or '_'")
		case seen[b.Name]:
			ps.Add(bf+".name", b.Name, "a name not used by another budget of the team")
		}
		seen[b.Name] = true
		switch {
		case b.InstanceHours != 0 && b.Cost != 0:
			ps.Add(bf+".cost", b.Cost, "no value with instanceHours (a budget counts instance-hours or cost, not both)")
		case b.Cost != 0:
			if !(b.Cost > 0 && b.Cost <= 1e12) {
				ps.Add(bf+".cost", b.Cost, "above 0 and at most 1e12, in the currency of ledger.hourlyPrices")
			}
			if b.InstanceType != "" || b.Weights != nil {
				ps.Add(bf+".cost", b.Cost, "no instanceType or weights with cost (every type counts at its price)")
			}
			var unpriced []string
			for _, it := range types {
				if p.Ledger.HourlyPrices[it] <= 0 {
					unpriced = append(unpriced, it)
				}
			}
			if len(unpriced) > 0 {
				ps.Add(bf+".cost", b.Cost, "a cost budget only when ledger.hourlyPrices prices every pool's type (none for "+strings.Join(unpriced, ", ")+")")
			}
		case !(b.InstanceHours > 0 && b.InstanceHours <= 1e9):
			ps.Add(bf+".instanceHours", b.InstanceHours, "above 0 and at most 1e9 (or omit it and set cost)")
		}
		if b.InstanceType != "" {
			if !slices.Contains(types, b.InstanceType) {
				ps.Addf(bf+".instanceType", b.InstanceType, "an instance type of the pools (%s)", strings.Join(types, ", "))
			}
			if b.Weights != nil {
				ps.Add(bf+".weights", "a mapping", "no value with instanceType (one type, or weights across types)")
			}
		}
		if b.Weights != nil && len(b.Weights) == 0 {
			ps.Add(bf+".weights", "{}", "at least one instance type of the pools with its weight")
		}
		keys := make([]string, 0, len(b.Weights))
		for k := range b.Weights {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			wf := bf + ".weights." + k
			if !slices.Contains(types, k) {
				ps.Addf(wf, k, "an instance type of the pools (%s)", strings.Join(types, ", "))
			}
			if w := b.Weights[k]; !(w > 0 && w <= MaxBudgetWeight) {
				ps.Addf(wf, w, "a weight above 0 and at most %g", MaxBudgetWeight)
			}
		}
		if b.Period != PeriodMonth && b.Period != PeriodRolling30Days {
			ps.Add(bf+".period", string(b.Period), "month (the calendar month, UTC) or rolling-30-days")
		}
		classes := make([]string, 0, len(b.Actions))
		for c := range b.Actions {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		for _, c := range classes {
			af := bf + ".actions." + c
			if _, ok := p.Class(c); !ok {
				ps.Addf(af, c, "a class of the platform (%s)", strings.Join(p.ClassNames(), ", "))
			}
			if a := b.Actions[c]; !slices.Contains(BudgetActions(), a) {
				ps.Add(af, string(a), "alarm, lower-priority or refuse")
			}
		}
		if len(b.Alarms) > MaxBudgetAlarms {
			ps.Addf(bf+".alarms", fmt.Sprintf("%d alarms", len(b.Alarms)), "at most %d alarms per budget", MaxBudgetAlarms)
		}
		percents := map[float64]bool{}
		for j, a := range b.Alarms {
			af := fmt.Sprintf("%s.alarms[%d]", bf, j)
			switch {
			case !(a.Percent >= 1 && a.Percent <= MaxBudgetAlarmPercent):
				ps.Addf(af+".percent", a.Percent, "1 to %g (percent of the limit)", MaxBudgetAlarmPercent)
			case percents[a.Percent]:
				ps.Add(af+".percent", a.Percent, "each percent once per budget")
			}
			percents[a.Percent] = true
			if a.Severity != SeverityPage && a.Severity != SeverityTicket {
				ps.Add(af+".severity", a.Severity, "page or ticket")
			}
		}
	}
}
