package submit_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// TestUsageAnswersFromTheLedger records two jobs in a ledger on a local
// DynamoDB and asks the function for the day's usage through a team's
// alias.
func TestUsageAnswersFromTheLedger(t *testing.T) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if err := local.CreateTable(ctx, dynamotest.LedgerTable("usage-ledger")); err != nil {
		t.Fatal(err)
	}
	const hour = int64(3_600_000)
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 5*hour)
	store, err := ledger.NewStore(local.Client(), "usage-ledger", 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	// a: production of search-ranking, 4 ml.p5.48xlarge, ran 1 h-3 h and
	// succeeded. b: sweep of search-research, 20 ml.p5.48xlarge (its
	// quota is 16), ran 2 h-4 h, preempted, and failed for it.
	for _, o := range []ledger.Observation{
		{JobID: "a", JobName: "bert", Team: "search-ranking", Class: "production", Priority: 950, InstanceType: "ml.p5.48xlarge", Instances: 4,
			Status: "SUCCEEDED", CreatedAt: d0, StartedAt: d0 + hour, StoppedAt: d0 + 3*hour,
			Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + hour, StoppedAt: d0 + 3*hour}}},
		{JobID: "b", JobName: "sweep", Team: "search-research", Class: "sweep", Priority: 150, InstanceType: "ml.p5.48xlarge", Instances: 20,
			Status: "FAILED", StatusReason: "preemption retries exhausted", CreatedAt: d0, StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour,
			Attempts:  []ledger.ObservedAttempt{{StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour}},
			Preempted: []ledger.ObservedAttempt{{StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour}}, PreemptedCount: 1},
	} {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	p := platform.Default()
	p.Ledger.HourlyPrices = map[string]float64{"ml.p5.48xlarge": 55.04, "ml.p4d.24xlarge": 37.69}
	h := newHandlerWith(t, p, newFake(t), submit.DefaultRetryPolicy, func(c *submit.Config) {
		c.Ledger, c.Now = store, func() time.Time { return now }
	})
	req, _ := json.Marshal(contract.Request{Action: contract.ActionUsage, Since: "2026-12-01", Until: "2026-12-02"})
	resp, fe := invoke(t, invocation("research-search-research", "r1"), h, req)
	if fe != nil {
		t.Fatalf("usage: %s: %s", fe.Type, fe.Message)
	}
	cost := func(v float64) *float64 { return &v }
	// a: 4 × 7200 s = 28800 s, all within quota, goodput; 8 h × 55.04 = 440.32.
	// b: 20 × 7200 s = 144000 s: 16 × 7200 = 115200 within, 4 × 7200 =
	// 28800 borrowed; lost to preemption; 40 h × 55.04 = 2201.6.
	want := &contract.UsageView{Since: "2026-12-01T00:00:00Z", Until: "2026-12-01T05:00:00Z", Period: "day", Priced: true,
		Rows: []contract.UsageRow{
			{Team: "search-ranking", Class: "production", InstanceType: "ml.p5.48xlarge", Period: "2026-12-01",
				InstanceSeconds: 28800, WithinQuota: 28800, Goodput: 28800, Cost: cost(440.32)},
			{Team: "search-research", Class: "sweep", InstanceType: "ml.p5.48xlarge", Period: "2026-12-01",
				InstanceSeconds: 144000, WithinQuota: 115200, Borrowed: 28800, LostPreempted: 144000, Cost: cost(2201.6)},
		},
		// waits: a 3 h - 2 h run = 3600 s; b 4 h - 2 h = 7200 s.
		Groups: []contract.UsageGroup{
			{Team: "search-ranking", Class: "production", Outcomes: map[string]int{"succeeded": 1}, WaitP50Seconds: 3600, WaitP95Seconds: 3600, WaitMaxSeconds: 3600, Waited: 1},
			{Team: "search-research", Class: "sweep", Outcomes: map[string]int{"preempted": 1}, WaitP50Seconds: 7200, WaitP95Seconds: 7200, WaitMaxSeconds: 7200, Waited: 1},
		}}
	approx := cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })
	if diff := cmp.Diff(want, resp.Usage, approx); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	// A bad window is the caller's mistake, naming the field.
	bad, _ := json.Marshal(contract.Request{Action: contract.ActionUsage, Since: "2026-12-02", Until: "2026-12-01"})
	if _, fe := invoke(t, invocation("research-search-research", "r2"), h, bad); fe == nil || fe.Type != string(contract.KindValidation) {
		t.Errorf("since after until: %+v, want a ValidationError", fe)
	}
}
