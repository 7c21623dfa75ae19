package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// TestBudgetsShowAlikeInUsageAndDryRun: trainq usage and trainq submit
// --dry-run show a team's budget with the same figures, read by the
// function from a ledger on a local DynamoDB.
func TestBudgetsShowAlikeInUsageAndDryRun(t *testing.T) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if err := local.CreateTable(ctx, dynamotest.LedgerTable("budget-ledger")); err != nil {
		t.Fatal(err)
	}
	const hour = int64(3_600_000)
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 5*hour)
	store, err := ledger.NewStore(local.Client(), "budget-ledger", 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []ledger.Observation{
		// 4 ml.p5.48xlarge 1 h-3 h: 8 instance-hours.
		{JobID: "a", JobName: "bert", Team: "search-ranking", Class: "production", InstanceType: "ml.p5.48xlarge", Instances: 4,
			Status: "SUCCEEDED", CreatedAt: d0, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + hour, StoppedAt: d0 + 3*hour}}, StoppedAt: d0 + 3*hour},
		// 2 ml.p5.48xlarge running since 4 h: 2 instance-hours to now.
		{JobID: "c", JobName: "vit", Team: "search-ranking", Class: "research", InstanceType: "ml.p5.48xlarge", Instances: 2,
			Status: "RUNNING", CreatedAt: d0 + 3*hour, StartedAt: d0 + 4*hour, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + 4*hour}}},
	} {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	p := platform.Default()
	p.Teams[0].Budgets = []platform.Budget{{Name: "p5-month", InstanceHours: 10, InstanceType: "ml.p5.48xlarge",
		Actions: map[string]platform.BudgetAction{"sweep": platform.ActionRefuse}}}
	p.ApplyDefaults()
	// The CLI's platform file: JSON is YAML.
	file := filepath.Join(t.TempDir(), "trainq.yaml")
	b, _ := json.Marshal(p)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	fake := batchtest.New(0)
	t.Cleanup(fake.Close)
	env := operatorFunction(t, submit.Config{Platform: p, JobQueue: demoQueue, ExecutionRoleARN: demoRole,
		Batch: submit.NewBatchClient(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
			BaseEndpoint: aws.String(fake.URL)}, submit.DefaultRetryPolicy),
		Ledger: store, Now: func() time.Time { return now }})

	r := trainqWith(t, env, "usage", "--platform", file, "--class", "sweep", "--team", "search-ranking", "--since", "2026-12-01", "--by", "team")
	if r.code != 0 {
		t.Fatalf("usage: exit %d: %s", r.code, r.stderr)
	}
	// By hand: used 8 + 2 = 10 of 10: 100.0%; the running job's 2
	// instances for the 739 h to Jan 1 (31 × 24 − 5): forecast 10 + 2 ×
	// 739 = 1488.
	want := `Budgets now

TEAM            BUDGET    PERIOD  USED  LIMIT  %      FORECAST  UNIT                              RESETS
search-ranking  p5-month  month   10    10     100.0  1488      instance-hours of ml.p5.48xlarge  2027-01-01T00:00:00Z
`
	if _, got, ok := strings.Cut(r.stdout, "Budgets now"); !ok || "Budgets now"+got != want {
		t.Errorf("trainq usage printed:\n%s\nwant its end:\n%s", r.stdout, want)
	}
	u := trainqWith(t, env, "usage", "--platform", file, "--class", "sweep", "--team", "search-ranking", "--since", "2026-12-01", "--output", "json")
	var usage contract.UsageView
	if err := json.Unmarshal([]byte(u.stdout), &usage); err != nil || len(usage.Budgets) != 1 {
		t.Fatalf("usage json: %v %s", err, u.stdout)
	}

	d := trainqWith(t, env, "submit", "--platform", file, "--class", "sweep", "--team", "search-ranking", "--job-name", "lr",
		"--training-job", "examples/job.json", "--dry-run", "--output", "json")
	if d.code != 0 {
		t.Fatalf("dry run: exit %d: %s", d.code, d.stderr)
	}
	var dry client.DryRun
	if err := json.Unmarshal([]byte(d.stdout), &dry); err != nil {
		t.Fatal(err)
	}
	// The same figures, with the sweep's action past 100%.
	wantDry := usage.Budgets
	wantDry[0].Action = "refuse"
	if diff := cmp.Diff(wantDry, dry.Budgets); diff != "" || dry.BudgetsNotRead != "" {
		t.Errorf("dry run's budgets (-usage +dry run):\n%s%s", diff, dry.BudgetsNotRead)
	}
	text := trainqWith(t, env, "submit", "--platform", file, "--class", "sweep", "--team", "search-ranking", "--job-name", "lr",
		"--training-job", "examples/job.json", "--dry-run")
	if !strings.Contains(text.stdout, "p5-month is used: a sweep job on a type it counts would be refused") {
		t.Errorf("dry run printed:\n%s\nwant it to say the sweep would be refused", text.stdout)
	}
	if n := len(fake.Calls("SubmitServiceJob")); n != 0 {
		t.Errorf("the dry runs submitted %d jobs", n)
	}
}
