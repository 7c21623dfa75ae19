package poll_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

// budgetsPlatform is the default platform with two budgets: search-ranking's
// p5-month (100 ml.p5.48xlarge instance-hours a calendar month) and
// search-research's all-rolling (1,000 instance-hours of every type over a
// rolling 30 days).
func budgetsPlatform() *platform.Platform {
	p := platform.Default()
	p.Teams[0].Budgets = []platform.Budget{{Name: "p5-month", InstanceHours: 100, InstanceType: "ml.p5.48xlarge"}}
	p.Teams[1].Budgets = []platform.Budget{{Name: "all-rolling", InstanceHours: 1000, Period: platform.PeriodRolling30Days}}
	p.ApplyDefaults()
	return p
}

// ran is an observation of a job of team on n instances of typ that ran
// from start to stop (0: still running).
func ran(id, team, typ string, n int, start, stop time.Time) ledger.Observation {
	o := ledger.Observation{JobID: id, JobName: id, Team: team, Class: "research", InstanceType: typ, Instances: n,
		Status: "RUNNING", CreatedAt: start.UnixMilli(), StartedAt: start.UnixMilli(),
		Attempts: []ledger.ObservedAttempt{{StartedAt: start.UnixMilli()}}}
	if !stop.IsZero() {
		o.Status, o.StoppedAt, o.Attempts[0].StoppedAt = "SUCCEEDED", stop.UnixMilli(), stop.UnixMilli()
	}
	return o
}

