// Command ledger benchmarks the job ledger on a local DynamoDB (dynalite,
// internal/dynamotest): the observer's write path (every event of N jobs,
// shuffled, 10% sent twice, through observe.Observer.Invoke into
// ledger.Store), then usage and trace export over the N items, with the
// DynamoDB calls and capacity counted, peak heap sampled, and the monthly
// on-demand cost of a 1,000,000-job month computed from the calls per job.
//
// Run it with bench/ledger/run.sh. It is a benchmark, not a test: it
// asserts nothing about speed.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trainq/trainq/internal/batchevents"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/internal/roundtrip"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
)

const queueARN = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"

func main() {
	jobs := flag.Int("jobs", 100000, "jobs to record")
	writers := flag.Int("writers", 8, "concurrent writers (Lambda invocations at once)")
	wruPrice := flag.Float64("wru-price", 0.625, "on-demand price of a million write request units (USD, us-east-1)")
	rruPrice := flag.Float64("rru-price", 0.125, "on-demand price of a million read request units (USD, us-east-1)")
	flag.Parse()
	if err := run(*jobs, *writers, *wruPrice, *rruPrice); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ledger:", err)
		os.Exit(1)
	}
}

func run(n, writers int, wruPrice, rruPrice float64) error {
	ctx := context.Background()
	local, err := roundtrip.Ledger(ctx, "bench-ledger")
	if err != nil {
		return err
	}
	defer local.Close()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(start).Add(31 * 24 * time.Hour)
	store, err := ledger.NewStore(local.Client(), "bench-ledger", 0, func() time.Time { return now })
	if err != nil {
		return err
	}
	p := platform.Default()
	obs, err := observe.NewObserver(p, queueARN, func() time.Time { return now }, io.Discard)
	if err != nil {
		return err
	}
	obs.SetLedger(store)
	// N jobs over 30 days: 1 to 16 instances, 10 min to 6 h, one in ten
	// preempted once.
	r := rand.New(rand.NewPCG(1, 2))
	var events [][]byte
	teams := []string{"search-ranking", "search-research"}
	types := []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}
	for i := range n {
		created := start + r.Int64N(30*24*3600*1000)
		sched := created + r.Int64N(3600*1000)
		run := 600_000 + r.Int64N(6*3600*1000)
		j := batchevents.Job{ID: fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), Name: fmt.Sprintf("job-%d", i), Queue: queueARN,
			Share: teams[i%2], Priority: 550, InstanceType: types[r.IntN(2)], Instances: 1 + r.IntN(16), CreatedAt: created,
			TimeoutSeconds: 259200, PreemptionRetries: 10, Succeeded: true}
		if r.IntN(10) == 0 {
			stop := sched + 60_000 + run/2
			j.Attempts = append(j.Attempts, batchevents.Attempt{ScheduledAt: sched, StartedAt: sched + 60_000, StoppedAt: stop, Preempted: true})
			sched = stop + r.Int64N(1800*1000)
		}
		j.Attempts = append(j.Attempts, batchevents.Attempt{ScheduledAt: sched, StartedAt: sched + 60_000, StoppedAt: sched + 60_000 + run})
		for _, e := range batchevents.Events(j) {
			events = append(events, e)
			if r.IntN(10) == 0 {
				events = append(events, e)
			}
		}
	}
	r.Shuffle(len(events), func(a, b int) { events[a], events[b] = events[b], events[a] })
	fmt.Printf("jobs %d, events %d (10%% sent twice, shuffled), writers %d, dynalite %s\n", n, len(events), writers, dynamotest.Version)

	t0 := time.Now()
	work := make(chan []byte, 1024)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for e := range work {
				if _, err := obs.Invoke(ctx, e); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	for _, e := range events {
		work <- e
	}
	close(work)
	wg.Wait()
	write := time.Since(t0)
	st := store.Stats()
	if failed.Load() > 0 {
		return fmt.Errorf("%d events failed", failed.Load())
	}
	ev := float64(len(events))
	fmt.Printf("write path: %.1f s, %.2f ms per event (%d writers); per event %.3f GetItem, %.3f PutItem, %.4f lost conditional puts\n",
		write.Seconds(), write.Seconds()*1000/ev, writers, float64(st.Gets)/ev, float64(st.Puts)/ev, float64(st.Conflicts)/ev)

	// Item size, as DynamoDB bills it: attribute names and values.
	size := maxItemBytes(ctx, store, now)
	// Each job: its GetItems are strongly consistent (1 RRU up to 4 KB);
	// each PutItem costs ceil(size/1 KB) WRU on the table, the same on the
	// byEnd index, and twice that on the index when the job ends (its key
	// moves from "open" to the day: a delete and a put); a lost
	// conditional put is billed as a write too.
	wruPerPut := float64((size + 1023) / 1024)
	perJobGets := float64(st.Gets) / float64(n)
	perJobPuts := float64(st.Puts) / float64(n)
	wruPerJob := perJobPuts*wruPerPut*2 + wruPerPut // table + index, +1 for the end's move
	rruPerJob := perJobGets
	const month = 1_000_000
	cost := month*wruPerJob/1e6*wruPrice + month*rruPerJob/1e6*rruPrice
	fmt.Printf("largest item %d bytes; per job %.2f GetItem, %.2f PutItem = %.2f WRU (table and index) and %.2f RRU\n",
		size, perJobGets, perJobPuts, wruPerJob, rruPerJob)
	fmt.Printf("a 1,000,000-job month: %.2f million WRU × $%.3f + %.2f million RRU × $%.3f = $%.2f (on-demand, us-east-1; storage 1e6 × %d B = %.2f GB more)\n",
		wruPerJob, wruPrice, rruPerJob, rruPrice, cost, size, float64(month*size)/1e9)

	runtime.GC()
	stop := roundtrip.PeakHeap()
	t1 := time.Now()
	rep, err := ledger.Usage(ctx, store, p, ledger.UsageQuery{Since: time.UnixMilli(start), Until: now, Period: showback.Day})
	if err != nil {
		return err
	}
	usage := time.Since(t1)
	heap := stop()
	var total int64
	for _, u := range rep.Table.Rows {
		total += u.Total()
	}
	fmt.Printf("usage over %d items: %.1f s, peak heap %.0f MiB, %d rows, %.0f instance-hours\n", n, usage.Seconds(), float64(heap)/(1<<20), len(rep.Table.Rows), float64(total)/3.6e6)

	runtime.GC()
	stop = roundtrip.PeakHeap()
	t2 := time.Now()
	var out bytes.Buffer
	exported, err := ledger.Export(ctx, store, p, time.UnixMilli(start), now, &out, nil)
	if err != nil {
		return err
	}
	export := time.Since(t2)
	heap = stop()
	fmt.Printf("export of %d jobs: %.1f s, peak heap %.0f MiB, %d bytes of CSV\n", exported, export.Seconds(), float64(heap)/(1<<20), out.Len())
	return nil
}

// maxItemBytes reads every item and returns the largest one's size by
// DynamoDB's rule (names plus values; numbers as their digits).
func maxItemBytes(ctx context.Context, s *ledger.Store, now time.Time) int {
	largest := 0
	_ = s.Jobs(ctx, now.AddDate(0, -2, 0), now, func(j *ledger.Job) error {
		size := ledger.ItemBytes(j)
		if size > largest {
			largest = size
		}
		return nil
	})
	return largest
}
