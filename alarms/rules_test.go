package alarms

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

var nan = math.NaN()

func TestEvaluateIsCloudWatchsMOfN(t *testing.T) {
	threeOfFive := Rule{Comparison: GreaterThan, Threshold: 900, DatapointsToAlarm: 3, EvaluationPeriods: 5, TreatMissing: NotBreaching}
	cases := []struct {
		name   string
		rule   Rule
		points []float64
		want   []int
	}{
		// Breaching at 0, 2, 4: the third breach within 5 periods is at period 4.
		{"three breaches in five periods fire at the third", threeOfFive, []float64{901, 0, 901, 0, 901}, []int{4}},
		// 0 and 4 are 5 periods apart from 5: at period 5 the window 1..5 holds 2, 4, 5.
		{"breaches spread wider than the window do not add up", threeOfFive, []float64{901, 0, 0, 0, 901, 0, 0, 0, 901}, nil},
		{"two blips never fire a 3-of-5 alarm", threeOfFive, []float64{1000, 1000, 0, 0, 0, 0, 1000}, nil},
		// ALARM at 2 (periods 0-2 breach) through 4; at 5 the window 1-5 holds two
		// breaches: OK; periods 6-8 breach: ALARM again at 8.
		{"an alarm that clears fires again", threeOfFive, []float64{901, 901, 901, 0, 0, 0, 901, 901, 901}, []int{2, 8}},
		{"missing data that does not breach never fires", threeOfFive, []float64{nan, nan, nan, nan}, nil},
		{"missing data that breaches fires a heartbeat", Rule{Comparison: LessThan, Threshold: 1, DatapointsToAlarm: 2, EvaluationPeriods: 3, TreatMissing: Breaching},
			[]float64{1, 1, nan, 1, nan, nan}, []int{4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.rule.Evaluate(tc.points)); diff != "" {
				t.Errorf("firings (-want +got):\n%s", diff)
			}
		})
	}
}

// everyRule is every rule of the default platform with a submitter that
// has a dead-letter queue and a re-router, and budgets (budgetPlatform).
func everyRule() []Rule {
	rules := QueueRules(QueueThresholdsOf(platform.Default()))
	rules = append(rules, BudgetRules(budgetPlatform())...)
	rules = append(rules, PipelineRules()...)
	rules = append(rules, SubmitterRules([]string{"UpstreamError", "Throttled"}, true)...)
	return append(rules, RerouterRules([]string{metrics.RefusedSubmit, metrics.RefusedTerminate}, 3, 900, 300)...)
}

func TestEveryRuleIsWellFormed(t *testing.T) {
	kinds := map[string]bool{}
	for _, r := range everyRule() {
		kinds[r.Runbook] = true
		if r.Severity != platform.SeverityPage && r.Severity != platform.SeverityTicket {
			t.Errorf("%s: severity %q, want page or ticket", r.Name, r.Severity)
		}
		if r.DatapointsToAlarm < 1 || r.DatapointsToAlarm > r.EvaluationPeriods {
			t.Errorf("%s: %d of %d datapoints; want 1 ≤ M ≤ N", r.Name, r.DatapointsToAlarm, r.EvaluationPeriods)
		}
		// CloudWatch: an alarm's description holds at most 1024 characters;
		// a period of a minute or more is a multiple of 60 s; M-of-N spans at
		// most one day.
		if d := r.Description(platform.DefaultRunbookURL); len(d) > 1024 {
			t.Errorf("%s: description of %d characters, CloudWatch keeps 1024", r.Name, len(d))
		}
		if r.PeriodSeconds%60 != 0 || r.PeriodSeconds*r.EvaluationPeriods > 86400 {
			t.Errorf("%s: %d periods of %d s; want whole minutes, one day at most", r.Name, r.EvaluationPeriods, r.PeriodSeconds)
		}
		if len(r.Terms) == 0 && len(r.IdleTypes) == 0 {
			t.Errorf("%s watches nothing", r.Name)
		}
		for _, term := range r.Terms {
			if term.Resource != "" {
				continue
			}
			dims := []string{metrics.Queue}
			for d := range term.Dimensions {
				dims = append(dims, d)
			}
			if !term.Metric.HasDimensions(dims...) {
				t.Errorf("%s watches %s by %v, which it is not emitted with", r.Name, term.Metric.Name, dims)
			}
		}
	}
	for _, k := range Kinds() {
		if !kinds[k] {
			t.Errorf("runbook section %s has no rule", k)
		}
		delete(kinds, k)
	}
	for k := range kinds {
		t.Errorf("rules link runbook section %s, which Kinds does not list", k)
	}
}

func TestSeveritiesFollowPagingClasses(t *testing.T) {
	p := platform.Default()
	pages := map[string]bool{}
	for _, r := range QueueRules(QueueThresholdsOf(p)) {
		if r.Severity == platform.SeverityPage {
			pages[r.Name] = true
		}
	}
	// production is the default's only paging class: its platform-caused
	// failures and its waits with room page; its own failures, waits on a
	// full quota, other classes and idle capacity are tickets.
	want := map[string]bool{"job-failed-production": true, "oldest-wait-production": true}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("paging queue alarms (-want +got):\n%s", diff)
	}
	p.Monitoring.PagingClasses = []string{}
	for _, r := range QueueRules(QueueThresholdsOf(p)) {
		if r.Severity == platform.SeverityPage {
			t.Errorf("with no paging class %s still pages", r.Name)
		}
	}
	if !slices.Contains(Kinds(), KindQuotaFullWait) {
		t.Error("quota-full-wait has no runbook section")
	}
}

// budgetPlatform is the default platform with budgets: search-ranking's
// p5-month (100 ml.p5.48xlarge hours a month, the default alarms: 80% and
// 100%, tickets) and search-research's cost budget over a rolling 30 days,
// whose 100% pages and 50% is a ticket.
func budgetPlatform() *platform.Platform {
	p := platform.Default()
	p.Ledger.HourlyPrices = map[string]float64{"ml.p5.48xlarge": 98.32, "ml.p4d.24xlarge": 37.69}
	p.Teams[0].Budgets = []platform.Budget{{Name: "p5-month", InstanceHours: 100, InstanceType: "ml.p5.48xlarge",
		Actions: map[string]platform.BudgetAction{"sweep": platform.ActionRefuse}}}
	p.Teams[1].Budgets = []platform.Budget{{Name: "spend", Cost: 250000, Period: platform.PeriodRolling30Days,
		Alarms: []platform.BudgetAlarm{{Percent: 50}, {Percent: 100, Severity: platform.SeverityPage}}}}
	p.ApplyDefaults()
	if err := p.Validate(); err != nil {
		panic(err)
	}
	return p
}
