// Command cmd runs the start-estimate backtest (package etabench) on one
// trace and prints its table.
//
//	go run ./bench/eta/cmd --trace examples/jobs.csv
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	etabench "github.com/trainq/trainq/bench/eta"
	"github.com/trainq/trainq/platform/platformfile"
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
	dump := flag.String("samples-csv", "", "also write every sample (class, moment asked, actual, likely, range, latest, queued) to this CSV file")
	report := flag.String("report", "", "print the table of the samples in these CSV files (comma-separated, as --samples-csv wrote them) instead of running")
	flag.Parse()
	if *report != "" {
		if err := reportFiles(*platformPath, strings.Split(*report, ",")); err != nil {
			fmt.Fprintln(os.Stderr, "eta backtest:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*tracePath, *platformPath, etabench.Options{Samples: *samples, MinWaitSeconds: *minWait, At: *at, WindowDays: *window,
		Runs: *runs, Seed: *seed, ListAll: *listAll, RandomMoments: *random}, *dump); err != nil {
		fmt.Fprintln(os.Stderr, "eta backtest:", err)
		os.Exit(1)
	}
}

func run(tracePath, platformPath string, opts etabench.Options, dump string) error {
	if tracePath == "" {
		return fmt.Errorf("--trace: got nothing, want a trace CSV")
	}
	p, err := platformfile.LoadFileOrDefault(platformPath)
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
	if dump != "" {
		if err := writeSamples(dump, samples); err != nil {
			return err
		}
	}
	cut := 0
	for _, s := range samples {
		if s.Queued > 100 {
			cut++
		}
	}
	fmt.Printf("%d of the samples saw a queue of more than 100 jobs\n", cut)
	asked := fmt.Sprintf("at %.0f%% of their wait", 100*opts.At)
	if opts.RandomMoments {
		asked = "at random moments"
	}
	fmt.Printf("%s: %d samples %s, %d days of history, %d runs each (%.1f s)\n\n", tracePath, len(samples), asked,
		opts.WindowDays, opts.Runs, time.Since(began).Seconds())
	return etabench.WriteTable(os.Stdout, etabench.Report(p, samples))
}

// writeSamples writes samples as CSV, one a line.
func writeSamples(path string, samples []etabench.Sample) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"class", "at_s", "actual_s", "likely_s", "low_s", "high_s", "latest_s", "queued"})
	for _, s := range samples {
		w.Write([]string{s.Class, fmt.Sprint(s.At), fmt.Sprint(s.Actual), fmt.Sprint(s.Likely), fmt.Sprint(s.Low), fmt.Sprint(s.High),
			fmt.Sprint(s.Latest), fmt.Sprint(s.Queued)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// reportFiles prints the table of the samples in files, together.
func reportFiles(platformPath string, files []string) error {
	p, err := platformfile.LoadFileOrDefault(platformPath)
	if err != nil {
		return err
	}
	var samples []etabench.Sample
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for i, r := range rows {
			if i == 0 {
				continue
			}
			if len(r) != 8 {
				return fmt.Errorf("%s line %d: %d fields, want 8", path, i+1, len(r))
			}
			var v [7]int64
			for k := range v {
				if v[k], err = strconv.ParseInt(r[k+1], 10, 64); err != nil {
					return fmt.Errorf("%s line %d: %w", path, i+1, err)
				}
			}
			samples = append(samples, etabench.Sample{Class: r[0], At: v[0], Actual: v[1], Likely: v[2], Low: v[3], High: v[4], Latest: v[5],
				Queued: int(v[6])})
		}
	}
	fmt.Printf("%s: %d samples\n\n", strings.Join(files, ", "), len(samples))
	return etabench.WriteTable(os.Stdout, etabench.Report(p, samples))
}
