package observe_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/batchevents"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

var local *dynamotest.Server

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m, &local)) }

// A sweep of search-research on 8 ml.p5.48xlarge: preempted after an hour,
// requeued, then succeeded (times in Unix ms).
const (
	t0     = int64(1796054400000) // 2026-11-30T16:00:00Z
	sched1 = t0 + 300_000
	start1 = t0 + 420_000
	stop1  = t0 + 3_600_000
	sched2 = t0 + 3_900_000
	start2 = t0 + 4_020_000
	stop2  = t0 + 7_620_000
)

func preemptedThenSucceeded(id string) batchevents.Job {
	return batchevents.Job{ID: id, Name: "sweep-trial-42", Queue: queueARN, Share: "search-research", Priority: 150,
		InstanceType: "ml.p5.48xlarge", Instances: 8, CreatedAt: t0, TimeoutSeconds: 86400, PreemptionRetries: 10,
		Attempts: []batchevents.Attempt{
			{ScheduledAt: sched1, StartedAt: start1, StoppedAt: stop1, Preempted: true},
			{ScheduledAt: sched2, StartedAt: start2, StoppedAt: stop2},
		}, Succeeded: true}
}

// TestObserverRecordsTheSameJobWhateverTheOrderOfItsEvents sends the job's
// eleven events through the observer's Lambda entry (Invoke), shuffled,
// with duplicates, for 30 jobs, into a ledger on a local DynamoDB, and
// requires every item to be the one its events describe.
func TestObserverRecordsTheSameJobWhateverTheOrderOfItsEvents(t *testing.T) {
	ctx := context.Background()
	c := local.Client()
	if err := local.CreateTable(ctx, dynamotest.LedgerTable("observer-ledger")); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.UnixMilli(stop2).Add(time.Minute) }
	store, err := ledger.NewStore(c, "observer-ledger", 0, now)
	if err != nil {
		t.Fatal(err)
	}
	o, err := observe.NewObserver(platform.Default(), queueARN, now, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o.SetLedger(store)
	r := rand.New(rand.NewPCG(7, 8))
	const jobs = 30
	for n := range jobs {
		events := batchevents.Events(preemptedThenSucceeded(fmt.Sprintf("job-%02d", n)))
		// RUNNABLE, (SCHEDULED, STARTING, RUNNING) twice with a RUNNABLE
		// between, SUCCEEDED.
		if len(events) != 9 {
			t.Fatalf("the job has %d events, want 9", len(events))
		}
		seq := r.Perm(len(events))
		for range 1 + r.IntN(5) {
			seq = append(seq, r.IntN(len(events)))
		}
		r.Shuffle(len(seq), func(a, b int) { seq[a], seq[b] = seq[b], seq[a] })
		for _, i := range seq {
			if _, err := o.Invoke(ctx, events[i]); err != nil {
				t.Fatalf("invoke: %v", err)
			}
		}
	}
	tj := func(n int) string {
		return fmt.Sprintf("arn:aws:sagemaker:us-east-1:123456789012:training-job/AWSBatchsweep-trial-42-%d", n)
	}
	for n := range jobs {
		id := fmt.Sprintf("job-%02d", n)
		got, ok, err := store.Get(ctx, id)
		if err != nil || !ok {
			t.Fatalf("%s: %v, found %v", id, err, ok)
		}
		want := ledger.Job{
			JobID: id, JobARN: "arn:aws:batch:us-east-1:123456789012:service-job/" + id, JobName: "sweep-trial-42",
			// priority 150 is in sweep's band 100-199 (the default platform)
			Team: "search-research", Class: "sweep", Priority: 150, InstanceType: "ml.p5.48xlarge", Instances: 8,
			CreatedAt: t0, Scheduled: []int64{sched1, sched2},
			Attempts: []ledger.Attempt{
				{StartedAt: start1, StoppedAt: stop1, StatusReason: batchevents.ReasonPreempted + " search-research", Preempted: true, TrainingJob: tj(1)},
				{StartedAt: start2, StoppedAt: stop2, StatusReason: batchevents.ReasonCompleted, TrainingJob: tj(2)},
			},
			PreemptedCount: 1, TimeoutSeconds: 86400,
			Status: "SUCCEEDED", StatusReason: batchevents.ReasonCompleted,
			Seq:     ledger.Order(ledger.Observation{Status: "SUCCEEDED", StoppedAt: stop2}),
			EndedAt: stop2,
		}
		if diff := cmp.Diff(want, *got); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", id, diff)
		}
		if got.Outcome() != ledger.OutcomeSucceeded {
			t.Errorf("%s: outcome %s, want succeeded", id, got.Outcome())
		}
	}
}

// failingLedger fails every write, as a throttled table would.
type failingLedger struct{ calls int }

func (f *failingLedger) Record(context.Context, ledger.Observation) (bool, error) {
	f.calls++
	return false, fmt.Errorf("ProvisionedThroughputExceededException")
}

// TestALedgerFailureFailsTheInvocationSoThatLambdaRetriesIt: the event's
// metrics are not written either, so that the retry writes them once.
func TestALedgerFailureFailsTheInvocationSoThatLambdaRetriesIt(t *testing.T) {
	var out bytesBuffer
	o, err := observe.NewObserver(platform.Default(), queueARN, fixedClock, &out)
	if err != nil {
		t.Fatal(err)
	}
	f := &failingLedger{}
	o.SetLedger(f)
	ev := batchevents.Events(preemptedThenSucceeded("job-x"))
	if _, err := o.Invoke(context.Background(), ev[len(ev)-1]); err == nil {
		t.Fatal("the invocation succeeded although the ledger failed")
	}
	if f.calls != 1 || out.n != 0 {
		t.Errorf("ledger calls %d, metric bytes %d; want 1 and 0", f.calls, out.n)
	}
	// An event of another queue is not the ledger's: no write, no failure.
	other := batchevents.Events(batchevents.Job{ID: "j", Name: "n", Queue: "arn:aws:batch:us-east-1:123456789012:job-queue/other",
		Share: "search-research", Priority: 150, InstanceType: "ml.p5.48xlarge", Instances: 1, CreatedAt: t0})
	if _, err := o.Invoke(context.Background(), other[0]); err != nil || f.calls != 1 {
		t.Errorf("other queue: err %v, ledger calls %d; want nil and still 1", err, f.calls)
	}
}

type bytesBuffer struct{ n int }

func (b *bytesBuffer) Write(p []byte) (int, error) { b.n += len(p); return len(p), nil }
