package poll_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/poll"
)

var budgetJobs = flag.Int("budget-jobs", 2000, "jobs of the month in the ledger BenchmarkBudgetPass reads")

// BenchmarkBudgetPass measures the poller's budget pass (read the month's
// jobs from a ledger on a local DynamoDB, evaluate every budget, write the
// lines) against the usage action's read of the same month (ledger.Usage),
// the reference: both read every job of the window through Store.Jobs.
// -budget-jobs sets how many jobs the month holds (ended ones of 2
// instances for an hour, every tenth still running), spread over the
// month's first 19 days.
func BenchmarkBudgetPass(b *testing.B) {
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	now := time.Date(2026, 12, 20, 0, 7, 0, 0, time.UTC)
	table := fmt.Sprintf("budget-bench-%d", time.Now().UnixNano())
	if err := local.CreateTable(ctx, dynamotest.LedgerTable(table)); err != nil {
		b.Fatal(err)
	}
	store, err := ledger.NewStore(local.Client(), table, 0, func() time.Time { return now })
	if err != nil {
		b.Fatal(err)
	}
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	span := now.Sub(month) - 2*time.Hour
	teams := budgetsPlatform().TeamNames()
	for i := range *budgetJobs {
		start := month.Add(span * time.Duration(i) / time.Duration(*budgetJobs))
		stop := start.Add(time.Hour)
		if i%10 == 0 {
			stop = time.Time{}
		}
		if _, err := store.Record(ctx, ran(fmt.Sprintf("job-%06d", i), teams[i%len(teams)], "ml.p5.48xlarge", 2, start, stop)); err != nil {
			b.Fatal(err)
		}
	}
	p, err := poll.NewPoller(poll.PollerConfig{Platform: budgetsPlatform(), Queue: queueARN, Batch: batch.New(batch.Options{Region: "us-east-1"}), // never called by the pass

		Now: func() time.Time { return now }, Out: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pass", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.WriteBudgets(ctx, store); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(*budgetJobs), "jobs")
	})
	b.Run("usage-read", func(b *testing.B) {
		for b.Loop() {
			if _, err := ledger.Usage(ctx, store, budgetsPlatform(), ledger.UsageQuery{Since: month, Until: now}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(*budgetJobs), "jobs")
	})
}
