package budget

import (
	"testing"
	"time"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

const (
	p5  = "ml.p5.48xlarge"
	p4d = "ml.p4d.24xlarge"
)

// at is a moment of December 2026 (UTC): day d, hour h.
func at(d, h int) time.Time { return time.Date(2026, 12, d, h, 0, 0, 0, time.UTC) }

func ms(t time.Time) int64 { return t.UnixMilli() }

// ran is a run of team that ended: n instances of typ from start to end.
func ran(team, typ string, n int, start, end time.Time) showback.Interval {
	return showback.Interval{Team: team, InstanceType: typ, Instances: n, Start: ms(start), End: ms(end), StartedAt: ms(start), Kind: showback.Goodput}
}

// running is a run of team still going at now.
func running(team, typ string, n int, start, now time.Time) showback.Interval {
	iv := ran(team, typ, n, start, now)
	iv.Kind = showback.Running
	return iv
}

// p5Month is 100 ml.p5.48xlarge hours a month: sweeps refused,
// research lowered, production alarmed.
var p5Month = platform.Budget{Name: "p5-month", InstanceHours: 100, InstanceType: p5, Period: platform.PeriodMonth,
	Actions: map[string]platform.BudgetAction{"sweep": platform.ActionRefuse, "research": platform.ActionLowerPriority, "production": platform.ActionAlarm}}

func platformWith(t *testing.T, budgets ...platform.Budget) *platform.Platform {
	t.Helper()
	p := platform.Default()
	p.Pools = []platform.Pool{{InstanceType: p5, Instances: 40}, {InstanceType: p4d, Instances: 60}}
	p.Teams[1].Capacity = []platform.Pool{{InstanceType: p5, Instances: 8}}
	p.Teams[1].Budgets = budgets
	p.ApplyDefaults()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestThresholdsAndActions(t *testing.T) {
	p := platformWith(t, p5Month)
	team := p.Teams[1].Name
	other := p.Teams[0].Name
	now := at(20, 0)
	for _, tc := range []struct {
		name      string
		hours     float64 // of 2 instances ending on Dec 10
		reached80 bool
		over      bool
	}{
		// 2 instances × 39.5 h = 79 instance-hours of 100: 79%.
		{"at 79% nothing is reached", 39.5, false, false},
		// 2 × 40 h = 80 of 100: 80%, exactly the alarm's threshold.
		{"at 80% the first alarm's threshold is reached", 40, true, false},
		// 2 × 50 h = 100 of 100: used up.
		{"at 100% the budget is used", 50, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := at(10, 0)
			end := start.Add(time.Duration(tc.hours * float64(time.Hour)))
			runs := []showback.Interval{
				ran(team, p5, 2, start, end),
				// Not counted: another team's run, and a type the budget
				// does not count.
				ran(other, p5, 30, at(2, 0), at(12, 0)),
				ran(team, p4d, 16, at(2, 0), at(12, 0)),
			}
			for _, class := range []string{"production", "research", "sweep"} {
				d := Decide(p, team, class, p5, runs, now)
				if len(d.Budgets) != 1 {
					t.Fatalf("%s: %d budgets, want p5-month only", class, len(d.Budgets))
				}
				s := d.Budgets[0]
				if want := 2 * tc.hours; s.Used != want {
					t.Errorf("%s: used %v, want %v", class, s.Used, want)
				}
				if got := s.Reached(80); got != tc.reached80 {
					t.Errorf("%s: reached 80%% = %v, want %v", class, got, tc.reached80)
				}
				want := platform.BudgetAction("")
				if tc.over {
					want = p5Month.Actions[class]
				}
				if d.Action != want {
					t.Errorf("%s: action %q, want %q", class, d.Action, want)
				}
				c, _ := p.Class(class)
				wantSP := c.SchedulingPriority(70)
				if want == platform.ActionLowerPriority {
					wantSP = c.Priority.Min
				}
				if got := d.SchedulingPriority(c, 70); got != wantSP {
					t.Errorf("%s: scheduling priority %d, want %d", class, got, wantSP)
				}
				// The reset of a month is the 1st of the next, 00:00 UTC.
				if want := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC); !s.Resets.Equal(want) {
					t.Errorf("resets %s, want %s", s.Resets, want)
				}
			}
			// A p4d job is judged by no budget: p5-month does not count it.
			if d := Decide(p, team, "sweep", p4d, runs, now); d.Action != "" || len(d.Budgets) != 0 {
				t.Errorf("p4d job: %+v, want no budget", d)
			}
		})
	}
}

