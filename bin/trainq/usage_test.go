package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// TestUsagePrintsTheLedgersInstanceHours runs trainq usage against the
// real submission handler (behind a fake Lambda endpoint) reading a ledger
// on a local DynamoDB: the README's example.
func TestUsagePrintsTheLedgersInstanceHours(t *testing.T) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if err := local.CreateTable(ctx, dynamotest.LedgerTable("readme-ledger")); err != nil {
		t.Fatal(err)
	}
	const hour = int64(3_600_000)
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 5*hour)
	store, err := ledger.NewStore(local.Client(), "readme-ledger", 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ledger.Observation{
		// 4 ml.p5.48xlarge 1 h-3 h, succeeded.
		{JobID: "a", JobName: "bert", Team: "search-ranking", Class: "production", Priority: 950, InstanceType: "ml.p5.48xlarge", Instances: 4,
			Status: "SUCCEEDED", CreatedAt: d0, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + hour, StoppedAt: d0 + 3*hour}}, StoppedAt: d0 + 3*hour},
		// 20 ml.p5.48xlarge (quota 16) 2 h-4 h, preempted, failed.
		{JobID: "b", JobName: "sweep", Team: "search-research", Class: "sweep", Priority: 150, InstanceType: "ml.p5.48xlarge", Instances: 20,
			Status: "FAILED", CreatedAt: d0, StoppedAt: d0 + 4*hour, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour}},
			Preempted: []ledger.ObservedAttempt{{StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour}}, PreemptedCount: 1},
		// 8 ml.p4d.24xlarge running since 4 h.
		{JobID: "c", JobName: "vit", Team: "search-ranking", Class: "research", Priority: 550, InstanceType: "ml.p4d.24xlarge", Instances: 8,
			Status: "RUNNING", CreatedAt: d0 + 3*hour, StartedAt: d0 + 4*hour, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + 4*hour}}},
	} {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	fake := batchtest.New(0)
	t.Cleanup(fake.Close)
	p := platform.Default()
	p.Ledger.HourlyPrices = map[string]float64{"ml.p5.48xlarge": 55.04, "ml.p4d.24xlarge": 37.69}
	env := operatorFunction(t, submit.Config{Platform: p, JobQueue: demoQueue, ExecutionRoleARN: demoRole,
		Batch: submit.NewBatchClient(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
			BaseEndpoint: aws.String(fake.URL)}, submit.DefaultRetryPolicy),
		Ledger: store, Now: func() time.Time { return now }})
	r := trainqWith(t, env, "usage", "--class", "research", "--team", "search-ranking", "--since", "2026-12-01", "--until", "2026-12-02", "--by", "team,type")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// By hand (instance-hours): search-ranking p4d: c 8 × 1 h running =
	// 8.0, cost 8 × 37.69 = 301.52; search-ranking p5: a 4 × 2 h = 8.0
	// within, goodput, 8 × 55.04 = 440.32; search-research p5: b 20 × 2 h
	// = 40.0, 16 × 2 = 32.0 within, 8.0 borrowed, all lost, 40 × 55.04 =
	// 2201.60. Waits: a 3 h − 2 h = 1h0m0s, b 4 h − 2 h = 2h0m0s.
	want := `Usage 2026-12-01T00:00:00Z to 2026-12-01T05:00:00Z, by day (instance-hours)

TEAM             TYPE             PERIOD      INSTANCE-H  WITHIN  BORROWED  GOODPUT  LOST  RUNNING  COST
search-ranking   ml.p4d.24xlarge  2026-12-01  8.0         8.0     0.0       0.0      0.0   8.0      301.52
search-ranking   ml.p5.48xlarge   2026-12-01  8.0         8.0     0.0       8.0      0.0   0.0      440.32
search-research  ml.p5.48xlarge   2026-12-01  40.0        32.0    8.0       0.0      40.0  0.0      2201.60

TEAM             CLASS       SUCCEEDED  FAILED  CANCELLED  REROUTED  PREEMPTED  TIMED-OUT  RUNNING  WAIT P50  P95     MAX
search-ranking   production  1          0       0          0         0          0          0        1h0m0s    1h0m0s  1h0m0s
search-ranking   research    0          0       0          0         0          0          1        -         -       -
search-research  sweep       0          0       0          0         1          0          0        2h0m0s    2h0m0s  2h0m0s
`
	if got := strings.TrimRight(r.stdout, "\n") + "\n"; got != want {
		t.Errorf("trainq usage printed:\n%s\nwant:\n%s", got, want)
	}
}