// TestThePollerWritesEachBudgetsFigures: the budget pass over a ledger on a
// local DynamoDB writes each team's budgets' used and forecast percents,
// hand-computed below, under the dimension sets metrics.BudgetMetrics
// declares.
func TestThePollerWritesEachBudgetsFigures(t *testing.T) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	day := func(month time.Month, d, h, m int) time.Time { return time.Date(2026, month, d, h, m, 0, 0, time.UTC) }
	// A run of the 8th minute of a quarter hour: the pass is due.
	now := day(time.December, 20, 0, 7)
	table := fmt.Sprintf("budgets-%d", time.Now().UnixNano())
	if err := local.CreateTable(ctx, dynamotest.LedgerTable(table)); err != nil {
		t.Fatal(err)
	}
	store, err := ledger.NewStore(local.Client(), table, 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ledger.Observation{
		// search-ranking, p5-month (ml.p5.48xlarge, December):
		// 2 instances × 20 h (Dec 10 00:00–20:00)                    = 40 h
		ran("ended", "search-ranking", "ml.p5.48xlarge", 2, day(time.December, 10, 0, 0), day(time.December, 10, 20, 0)),
		// 1 instance running since Dec 19 00:07, 24 h to now          = 24 h
		ran("running", "search-ranking", "ml.p5.48xlarge", 1, day(time.December, 19, 0, 7), time.Time{}),
		// 2 instances Nov 30 20:00–Dec 1 02:00: the 2 h in December    =  4 h
		ran("november", "search-ranking", "ml.p5.48xlarge", 2, day(time.November, 30, 20, 0), day(time.December, 1, 2, 0)),
		// 4 ml.p4d.24xlarge for 10 h: another type, not counted        =  0
		ran("p4d", "search-ranking", "ml.p4d.24xlarge", 4, day(time.December, 15, 0, 0), day(time.December, 15, 10, 0)),
		// search-research, all-rolling (every type, Nov 20 00:07 to now):
		// 8 instances × 10 h (Nov 25 00:07–10:07)                     = 80 h
		ran("r1", "search-research", "ml.p4d.24xlarge", 8, day(time.November, 25, 0, 7), day(time.November, 25, 10, 7)),
		// ended Nov 10, before the window: not counted                 =  0
		ran("r-old", "search-research", "ml.p4d.24xlarge", 8, day(time.November, 10, 0, 0), day(time.November, 10, 10, 0)),
	} {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	p, err := poll.NewPoller(poll.PollerConfig{Platform: budgetsPlatform(), Queue: queueARN, Batch: batchClient(t, newFakeBatch(t)),
		Now: func() time.Time { return now }, Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if !p.BudgetsDue(now) {
		t.Fatalf("budget pass not due at %s", now)
	}
	statuses, err := p.WriteBudgets(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) != 2 {
		t.Fatalf("%d budgets written, want 2", len(statuses))
	}
	data := emftest.Lines(t, out.Bytes())
	if diff := cmp.Diff(emftest.DeclaredSets(metrics.BudgetMetrics()), emftest.Sets(data)); diff != "" {
		t.Errorf("dimension sets (-declared +emitted):\n%s", diff)
	}
	got := emftest.Values(data)
	figure := func(m metrics.Metric, team, b string) float64 {
		k := fmt.Sprintf("%s/%s{%s=%s,%s=%s,%s=%s}", metrics.Namespace, m.Name, metrics.Budget, b, metrics.Queue, queueName, metrics.Team, team)
		if len(got[k]) != 1 {
			t.Fatalf("%s: values %v, want one (written: %v)", k, got[k], got)
		}
		return got[k][0]
	}
	// Used: 40 + 24 + 4 = 68 of 100 h = 68%. Forecast: 68 h plus 1 instance
	// to Jan 1 00:00, 12 days less 7 minutes = 288 − 7/60 h, so
	// 356 − 7/60 = 355.883… h of 100: 355.883…%.
	// all-rolling: 80 of 1,000 h = 8%; nothing running: forecast 0 (a
	// rolling window's forecast is the current rate × 720 h).
	for _, c := range []struct {
		m          metrics.Metric
		team, name string
		want       float64
	}{
		{metrics.BudgetUsedPercent, "search-ranking", "p5-month", 68},
		{metrics.BudgetForecastPercent, "search-ranking", "p5-month", 356 - 7.0/60},
		{metrics.BudgetUsedPercent, "search-research", "all-rolling", 8},
		{metrics.BudgetForecastPercent, "search-research", "all-rolling", 0},
	} {
		if v := figure(c.m, c.team, c.name); math.Abs(v-c.want) > 1e-9 {
			t.Errorf("%s of %s's %s: %g, want %g", c.m.Name, c.team, c.name, v, c.want)
		}
	}
	// Every line names the budget's unit and reset for whoever reads the log.
	if s := out.String(); !strings.Contains(s, `"resets":"2027-01-01T00:00:00Z"`) || !strings.Contains(s, `"unit":"instance-hours of ml.p5.48xlarge"`) {
		t.Errorf("lines do not carry p5-month's unit and reset:\n%s", s)
	}
}

// TestTheBudgetPassIsDueOnceEachQuarterHour: over a day of minute runs the
// pass is due 96 times, each in minute 7 of its quarter hour (7, 22, 37,
// 52), whatever the second the run starts at; never without a budget.
func TestTheBudgetPassIsDueOnceEachQuarterHour(t *testing.T) {
	newWith := func(p *platform.Platform) *poll.Poller {
		pl, err := poll.NewPoller(poll.PollerConfig{Platform: p, Queue: queueARN, Batch: batchClient(t, newFakeBatch(t)), Now: fixedClock, Out: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	with, without := newWith(budgetsPlatform()), newWith(platform.Default())
	start := time.Date(2026, 12, 20, 0, 0, 41, 0, time.UTC)
	due := 0
	for i := range 24 * 60 {
		at := start.Add(time.Duration(i) * time.Minute)
		if with.BudgetsDue(at) {
			due++
			if m := at.Minute() % 15; m != 7 {
				t.Errorf("due at %s, minute %d of its quarter hour; want 7", at.Format(time.TimeOnly), m)
			}
		}
		if without.BudgetsDue(at) {
			t.Fatalf("due at %s on a platform without budgets", at)
		}
	}
	if due != 96 {
		t.Errorf("due %d times a day, want 96 (every 15 minutes)", due)
	}
}
