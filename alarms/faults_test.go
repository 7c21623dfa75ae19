package alarms

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// constant is a series of minutes values of v.
func constant(minutes int, v float64) []float64 {
	out := make([]float64, minutes)
	for i := range out {
		out[i] = v
	}
	return out
}

// healthy is what a working platform writes: the heartbeats and the
// poller's gauges every minute, nothing waiting, 90% utilization, every
// budget at 40% each 15 minutes (the budget pass), no failure, error,
// throttle or dead letter (those metrics have no data).
func healthy(minutes int) Series {
	return func(t Term) []float64 {
		switch {
		case t.Resource != "":
			return nil
		case t.Metric.Name == metrics.BudgetUsedPercent.Name:
			return budgetPass(minutes, func(int) float64 { return 40 })
		case t.Metric.Name == metrics.ObserverHeartbeats.Name:
			return constant(minutes, 1)
		case t.Metric.Name == metrics.CapacityUtilization.Name:
			return constant(minutes, 90)
		case t.Metric.Name == metrics.RunnableJobs.Name, t.Metric.Name == metrics.OldestRunnableSeconds.Name:
			return constant(minutes, 0)
		}
		return nil
	}
}

// fault is healthy with the rule's own fault: its terms breach every
// minute (counters at the threshold each minute, gauges just past it), a
// heartbeat stops, an instance type idles while jobs wait for it.
func fault(r Rule, minutes int) Series {
	base := healthy(minutes)
	return func(t Term) []float64 {
		if len(r.IdleTypes) > 0 {
			switch t.Metric.Name {
			case metrics.RunnableJobs.Name:
				return constant(minutes, 3)
			case metrics.CapacityUtilization.Name:
				return constant(minutes, r.Target-10)
			}
		}
		for _, own := range r.Terms {
			if own.Resource != t.Resource || own.AWSMetric != t.AWSMetric || own.Metric.Name != t.Metric.Name || !sameDims(own.Dimensions, t.Dimensions) {
				continue
			}
			switch r.Comparison {
			case LessThan:
				return nil // the heartbeat stopped
			case GreaterThan:
				return constant(minutes, r.Threshold+1)
			default:
				return constant(minutes, r.Threshold)
			}
		}
		return base(t)
	}
}

// budgetPass is the series of the poller's budget figures over minutes:
// the k-th figure value(k) written in minute 15k+7 (minutes 7, 22, 37, 52
// of each hour), NaN (nothing written) elsewhere and where value is NaN.
func budgetPass(minutes int, value func(k int) float64) []float64 {
	out := constant(minutes, math.NaN())
	for m := 7; m < minutes; m += 15 {
		out[m] = value(m / 15)
	}
	return out
}

func sameDims(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestEachAlarmFiresOnItsFaultAndStaysQuietWhenHealthy: over a day, every
// rule of the default platform (with a submitter, its dead-letter queue and
// a re-router) stays OK on a healthy platform, and fires, once, on its own
// fault, no later than its M of N allows.
func TestEachAlarmFiresOnItsFaultAndStaysQuietWhenHealthy(t *testing.T) {
	const minutes = 24 * 60
	for _, r := range everyRule() {
		t.Run(r.Name, func(t *testing.T) {
			if got := r.Evaluate(r.Datapoints(healthy(minutes), minutes)); len(got) != 0 {
				t.Errorf("fired on a healthy platform at periods %v", got)
			}
			got := r.Evaluate(r.Datapoints(fault(r, minutes), minutes))
			if len(got) != 1 {
				t.Fatalf("fired %d times on its fault (periods %v), want once (it stays in ALARM)", len(got), got)
			}
			// M breaching periods from the start: it fires at period M-1.
			if got[0] != r.DatapointsToAlarm-1 {
				t.Errorf("fired at period %d, want %d (%d of %d)", got[0], r.DatapointsToAlarm-1, r.DatapointsToAlarm, r.EvaluationPeriods)
			}
		})
	}
}

func TestAnIdleTypeCountsEvenWhenTheOtherIsBusy(t *testing.T) {
	// p5 idles at 50% with 4 jobs waiting for it; p4d is full with none: the
	// queue as a whole may well be above target, yet p5 idles.
	r := Rule{IdleTypes: []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}, Target: 70, PeriodSeconds: 60,
		Comparison: GreaterThanOrEqual, Threshold: 1, DatapointsToAlarm: 25, EvaluationPeriods: 30, TreatMissing: NotBreaching}
	series := func(t Term) []float64 {
		p5 := t.Dimensions[metrics.InstanceType] == "ml.p5.48xlarge"
		switch {
		case t.Metric.Name == metrics.RunnableJobs.Name && p5:
			return constant(30, 4)
		case t.Metric.Name == metrics.RunnableJobs.Name:
			return constant(30, 0)
		case p5:
			return constant(30, 50)
		}
		return constant(30, 100)
	}
	d := r.Datapoints(series, 30)
	if d[0] != 1 || len(r.Evaluate(d)) != 1 {
		t.Errorf("datapoints %v: want 1 (p5 idle while its jobs wait), firing at the 25th minute", d[:3])
	}
	// Jobs waiting for the full type while the other idles are no idle capacity.
	swapped := func(t Term) []float64 {
		if t.Metric.Name == metrics.RunnableJobs.Name {
			if t.Dimensions[metrics.InstanceType] == "ml.p5.48xlarge" {
				return constant(30, 0)
			}
			return constant(30, 4)
		}
		return series(t)
	}
	if d := r.Datapoints(swapped, 30); d[0] != 0 {
		t.Errorf("jobs waiting for the full p4d while p5 idles: datapoint %g, want 0", d[0])
	}
}

