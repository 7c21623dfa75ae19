// Package ledger_test carries the example trace through the platform's
// memory and back: the simulator's per-job outcomes, the Batch events
// they would produce (shuffled, one in five sent twice), the observer,
// the job ledger on a local DynamoDB, and the submission function's export
// action and usage (internal/roundtrip). The 100,000-job version, with the
// observer under the Lambda Runtime Interface Emulator, is
// bench/ledger/roundtrip.
package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/trainq/trainq/internal/roundtrip"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

func TestTheExampleTraceComesBackFromTheLedger(t *testing.T) {
	ctx := context.Background()
	f, err := os.Open("../../examples/jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []trace.Job
	for {
		j, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, j)
	}
	p := platform.Default()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	run, err := roundtrip.Simulate(p, jobs, start)
	if err != nil {
		t.Fatal(err)
	}
	events := roundtrip.Events(run.Jobs, 0.2, 21)
	preempted := 0
	for _, j := range run.Jobs {
		for _, a := range j.Attempts {
			if a.Preempted {
				preempted++
			}
		}
	}
	t.Logf("%d jobs, %d events (shuffled, one in five twice), %d preempted attempts, %d jobs to export", len(run.Jobs), len(events), preempted, len(run.Want))
	if preempted == 0 {
		t.Error("the example trace preempts no attempt on the default platform: the round trip would not prove attempts are joined")
	}

	local, err := roundtrip.Ledger(ctx, "roundtrip")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	now := time.UnixMilli(run.End).Add(time.Hour)
	store, err := ledger.NewStore(local.Client(), "roundtrip", 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	obs, err := observe.NewObserver(p, roundtrip.Queue, func() time.Time { return now }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	obs.SetLedger(store)
	// Four invocations at once, as Lambda runs the observer concurrently:
	// the conditional puts must not lose each other's facts.
	work := make(chan []byte)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []error
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range work {
				if _, err := obs.Invoke(ctx, e); err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
			}
		}()
	}
	for _, e := range events {
		work <- e
	}
	close(work)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d events failed, the first: %v", len(failures), failures[0])
	}

	// Read back through the submission function's export action, as
	// trainq trace export does (an operator's signed requests, page after
	// page).
	export, stop, err := roundtrip.FunctionExport(p, store, now)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var exported bytes.Buffer
	tee := func(ctx context.Context, since, until time.Time, w io.Writer) error {
		return export(ctx, since, until, io.MultiWriter(w, &exported))
	}
	if err := roundtrip.Check(ctx, store, p, run, tee); err != nil {
		t.Error(err)
	}
	// docs/simulate.md replays examples/ledger/exported.csv as the trace
	// trainq trace export writes: it is this export, which Check has just
	// held equal to the simulator's jobs (-write-example rewrites it).
	const example = "../../examples/ledger/exported.csv"
	if *writeExample {
		if err := os.WriteFile(example, exported.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, exported.Bytes()) {
		t.Errorf("%s differs from the export of the example month (%d bytes, exported %d): run go test ./test/ledger -write-example", example, len(shipped), exported.Len())
	}
}

var writeExample = flag.Bool("write-example", false, "rewrite examples/ledger/exported.csv from the round trip's export")
