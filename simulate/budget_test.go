package simulate_test

import (
	"bufio"
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
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
	// 4 h: 6 + 6 + 1 = 13, 3 over. Reached: 2 an hour to 1 h (2), then 4
	// an hour: 8 more by 3 h. The last work ran to 4 h: held 1 h after;
	// the longest attempts (s1, s2) ran 3 h.
	want := []simulate.BudgetResult{{Team: "a", Budget: "p5", Unit: "instance-hours of ml.p5.48xlarge", Period: "month", Limit: 10,
		Accepted: 2, Lowered: 1, Refused: 1,
		Periods: []simulate.BudgetPeriod{{Since: "1970-01-01T00:00:00Z", Until: "1970-01-01T04:00:00Z", Used: 13, Over: 3,
			Reached: "1970-01-01T03:00:00Z", HeldAfterSeconds: 3600, LongestRunSeconds: 3 * h}}}}
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
		// January: big's 4 × 2 h = 8, 5 reached at 22:00 + 5/4 h =
		// 23:15, work to midnight (45 min after); its 2 h in January.
		{Since: "1970-01-01T00:00:00Z", Until: "1970-02-01T00:00:00Z", Used: 8, Over: 3,
			Reached: "1970-01-31T23:15:00Z", HeldAfterSeconds: 2700, LongestRunSeconds: 2 * h},
		// February to the run's end: big's 4 × 1 h + early's 1 × 1 h = 5,
		// reached as early ends at 02:00; each ran 1 h in February.
		{Since: "1970-02-01T00:00:00Z", Until: "1970-02-01T02:00:00Z", Used: 5, Over: 0,
			Reached: "1970-02-01T02:00:00Z", LongestRunSeconds: 1 * h},
	}
	if len(r.Budgets) != 1 || r.BudgetRefused != 1 || r.Budgets[0].Refused != 1 || r.Budgets[0].Accepted != 2 {
		t.Fatalf("budgets %+v refused %d, want late refused, big and early accepted", r.Budgets, r.BudgetRefused)
	}
	if diff := cmp.Diff(want, r.Budgets[0].Periods); diff != "" {
		t.Errorf("periods (-want +got):\n%s", diff)
	}
}

// TestABudgetHoldsATeamOnTheExampleTrace replays examples/jobs.csv (57 h
// from Nov 29 00:00 UTC, so the month turns at 48 h) on the default
// platform, and on it with search-research held to 400 ml.p5.48xlarge
// instance-hours a month (every class refused past 100%). Without a budget
// the team runs about 660 of them by Dec 1 (its completing attempts,
// from the trace's durations as the replay places them). With it, once the
// budget is used no new job of the team's on the type is accepted: what it
// still runs in November is the jobs accepted before, which end within one
// job's runtime — the longest of its ml.p5.48xlarge jobs in the trace is
// job-1163, 42,501 s. December starts from zero.
func TestABudgetHoldsATeamOnTheExampleTrace(t *testing.T) {
	const longest = 42501
	f, err := os.ReadFile("../examples/jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	run := func(p *platform.Platform) *simulate.Result {
		r, err := trace.NewReader(bufio.NewReader(bytes.NewReader(f)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := simulate.Run(p, r, simulate.Options{Epoch: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	none := run(platform.Default())
	p := platform.Default()
	p.Teams[1].Budgets = []platform.Budget{{Name: "p5-month", InstanceHours: 400, InstanceType: p5,
		Actions: map[string]platform.BudgetAction{"production": platform.ActionRefuse, "research": platform.ActionRefuse, "sweep": platform.ActionRefuse}}}
	p.ApplyDefaults()
	held := run(p)
	if len(held.Budgets) != 1 || len(held.Budgets[0].Periods) != 2 {
		t.Fatalf("budgets %+v, want p5-month over November and December", held.Budgets)
	}
	nov, dec := held.Budgets[0].Periods[0], held.Budgets[0].Periods[1]
	t.Logf("November: used %.1f of 400, reached %s, work ran %d s after; December: %.1f; refused %d", nov.Used, nov.Reached, nov.HeldAfterSeconds, dec.Used, held.BudgetRefused)
	if nov.Reached == "" || nov.HeldAfterSeconds > longest {
		t.Errorf("November: reached %q, work ran %d s after; want reached, and held within %d s", nov.Reached, nov.HeldAfterSeconds, longest)
	}
	if dec.Since != "2026-12-01T00:00:00Z" || dec.Used <= 0 {
		t.Errorf("December %+v: want usage again from Dec 1", dec)
	}
	if held.BudgetRefused == 0 || held.Jobs+held.BudgetRefused != none.Jobs {
		t.Errorf("%d run + %d refused, want some refused out of %d", held.Jobs, held.BudgetRefused, none.Jobs)
	}
	// The other team's jobs all run, side by side with the run without a
	// budget.
	if ranking := held.Teams[0]; ranking.Name != "search-ranking" || ranking.Completed != none.Teams[0].Completed {
		t.Errorf("search-ranking completed %d, %d without the budget", ranking.Completed, none.Teams[0].Completed)
	}
}