func TestDatapointsReadEachStatistic(t *testing.T) {
	nan := math.NaN()
	v := []float64{1, nan, 3, 2, nan}
	cases := []struct {
		stat string
		want float64
	}{{"Sum", 6}, {"Maximum", 3}, {"Average", 2}, {"SampleCount", 3}}
	for _, c := range cases {
		r := Rule{Terms: []Term{{Metric: metrics.JobsFailed}}, Statistic: c.stat, PeriodSeconds: 300}
		got := r.Datapoints(func(Term) []float64 { return v }, 5)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s of %v = %v, want [%g]", c.stat, v, got, c.want)
		}
	}
	// Two terms: each missing one counts 0; all missing is no data.
	r := Rule{Terms: []Term{{Metric: metrics.SubmissionErrors}, {Metric: metrics.JobsFailed}}, Statistic: "Sum", PeriodSeconds: 60}
	got := r.Datapoints(func(t Term) []float64 {
		if t.Metric.Name == metrics.JobsFailed.Name {
			return []float64{2, nan}
		}
		return nil
	}, 2)
	if got[0] != 2 || !math.IsNaN(got[1]) {
		t.Errorf("FILL sum = %v, want [2 NaN]", got)
	}
}

// budgetRule is the rule of budgetPlatform's p5-month at percent.
func budgetRule(t *testing.T, percent float64) Rule {
	t.Helper()
	for _, r := range BudgetRules(budgetPlatform()) {
		if r.Name == Budget("search-ranking", "p5-month", percent) {
			return r
		}
	}
	t.Fatalf("no rule %s", Budget("search-ranking", "p5-month", percent))
	return Rule{}
}

// TestBudgetAlarmsFireOnceAtTheirPercentAndHoldThroughAMissedFigure feeds
// the 80% and 100% alarms of a budget the series the budget pass writes
// over 3 days (4,320 minutes, 288 periods of 15 minutes): the k-th figure
// (minute 15k+7) is 76 + 0.125k percent (the team uses half a percent of
// its budget an hour) until the month turns at figure 200, then 0.5.
//
// By hand: 76 + 0.125k ≥ 80 from k = 32 (k = 31 gives 79.875, below), so
// the 80% alarm fires in period 32; ≥ 100 from k = 192, so the 100% alarm
// fires in period 192. At k = 200 the figure is 0.5: both clear, and
// nothing fires again. Each alarm notifies once.
func TestBudgetAlarmsFireOnceAtTheirPercentAndHoldThroughAMissedFigure(t *testing.T) {
	const minutes = 3 * 24 * 60
	climbing := func(missed ...int) []float64 {
		return budgetPass(minutes, func(k int) float64 {
			if slices.Contains(missed, k) {
				return math.NaN()
			}
			if k >= 200 {
				return 0.5
			}
			return 76 + 0.125*float64(k)
		})
	}
	// An hour of missed passes (figures 33–36) right after the 80% alarm
	// fired; the figure at the crossing (32) missed too, in another run.
	outage := []int{33, 34, 35, 36}
	for _, c := range []struct {
		name    string
		percent float64
		missed  []int
		want    []int
	}{
		{"80% on every figure", 80, nil, []int{32}},
		{"100% on every figure", 100, nil, []int{192}},
		// Ignore keeps ALARM through the hour without figures: no second
		// notification at 37.
		{"80% through an hour without figures", 80, outage, []int{32}},
		// The crossing's figure is missed: the alarm fires with the next
		// one (80.125% at k = 33).
		{"80% when the crossing's figure is missed", 80, []int{32}, []int{33}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := budgetRule(t, c.percent)
			d := r.Datapoints(func(term Term) []float64 {
				if term.Metric.Name != metrics.BudgetUsedPercent.Name || term.Dimensions[metrics.Budget] != "p5-month" {
					return nil
				}
				return climbing(c.missed...)
			}, minutes)
			if len(d) != minutes/15 {
				t.Fatalf("%d datapoints, want %d periods of 15 minutes", len(d), minutes/15)
			}
			if got := r.Evaluate(d); !slices.Equal(got, c.want) {
				t.Errorf("fired at periods %v, want %v", got, c.want)
			}
		})
	}
	// The same hour without figures under notBreaching would clear the
	// alarm at 33 and notify again at 37: the flap Ignore avoids.
	r := budgetRule(t, 80)
	r.TreatMissing = NotBreaching
	d := r.Datapoints(func(Term) []float64 { return climbing(outage...) }, minutes)
	if got := r.Evaluate(d); !slices.Equal(got, []int{32, 37}) {
		t.Errorf("notBreaching through the outage fired at %v; want [32 37] (the flap the rule's Ignore avoids)", got)
	}
}

// TestBudgetRulesFollowThePlatformFile: one rule per team, budget and
// alarm, with the percent and severity the platform file gives (default
// 80% and 100%, ticket).
func TestBudgetRulesFollowThePlatformFile(t *testing.T) {
	got := map[string]string{}
	for _, r := range BudgetRules(budgetPlatform()) {
		got[r.Name] = fmt.Sprintf("%s %g %s", r.Severity, r.Threshold, r.TreatMissing)
	}
	want := map[string]string{
		"budget-search-ranking-p5-month-80":  "ticket 80 ignore",
		"budget-search-ranking-p5-month-100": "ticket 100 ignore",
		"budget-search-research-spend-50":    "ticket 50 ignore",
		"budget-search-research-spend-100":   "page 100 ignore",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("budget rules (-want +got):\n%s", diff)
	}
	if n := len(BudgetRules(platform.Default())); n != 0 {
		t.Errorf("%d budget rules on a platform without budgets", n)
	}
}