func TestTheMonthRollsOver(t *testing.T) {
	p := platformWith(t, p5Month)
	team := p.Teams[1].Name
	// 10 instances from Nov 25 00:00 to Dec 1 01:00: 145 hours × 10.
	runs := []showback.Interval{ran(team, p5, 10, time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), at(1, 1))}
	// On Nov 30 23:00 the November part is 143 h × 10 = 1430 ≥ 100: refused.
	before := Decide(p, team, "sweep", p5, runs, time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC))
	if before.Action != platform.ActionRefuse || before.Budgets[0].Used != 1430 {
		t.Errorf("Nov 30 23:00: %q with %v used, want refuse with 1430", before.Action, before.Budgets[0].Used)
	}
	if want := at(1, 0); !before.Budgets[0].Resets.Equal(want) {
		t.Errorf("Nov 30: resets %s, want %s", before.Budgets[0].Resets, want)
	}
	// On Dec 1 at 02:00 only December counts: 1 h × 10 = 10 of 100.
	after := Decide(p, team, "sweep", p5, runs, at(1, 2))
	if after.Action != "" || after.Budgets[0].Used != 10 {
		t.Errorf("Dec 1 02:00: %q with %v used, want accepted with 10", after.Action, after.Budgets[0].Used)
	}
}

func TestForecastAtTheCurrentRate(t *testing.T) {
	b := platform.Budget{Name: "p5", InstanceHours: 1000, InstanceType: p5, Period: platform.PeriodMonth}
	now := at(20, 0)
	runs := []showback.Interval{
		running("r", p5, 4, at(19, 0), now), // 4 × 24 h = 96, still running: rate 4
		ran("r", p5, 2, at(3, 0), at(3, 2)), // 2 × 2 h = 4, ended: no rate
	}
	s := Evaluate("r", b, nil, runs, now)
	// Used 96 + 4 = 100; Dec 20 00:00 to Jan 1 00:00 is 12 days = 288 h;
	// forecast 100 + 4 × 288 = 1252.
	if s.Used != 100 || s.Rate != 4 || s.Forecast != 1252 {
		t.Errorf("used %v rate %v forecast %v, want 100, 4, 1252", s.Used, s.Rate, s.Forecast)
	}
	// A rolling window forecasts the 720 hours ahead: 4 × 720 = 2880.
	b.Period = platform.PeriodRolling30Days
	if s := Evaluate("r", b, nil, runs, now); s.Forecast != 2880 {
		t.Errorf("rolling forecast %v, want 2880", s.Forecast)
	}
}

func TestWeightedAndCostBudgets(t *testing.T) {
	now := at(20, 0)
	runs := []showback.Interval{
		ran("r", p4d, 10, at(5, 0), at(5, 10)), // 100 p4d hours
		ran("r", p5, 1, at(6, 0), at(6, 10)),   // 10 p5 hours
	}
	weighted := platform.Budget{Name: "w", InstanceHours: 1000, Weights: map[string]float64{p5: 1, p4d: 0.4}, Period: platform.PeriodMonth}
	// 100 × 0.4 + 10 × 1 = 50.
	if s := Evaluate("r", weighted, nil, runs, now); s.Used != 50 {
		t.Errorf("weighted used %v, want 50", s.Used)
	}
	every := platform.Budget{Name: "all", InstanceHours: 1000, Period: platform.PeriodMonth}
	// 100 + 10 = 110.
	if s := Evaluate("r", every, nil, runs, now); s.Used != 110 {
		t.Errorf("every type used %v, want 110", s.Used)
	}
	cost := platform.Budget{Name: "spend", Cost: 10000, Period: platform.PeriodMonth}
	// 100 × 12 + 10 × 30 = 1500.
	if s := Evaluate("r", cost, map[string]float64{p5: 30, p4d: 12}, runs, now); s.Used != 1500 || s.Unit != "cost" {
		t.Errorf("cost used %v %s, want 1500 cost", s.Used, s.Unit)
	}
}

