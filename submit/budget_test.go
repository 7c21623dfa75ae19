package submit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// budgetPlatform is the default platform with search-ranking's budget
// p5-month: 100 ml.p5.48xlarge instance-hours a calendar month; past 100%
// production is alarmed, research lowered, sweeps refused.
func budgetPlatform() *platform.Platform {
	p := platform.Default()
	p.Teams[0].Budgets = []platform.Budget{{Name: "p5-month", InstanceHours: 100, InstanceType: "ml.p5.48xlarge",
		Actions: map[string]platform.BudgetAction{"production": platform.ActionAlarm, "research": platform.ActionLowerPriority, "sweep": platform.ActionRefuse}}}
	p.ApplyDefaults()
	return p
}

// budgetLedger is a ledger table of its own on local, whose reads are
// bounded by *now, holding obs.
func budgetLedger(t *testing.T, local *dynamotest.Server, now *time.Time, obs ...ledger.Observation) *ledger.Store {
	t.Helper()
	ctx := context.Background()
	table := fmt.Sprintf("budget-%d", time.Now().UnixNano())
	if err := local.CreateTable(ctx, dynamotest.LedgerTable(table)); err != nil {
		t.Fatal(err)
	}
	store, err := ledger.NewStore(local.Client(), table, 0, func() time.Time { return *now })
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// submitAs submits the minimal request as class for search-ranking through
// the class's alias.
func submitAs(t *testing.T, h *submit.Handler, class, key string) (contract.Response, *contract.FunctionError) {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(fixture(t, "submit-minimal.json"), &req); err != nil {
		t.Fatal(err)
	}
	req["class"], req["idempotencyKey"] = class, key
	b, _ := json.Marshal(req)
	resp, fe := invoke(t, invocation(class+"-search-ranking", key), h, b)
	if fe != nil {
		return resp, &contract.FunctionError{Type: fe.Type, Message: fe.Message}
	}
	return resp, nil
}

// TestBudgetsAtTheSubmission: search-ranking's p5-month budget (100
// ml.p5.48xlarge hours) at 79%, 80% and 100%, each class's action, against
// a ledger on a local DynamoDB.
func TestBudgetsAtTheSubmission(t *testing.T) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	const hour = int64(3_600_000)
	dec10 := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC)
	// The default priority 50 maps into each band (Class.SchedulingPriority):
	// production 900 + 50 × 99 / 99 = 950, research 500 + 50 = 550, sweep
	// 100 + 50 = 150; the bottoms of the bands are 900, 500 and 100.
	asked := map[string]int{"production": 950, "research": 550, "sweep": 150}
	for _, tc := range []struct {
		name string
		// tenthHours is how long the team's one earlier job of 2
		// ml.p5.48xlarge ran, in tenths of an hour.
		tenthHours int64
		percent    float64
		// want is each class's outcome: a scheduling priority, or 0 for
		// refused.
		want map[string]int
	}{
		// 2 × 39.5 h = 79 of 100: 79%, every class as asked.
		{"at 79% every class gets what it asks", 395, 79, asked},
		// 2 × 40 h = 80 of 100: 80%, the first alarm's threshold; still
		// every class as asked.
		{"at 80% every class gets what it asks", 400, 80, asked},
		// 2 × 50 h = 100 of 100: used. production alarm (as asked),
		// research lower-priority (500, its band's bottom), sweep refused.
		{"at 100% production is alarmed, research lowered and sweeps refused", 500, 100, map[string]int{"production": 950, "research": 500, "sweep": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stop := dec10 + tc.tenthHours*hour/10
			store := budgetLedger(t, local, &now, ledger.Observation{JobID: "earlier", JobName: "earlier", Team: "search-ranking", Class: "research",
				InstanceType: "ml.p5.48xlarge", Instances: 2, Status: "SUCCEEDED", CreatedAt: dec10, StartedAt: dec10, StoppedAt: stop,
				Attempts: []ledger.ObservedAttempt{{StartedAt: dec10, StoppedAt: stop}}})
			fake := newFake(t)
			defer fake.Close()
			h := newHandlerWith(t, budgetPlatform(), fake, submit.DefaultRetryPolicy, func(c *submit.Config) {
				c.Ledger, c.Now = store, func() time.Time { return now }
			})
			for _, class := range []string{"production", "research", "sweep"} {
				before := len(submitted(t, fake))
				resp, fe := submitAs(t, h, class, "k-"+class)
				want := tc.want[class]
				if want == 0 {
					if fe == nil || fe.Type != string(contract.KindOverBudget) {
						t.Fatalf("%s: %+v %+v, want OverBudget", class, resp, fe)
					}
					// The answer names the budget, used, limit and reset.
					for _, s := range []string{"budget p5-month of team search-ranking", "used 100 of 100 instance-hours of ml.p5.48xlarge", "resets 2027-01-01T00:00:00Z", "refuse"} {
						if !strings.Contains(fe.Message, s) {
							t.Errorf("%s: message %q does not say %q", class, fe.Message, s)
						}
					}
					if n := len(submitted(t, fake)); n != before {
						t.Errorf("%s: refused, yet %d jobs sent to Batch", class, n-before)
					}
					continue
				}
				if fe != nil {
					t.Fatalf("%s: %s: %s", class, fe.Type, fe.Message)
				}
				sent := submitted(t, fake)
				if len(sent) != before+1 || sent[len(sent)-1].SchedulingPriority == nil || *sent[len(sent)-1].SchedulingPriority != want {
					t.Errorf("%s: sent %d jobs, the last at priority %v; want one at %d", class, len(sent)-before, sent[len(sent)-1].SchedulingPriority, want)
				}
				if resp.SchedulingPriority != want {
					t.Errorf("%s: answer's priority %d, want %d", class, resp.SchedulingPriority, want)
				}
				if len(resp.Budgets) != 1 {
					t.Fatalf("%s: answer's budgets %+v, want p5-month", class, resp.Budgets)
				}
				b := resp.Budgets[0]
				if b.Budget != "p5-month" || b.Percent != tc.percent || b.Limit != 100 || b.Resets != "2027-01-01T00:00:00Z" || b.Over != (tc.percent >= 100) {
					t.Errorf("%s: budget %+v, want p5-month at %v%% of 100, resetting 2027-01-01", class, b, tc.percent)
				}
				wantAction := ""
				if tc.percent >= 100 {
					wantAction = string(budgetPlatform().Teams[0].Budgets[0].ActionFor(class))
				}
				if resp.BudgetAction != wantAction {
					t.Errorf("%s: budget action %q, want %q", class, resp.BudgetAction, wantAction)
				}
			}
		})
	}
}

