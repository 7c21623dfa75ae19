package simulate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// budgetTeam is team a with 4 ml.p5.48xlarge and a monthly budget of
// limit instance-hours of them: sweeps refused past 100%, research lowered.
func budgetTeam(limit string) string {
	return "  - name: a\n    capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]\n    budgets:\n" +
		"      - {name: p5, instanceHours: " + limit + ", instanceType: ml.p5.48xlarge, actions: {sweep: refuse, research: lower-priority}}\n"
}

// priorities records each start's scheduling priority.
type priorities struct{ of map[string]int }

func (p *priorities) Observe(e simulate.Event, _ *simulate.State) {
	if e.Kind == simulate.EventStart {
		p.of[e.JobID] = e.Priority
	}
}

func TestBudgetsActAtTheSubmission(t *testing.T) {
	p := quotaPlatform(t, 4, budgetTeam("10"))
	const h = 3600
	jobs := []trace.Job{
		j("s1", 0, 3*h, 2, "sweep", "a"),   // 0 used: accepted; runs 0-3 h: 6
		j("s2", 1*h, 3*h, 2, "sweep", "a"), // 2 × 1 h = 2 used: accepted; runs 1-4 h: 6
		// At 3 h: s1's 6 + s2's 2 × 2 h = 10 of 10: used.
		j("s3", 3*h, 1*h, 1, "sweep", "a"),    // refused
		j("r1", 3*h, 1*h, 1, "research", "a"), // lowered to 500; runs 3-4 h: 1
	}
	pr := &priorities{of: map[string]int{}}
	r, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Observer: pr})
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs != 3 || r.BudgetRefused != 1 {
		t.Errorf("jobs %d, refused %d; want 3 run and s3 refused", r.Jobs, r.BudgetRefused)
	}
	// research's band is 500-599: lowered to 500 (asked 50 → 550).
	if got := pr.of["r1"]; got != 500 {
		t.Errorf("r1 started at priority %d, want 500", got)
	}
	// Used in the run's month (1970-01, the default epoch) to its end at
	// 4 h: 6 + 6 + 1 = 13, 3 over.
	want := []simulate.BudgetResult{{Team: "a", Budget: "p5", Unit: "instance-hours of ml.p5.48xlarge", Period: "month", Limit: 10,
		Accepted: 2, Lowered: 1, Refused: 1,
		Periods: []simulate.BudgetPeriod{{Since: "1970-01-01T00:00:00Z", Until: "1970-01-01T04:00:00Z", Used: 13, Over: 3}}}}
	if diff := cmp.Diff(want, r.Budgets); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
	// The FIFO baseline has no budgets.
	f, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: simulate.PolicyFIFO})
	if err != nil {
		t.Fatal(err)
	}
	if f.Jobs != 4 || f.Budgets != nil {
		t.Errorf("fifo: %d jobs, budgets %+v; want 4 and none", f.Jobs, f.Budgets)
	}
}

func TestBudgetsRollOverWithTheCalendarMonth(t *testing.T) {
	p := quotaPlatform(t, 4, budgetTeam("5"))
	const h = 3600
	// Second 0 is Jan 31 22:00 UTC.
	epoch := time.Date(1970, 1, 31, 22, 0, 0, 0, time.UTC)
	jobs := []trace.Job{
		j("big", 0, 3*h, 4, "production", "a"), // 22:00-01:00: Jan 4 × 2 = 8, Feb 4 × 1 = 4
		// 23:30: Jan's 4 × 1.5 = 6 of 5: refused.
		j("late", 3*h/2, 1*h, 1, "sweep", "a"),
		// 00:30 Feb 1: Feb's 4 × 0.5 = 2 of 5: accepted; waits for big,
		// runs 01:00-02:00: 1.
		j("early", 5*h/2, 1*h, 1, "sweep", "a"),
	}
	r, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Epoch: epoch})
	if err != nil {
		t.Fatal(err)
	}
	want := []simulate.BudgetPeriod{
		{Since: "1970-01-01T00:00:00Z", Until: "1970-02-01T00:00:00Z", Used: 8, Over: 3},
		{Since: "1970-02-01T00:00:00Z", Until: "1970-02-01T02:00:00Z", Used: 5, Over: 0},
	}
	if len(r.Budgets) != 1 || r.BudgetRefused != 1 || r.Budgets[0].Refused != 1 || r.Budgets[0].Accepted != 2 {
		t.Fatalf("budgets %+v refused %d, want late refused, big and early accepted", r.Budgets, r.BudgetRefused)
	}
	if diff := cmp.Diff(want, r.Budgets[0].Periods); diff != "" {
		t.Errorf("periods (-want +got):\n%s", diff)
	}
}