func TestTheRollingWindowResetsWhenUsageAgesOut(t *testing.T) {
	b := platform.Budget{Name: "r30", InstanceHours: 100, InstanceType: p5, Period: platform.PeriodRolling30Days}
	now := at(31, 0)
	lo := now.Add(-720 * time.Hour) // Dec 1 00:00
	runs := []showback.Interval{
		// 2 instances from 10 h before the window to 40 h into it: 2 × 40
		// = 80 counted.
		ran("r", p5, 2, lo.Add(-10*time.Hour), lo.Add(40*time.Hour)),
		// 1 instance for 40 h near now: 40.
		ran("r", p5, 1, now.Add(-100*time.Hour), now.Add(-60*time.Hour)),
	}
	s := Evaluate("r", b, nil, runs, now)
	if s.Used != 120 || !s.Over() {
		t.Fatalf("used %v over %v, want 120 and over", s.Used, s.Over())
	}
	// As the window's start moves past lo, the first run ages out at 2
	// instance-hours an hour: 120 − 2 × 10 = 100 at lo + 10 h, below 100
	// one millisecond later; the window ending 720 h after that start.
	want := lo.Add(10*time.Hour + time.Millisecond).Add(720 * time.Hour)
	if !s.Resets.Equal(want) {
		t.Errorf("resets %s, want %s", s.Resets, want)
	}
	// Under the limit the rolling budget is usable now.
	b.InstanceHours = 200
	if s := Evaluate("r", b, nil, runs, now); !s.Resets.Equal(now) || s.Over() {
		t.Errorf("under the limit: resets %s over %v, want now and not over", s.Resets, s.Over())
	}
}

func TestTheStrictestUsedBudgetDecides(t *testing.T) {
	loose := platform.Budget{Name: "all", InstanceHours: 10, Period: platform.PeriodMonth,
		Actions: map[string]platform.BudgetAction{"research": platform.ActionLowerPriority}}
	strict := platform.Budget{Name: "p5-tight", InstanceHours: 5, InstanceType: p5, Period: platform.PeriodRolling30Days,
		Actions: map[string]platform.BudgetAction{"research": platform.ActionRefuse}}
	unused := platform.Budget{Name: "p5-big", InstanceHours: 1000, InstanceType: p5, Period: platform.PeriodMonth,
		Actions: map[string]platform.BudgetAction{"research": platform.ActionRefuse}}
	p := platformWith(t, loose, unused, strict)
	team := p.Teams[1].Name
	// 1 × 12 h = 12 p5 hours: over "all" (10) and "p5-tight" (5), not
	// "p5-big" (1000).
	runs := []showback.Interval{ran(team, p5, 1, at(10, 0), at(10, 12))}
	d := Decide(p, team, "research", p5, runs, at(20, 0))
	if d.Action != platform.ActionRefuse || d.By == nil || d.By.Budget != "p5-tight" || len(d.Budgets) != 3 {
		t.Errorf("decision %q by %v over %d budgets, want refuse by p5-tight over 3", d.Action, d.By, len(d.Budgets))
	}
	// A class no budget lists gets alarm: accepted as asked.
	if d := Decide(p, team, "production", p5, runs, at(20, 0)); d.Action != platform.ActionAlarm || d.Refused() {
		t.Errorf("production: %q, want alarm", d.Action)
	}
}

func TestTheAnswerNamesTheBudget(t *testing.T) {
	s := Evaluate("research", p5Month, nil, []showback.Interval{ran("research", p5, 3, at(2, 0), at(3, 12))}, at(20, 0))
	// 3 × 36 h = 108 of 100: 108.0%.
	want := "budget p5-month of team research: used 108 of 100 instance-hours of ml.p5.48xlarge (108.0%) since 2026-12-01T00:00:00Z; resets 2027-01-01T00:00:00Z"
	if got := s.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestReachedIsWhenTheUsageCrossesTheLimit(t *testing.T) {
	b := platform.Budget{Name: "p5", InstanceHours: 10, InstanceType: p5, Period: platform.PeriodMonth}
	runs := []showback.Interval{ran("r", p5, 2, at(1, 0), at(1, 10)), ran("r", p5, 2, at(1, 2), at(1, 3))}
	// 2 instances for 2 h = 4; then 4 instances: 6 more in 1.5 h, at
	// 03:30 — but the second run ends at 03:00 (4 + 4 = 8), and 2 more at
	// 2 an hour take 1 h: 04:00.
	got, ok := Reached("r", b, nil, runs, at(1, 0), at(2, 0))
	if want := at(1, 4); !ok || !got.Equal(want) {
		t.Errorf("reached %s %v, want %s", got, ok, want)
	}
	if _, ok := Reached("r", b, nil, runs, at(1, 0), at(1, 3)); ok {
		t.Error("reached by 03:00 with 8 of 10")
	}
}
