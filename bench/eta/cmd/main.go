// Command cmd runs the start-estimate backtest (package etabench) on one
// trace and prints its table.
//
//	go run ./bench/eta/cmd --trace examples/jobs.csv
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	etabench "github.com/trainq/trainq/bench/eta"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

func main() {
	tracePath := flag.String("trace", "", "trace CSV to replay (required)")
	platformPath := flag.String("platform", "", "platform file (default: the embedded default platform)")
	samples := flag.Int("samples", 400, "waiting jobs to ask about")
	minWait := flag.Int64("min-wait", 60, "shortest wait (seconds) of a sampled job")
	at := flag.Float64("at", 0.25, "ask after this share of the job's wait")
	window := flag.Int("window-days", 7, "days of history the estimator gets")
	runs := flag.Int("runs", 100, "simulated runs per likely start")
	seed := flag.Uint64("seed", 1, "seed of the sampling and of the estimator")
	random := flag.Bool("random-moments", false, "ask at random moments, about a random waiting job at each, instead of at --at of each sampled job's wait")
	listAll := flag.Bool("list-all", false, "list every job in the queue answer (no 100-job bound): what the bound costs")
	flag.Parse()
	if err := run(*tracePath, *platformPath, etabench.Options{Samples: *samples, MinWaitSeconds: *minWait, At: *at, WindowDays: *window,
		Runs: *runs, Seed: *seed, ListAll: *listAll, RandomMoments: *random}); err != nil {
		fmt.Fprintln(os.Stderr, "eta backtest:", err)
		os.Exit(1)
	}
}

func run(tracePath, platformPath string, opts etabench.Options) error {
	if tracePath == "" {
		return fmt.Errorf("--trace: got nothing, want a trace CSV")
	}
	p, err := platform.LoadFileOrDefault(platformPath)
	if err != nil {
		return err
	}
	f, err := os.Open(tracePath)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return err
	}
	began := time.Now()
	samples, err := etabench.Run(p, r, opts, os.Stderr)
	if err != nil {
		return err
	}
	cut := 0
	for _, s := range samples {
		if s.Queued > 100 {
			cut++
		}
	}
	fmt.Printf("%d of the samples saw a queue of more than 100 jobs\n", cut)
	fmt.Printf("%s: %d samples at %.0f%% of their wait, %d days of history, %d runs each (%.1f s)\n\n", tracePath, len(samples), 100*opts.At,
		opts.WindowDays, opts.Runs, time.Since(began).Seconds())
	return etabench.WriteTable(os.Stdout, etabench.Report(p, samples))
}
