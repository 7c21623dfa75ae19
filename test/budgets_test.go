package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/alarms"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// TestTheDeployedFunctionsCarryTheBudgets: the submission function (which
// enforces budgets) and the poller (which writes their figures) bundle a
// platform.json holding every team's budgets and the hourly prices as the
// platform file gives them: a stack whose functions lacked them would
// neither refuse nor alarm.
func TestTheDeployedFunctionsCarryTheBudgets(t *testing.T) {
	s := synth(t, examplePlatform)
	want := map[string][]platform.Budget{}
	for _, team := range s.platform.Teams {
		if len(team.Budgets) > 0 {
			want[team.Name] = team.Budgets
		}
	}
	if len(want) == 0 || len(s.platform.Ledger.HourlyPrices) == 0 {
		t.Fatalf("%s has no budgets or prices; the test needs both", examplePlatform)
	}
	for _, fn := range []string{s.platform.SubmitFunctionName(), s.platform.PollerFunctionName()} {
		p := s.bundledPlatform(t, fn)
		got := map[string][]platform.Budget{}
		for _, team := range p.Teams {
			if len(team.Budgets) > 0 {
				got[team.Name] = team.Budgets
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s's budgets (-platform file +bundled):\n%s", fn, diff)
		}
		if diff := cmp.Diff(s.platform.Ledger.HourlyPrices, p.Ledger.HourlyPrices); diff != "" {
			t.Errorf("%s's hourly prices (-platform file +bundled):\n%s", fn, diff)
		}
	}
}

// TestEachBudgetHasItsAlarmsAndItsWidget: for every percent of every
// team's budget, an alarm on the budget's BudgetUsedPercent (Queue, Team,
// Budget) at its Maximum over 15 minutes (the budget pass writes one
// figure in each), 1 of 1, at or above the percent, keeping its state
// without data, notifying its severity's topic; and per team a dashboard
// graph of each budget's used and forecast percents against the limit and
// the alarm percents.
func TestEachBudgetHasItsAlarmsAndItsWidget(t *testing.T) {
	s := synth(t, examplePlatform)
	p := s.platform
	byName := map[string]map[string]any{}
	for _, id := range s.template.ofType("AWS::CloudWatch::Alarm") {
		props := s.template.Resources[id].Properties
		byName[props["AlarmName"].(string)] = props
	}
	// What each severity notifies: the idle-capacity alarm's (a ticket)
	// and the observer-heartbeat alarm's (a page), the platform's topic or
	// the one its file names.
	actions := map[string]any{
		platform.SeverityTicket: byName[p.Name+"-"+alarms.AlarmIdleCapacity]["AlarmActions"],
		platform.SeverityPage:   byName[p.Name+"-"+alarms.AlarmObserverHeartbeat]["AlarmActions"],
	}
	if jsonEqual(actions[platform.SeverityTicket], actions[platform.SeverityPage]) {
		t.Fatalf("%s: tickets and pages notify alike (%v); the test needs them apart", examplePlatform, actions[platform.SeverityPage])
	}
	_, d := s.template.one(t, "AWS::CloudWatch::Dashboard")
	body := dashboardBody(t, d.Properties["DashboardBody"])
	n := 0
	for _, team := range p.Teams {
		if len(team.Budgets) == 0 {
			continue
		}
		var widget any
		for _, w := range asList(body["widgets"]) {
			if strings.HasPrefix(fmt.Sprint(get(w, "properties.title")), "Budgets of "+team.Name+":") {
				widget = w
			}
		}
		if widget == nil {
			t.Errorf("no budget widget of team %s", team.Name)
		}
		shown := map[string]bool{}
		for _, line := range asList(get(widget, "properties.metrics")) {
			arr := asList(line)
			dims := map[string]any{}
			for i := 2; i+1 < len(arr); i += 2 {
				dims[fmt.Sprint(arr[i])] = arr[i+1]
			}
			if dims[metrics.Team] == team.Name {
				shown[fmt.Sprint(arr[1], " ", dims[metrics.Budget])] = true
			}
		}
		lines := map[float64]bool{}
		for _, a := range asList(get(widget, "properties.annotations.horizontal")) {
			lines[get(a, "value").(float64)] = true
		}
		for _, b := range team.Budgets {
			for _, m := range []metrics.Metric{metrics.BudgetUsedPercent, metrics.BudgetForecastPercent} {
				if !shown[m.Name+" "+b.Name] {
					t.Errorf("team %s's budget widget does not show %s of %s (shows %v)", team.Name, m.Name, b.Name, shown)
				}
			}
			if !lines[100] {
				t.Errorf("team %s's budget widget does not draw the limit (100%%): %v", team.Name, lines)
			}
			for _, a := range b.Alarms {
				if !lines[a.Percent] {
					t.Errorf("team %s's budget widget does not draw %g%% (%v)", team.Name, a.Percent, lines)
				}
				n++
				name := p.Name + "-" + alarms.Budget(team.Name, b.Name, a.Percent)
				props, ok := byName[name]
				if !ok {
					t.Errorf("no alarm %s", name)
					continue
				}
				dims := map[string]string{}
				for _, d := range asList(props["Dimensions"]) {
					dims[get(d, "Name").(string)] = fmt.Sprint(get(d, "Value"))
				}
				got := fmt.Sprint(props["Namespace"], "/", props["MetricName"], " ", dims, " ", props["Statistic"], " ", props["Period"], " ",
					props["ComparisonOperator"], " ", props["Threshold"], " ", props["DatapointsToAlarm"], "/", props["EvaluationPeriods"], " ", props["TreatMissingData"])
				wantDims := map[string]string{metrics.Queue: p.JobQueueName(), metrics.Team: team.Name, metrics.Budget: b.Name}
				want := fmt.Sprint(metrics.Namespace, "/", metrics.BudgetUsedPercent.Name, " ", wantDims, " Maximum 900 GreaterThanOrEqualToThreshold ", a.Percent, " 1/1 ignore")
				if got != want {
					t.Errorf("%s:\n got %s\nwant %s", name, got, want)
				}
				for _, k := range []string{"AlarmActions", "OKActions"} {
					if !jsonEqual(props[k], actions[a.Severity]) {
						t.Errorf("%s: %s = %v, want the %s actions %v", name, k, props[k], a.Severity, actions[a.Severity])
					}
				}
				if desc := fmt.Sprint(props["AlarmDescription"]); !strings.Contains(desc, "Severity: "+a.Severity+".") || !strings.HasSuffix(desc, "#"+alarms.KindBudget) {
					t.Errorf("%s: description %q does not give its severity and runbook section", name, desc)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("%s has no budget alarm; the test needs some", examplePlatform)
	}
	// The default platform has no budget: no budget alarm, no widget.
	for _, id := range synth(t, "").template.ofType("AWS::CloudWatch::Alarm") {
		if name := fmt.Sprint(synth(t, "").template.Resources[id].Properties["AlarmName"]); strings.Contains(name, "-"+alarms.KindBudget+"-") {
			t.Errorf("alarm %s on a platform without budgets", name)
		}
	}
}
