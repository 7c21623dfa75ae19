// Command roundtrip carries a generated trace through the platform's
// memory and back at scale (internal/roundtrip): the simulator's per-job
// outcomes on the default platform, the AWS Batch events they would
// produce (shuffled, one in ten sent twice), the observer writing the job
// ledger on a local DynamoDB (dynalite), then trace export and usage over
// every item (their time and peak heap, by ledger.Export and ledger.Usage),
// and the round trip read back as trainq trace export reads it (the
// submission function's export action, page by page), which must give back
// the simulator's jobs, and usage its instance-seconds per team, exactly.
//
// The first -emulated jobs' events go through the observer's real
// bootstrap under the Lambda Runtime Interface Emulator (several emulators
// at once, as Lambda runs concurrent invocations): the write path as
// deployed. Every other job is recorded from its last event alone (which
// lists all its attempts and preemptions), through the observer's handler
// in this process, so that 100,000 jobs fill in minutes on a shared
// machine; the round trip then covers every job. With -emulated at least
// the trace's jobs (e.g. 1000000), every event of every job goes through
// the emulators: 100,000 jobs are some 600,000 invocations, most of an
// hour on two shared cores, with a progress line every tenth.
//
// Run it with bench/ledger/run.sh roundtrip. It is a benchmark, not a
// test: it asserts nothing about speed, but fails when the round trip does
// not give back what went in.
package main

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchevents"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/internal/lambdatest"
	"github.com/trainq/trainq/internal/roundtrip"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
	"github.com/trainq/trainq/trace"
)

func main() {
	jobs := flag.Int("jobs", 100000, "jobs of the generated trace")
	writers := flag.Int("writers", 4, "observer emulators invoked at once")
	emulated := flag.Int("emulated", 5000, "jobs whose every event goes through the observer under the emulator")
	seed := flag.Uint64("seed", 1, "trace seed")
	file := flag.String("trace", "", "a trace file to replay instead of a generated trace (-jobs is then ignored), e.g. examples/jobs.csv")
	flag.Parse()
	if err := run(*file, *jobs, *emulated, *writers, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bench/ledger/roundtrip:", err)
		os.Exit(1)
	}
}