// TestBudgetsRollOverWithTheMonth: a job of 10 ml.p5.48xlarge running
// since Dec 31 13:00 has used the budget by 23:00 (10 × 10 h = 100); at
// 01:00 on Jan 1 only the new month's hour counts (10 × 1 h = 10): the
// sweep refused before midnight is accepted after, and the running job
// was never touched.
func TestBudgetsRollOverWithTheMonth(t *testing.T) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	started := time.Date(2026, 12, 31, 13, 0, 0, 0, time.UTC).UnixMilli()
	now := time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC)
	store := budgetLedger(t, local, &now, ledger.Observation{JobID: "long", JobName: "long", Team: "search-ranking", Class: "production",
		InstanceType: "ml.p5.48xlarge", Instances: 10, Status: "RUNNING", CreatedAt: started, StartedAt: started,
		Attempts: []ledger.ObservedAttempt{{StartedAt: started}}})
	fake := newFake(t)
	defer fake.Close()
	h := newHandlerWith(t, budgetPlatform(), fake, submit.DefaultRetryPolicy, func(c *submit.Config) {
		c.Ledger, c.Now = store, func() time.Time { return now }
	})
	_, fe := submitAs(t, h, "sweep", "before-midnight")
	if fe == nil || fe.Type != string(contract.KindOverBudget) || !strings.Contains(fe.Message, "used 100 of 100") {
		t.Fatalf("Dec 31 23:00: %+v, want OverBudget at 100 of 100", fe)
	}
	now = time.Date(2027, 1, 1, 1, 0, 0, 0, time.UTC)
	resp, fe := submitAs(t, h, "sweep", "after-midnight")
	if fe != nil {
		t.Fatalf("Jan 1 01:00: %s: %s", fe.Type, fe.Message)
	}
	// 10 × 1 h = 10 of 100; the job still runs at 10 instances: forecast
	// 10 + 10 × (31 × 24 − 1) = 10 + 7430 = 7440 by Feb 1.
	b := resp.Budgets[0]
	if b.Used != 10 || b.Percent != 10 || b.Since != "2027-01-01T00:00:00Z" || b.Resets != "2027-02-01T00:00:00Z" || b.RatePerHour != 10 || b.Forecast != 7440 {
		t.Errorf("Jan 1 01:00: %+v, want 10 used (10%%) since Jan 1, rate 10, forecast 7440, resetting Feb 1", b)
	}
	if resp.SchedulingPriority != 150 || resp.BudgetAction != "" {
		t.Errorf("Jan 1 01:00: priority %d action %q, want 150 as asked", resp.SchedulingPriority, resp.BudgetAction)
	}
	if n := len(fake.Calls("TerminateServiceJob")) + len(fake.Calls("UpdateServiceJob")); n != 0 {
		t.Errorf("%d calls to stop or change a job; a budget never touches a running job", n)
	}
}