func run(file string, n, emulated, writers int, seed uint64) error {
	ctx := context.Background()
	p := platform.Default()
	var jobs []trace.Job
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		jobs, err = roundtrip.ReadTrace(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		n = len(jobs)
	} else if err := trace.Generate(p, trace.GenerateOptions{Seed: seed, Jobs: n}, func(j trace.Job) error { jobs = append(jobs, j); return nil }); err != nil {
		return err
	}
	// The observer stamps with the real clock: the trace ends a day ago.
	probe, err := roundtrip.Simulate(p, jobs, 0)
	if err != nil {
		return err
	}
	start := time.Now().Add(-24*time.Hour).UnixMilli() - probe.End
	start -= start % 1000
	t0 := time.Now()
	rt, err := roundtrip.Simulate(p, jobs, start)
	if err != nil {
		return err
	}
	emulated = min(emulated, len(rt.Jobs))
	events := roundtrip.Events(rt.Jobs[:emulated], 0.1, seed)
	preempted, distinct := 0, 0
	for _, j := range rt.Jobs[:emulated] {
		distinct += len(batchevents.Events(j))
	}
	for _, j := range rt.Jobs {
		for _, a := range j.Attempts {
			if a.Preempted {
				preempted++
			}
		}
	}
	fmt.Printf("trace %s: %d jobs over %.1f days (seed %d); simulated in %.1f s: %d preempted attempts, %d jobs to export; %d jobs' %d events (%d sent twice, shuffled: %d invocations) under the emulator\n",
		cmp.Or(file, "generated"), n, float64(rt.End-rt.Start)/86.4e6, seed, time.Since(t0).Seconds(), preempted, len(rt.Want), emulated, distinct, len(events)-distinct, len(events))

	const table = "roundtrip"
	local, err := roundtrip.Ledger(ctx, table)
	if err != nil {
		return err
	}
	defer local.Close()
	dir, err := os.MkdirTemp("", "roundtrip")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fn, err := lambdatest.BuildFunction(ctx, dir, lambdatest.ObserverPackage)
	if err != nil {
		return err
	}
	var emulators []*lambdatest.Emulator
	defer func() {
		for _, e := range emulators {
			e.Close()
		}
	}()
	for range writers {
		// The emulator's own lines at warn (LOG_LEVEL is the emulator's,
		// not the function's), so that it forwards only the function's
		// lines and its START, END and REPORT; a log of hundreds of
		// thousands of invocations is kept to its first 64 KiB.
		e, err := fn.Start(ctx, contract.EnvLedgerTable+"="+table, "AWS_ENDPOINT_URL_DYNAMODB="+local.Endpoint,
			contract.EnvJobQueue+"="+roundtrip.Queue, "LOG_LEVEL=warn")
		if err != nil {
			return err
		}
		e.LimitLog(64 << 10)
		emulators = append(emulators, e)
	}
	work := make(chan []byte, 1024)
	var wg sync.WaitGroup
	var failed, done atomic.Int64
	var first atomic.Value
	t1 := time.Now()
	fmt.Printf("load average at the start: %s\n", loadAverage())
	for _, e := range emulators {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range work {
				status, body, err := e.Invoke(ctx, ev)
				if d := done.Add(1); d%int64(max(len(events)/10, 1)) == 0 {
					fmt.Printf("  %d of %d events in %.0f s (%.2f ms each so far), load average %s\n",
						d, len(events), time.Since(t1).Seconds(), time.Since(t1).Seconds()*1000/float64(d), loadAverage())
				}
				if err != nil || status != 200 || len(body) > 0 && body[0] == '{' && contains(body, "errorType") {
					if failed.Add(1) == 1 {
						first.Store(fmt.Sprintf("status %d, %s, %v", status, body, err))
					}
				}
			}
		}()
	}
	for _, ev := range events {
		work <- ev
	}
	close(work)
	wg.Wait()
	write := time.Since(t1)
	fmt.Printf("load average at the end: %s\n", loadAverage())
	if failed.Load() > 0 {
		return fmt.Errorf("%d events failed, the first: %v", failed.Load(), first.Load())
	}
	fmt.Printf("write path under the emulator: %.1f s, %.2f ms per event (%d emulators at once, dynalite %s)\n",
		write.Seconds(), write.Seconds()*1000/float64(len(events)), writers, dynamotest.Version)

	now := time.UnixMilli(rt.End).Add(time.Hour)
	store, err := ledger.NewStore(local.Client(), table, 0, func() time.Time { return now })
	if err != nil {
		return err
	}
	if rest := rt.Jobs[emulated:]; len(rest) > 0 {
		obs, err := observe.NewObserver(p, roundtrip.Queue, time.Now, io.Discard)
		if err != nil {
			return err
		}
		obs.SetLedger(store)
		t4 := time.Now()
		work := make(chan []byte, 1024)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ev := range work {
					if _, err := obs.Invoke(ctx, ev); err != nil {
						failed.Add(1)
					}
				}
			}()
		}
		for _, j := range rest {
			ev := batchevents.Events(j)
			work <- ev[len(ev)-1]
		}
		close(work)
		wg.Wait()
		if failed.Load() > 0 {
			return fmt.Errorf("%d last events failed", failed.Load())
		}
		fmt.Printf("fill: the other %d jobs from their last event, in process: %.1f s\n", len(rest), time.Since(t4).Seconds())
	}
	since, until := time.UnixMilli(rt.Start), time.UnixMilli(rt.End+1000)
	runtime.GC()
	stop := roundtrip.PeakHeap()
	t2 := time.Now()
	exported, err := ledger.Export(ctx, store, p, since, until, io.Discard, nil)
	if err != nil {
		return err
	}
	fmt.Printf("trace export of %d items: %d jobs in %.1f s, peak heap %.0f MiB\n", len(rt.Jobs), exported, time.Since(t2).Seconds(), float64(stop())/(1<<20))
	runtime.GC()
	stop = roundtrip.PeakHeap()
	t3 := time.Now()
	rep, err := ledger.Usage(ctx, store, p, ledger.UsageQuery{Since: since, Until: until, Period: showback.Day})
	if err != nil {
		return err
	}
	fmt.Printf("usage over %d items: %d rows in %.1f s, peak heap %.0f MiB\n", len(rt.Jobs), len(rep.Table.Rows), time.Since(t3).Seconds(), float64(stop())/(1<<20))
	// The round trip reads back as trainq trace export does: the
	// submission function's export action, page after page.
	export, stopExport, err := roundtrip.FunctionExport(p, store, now)
	if err != nil {
		return err
	}
	defer stopExport()
	t5 := time.Now()
	if err := roundtrip.Check(ctx, store, p, rt, export); err != nil {
		return err
	}
	fmt.Printf("round trip (%.1f s): trainq trace export (the submission function's export action, page by page) gave back the simulator's %d jobs and usage its instance-seconds per team, exactly:",
		time.Since(t5).Seconds(), len(rt.Want))
	for _, t := range slices.Sorted(maps.Keys(rt.Busy)) {
		fmt.Printf(" %s %d", t, rt.Busy[t])
	}
	fmt.Println()
	return nil
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

// loadAverage is the machine's 1-, 5- and 15-minute load averages, as
// /proc/loadavg gives them ("?" elsewhere): what else ran beside the run.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
