// Package simcmd is the command line of the simulator: `trainq simulate`
// replays a trace against one or several platforms and FIFO and writes the
// table, JSON, per-job CSV and HTML report; `trainq trace` generates and
// converts traces. bin/trainq wires Simulate and Trace in; this package
// only parses flags, opens files and prints.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package simcmd

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// Simulate runs `trainq simulate`, reading --trace - from os.Stdin.
func Simulate(args []string, stdout, stderr io.Writer) error {
	return SimulateFrom(args, os.Stdin, stdout, stderr)
}

// SimulateFrom runs `trainq simulate`, reading --trace - from stdin.
func SimulateFrom(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	var platformFiles []string
	fs.Func("platform", "platform file (YAML or JSON); repeat to compare several side by side; default: the embedded default platform",
		func(v string) error { platformFiles = append(platformFiles, v); return nil })
	traceFile := fs.String("trace", "", "trace CSV: submit_s,duration_s,instances,instance_type,class,team[,job_id,priority], - for standard input (required)")
	output := fs.String("output", "table", "output format: table or json")
	reportDir := fs.String("report", "", "directory to write report.html and report.json into")
	jobsFile := fs.String("jobs", "", "CSV file to write one row per job and run into")
	noProgress := fs.Bool("no-progress", false, "never show a progress bar")
	progress := fs.Bool("progress", false, "show a progress bar on stderr even when it is not a terminal")
	epoch := fs.String("epoch", "1970-01-01T00:00:00Z", "the moment of the trace's second 0 (RFC 3339), which places the calendar months of the platform's budgets")
	alarmNoise := fs.Bool("alarms", false, "also evaluate each platform's alarm rules over the metrics its run would write, and print how often each would page or ticket")
	help := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: trainq simulate --trace FILE [--platform FILE]... [--output table|json] [--report DIR] [--jobs FILE]\n\n"+
			"Replays a job trace against each platform's scheduling policy and against a strict FIFO queue on\n"+
			"the first platform's pools, and reports waits, preemptions, utilization and per-job outcomes side\n"+
			"by side. Give a platform without and with a change (re-routing, checkpoints, quotas) to see what it\n"+
			"changes. See docs/simulate.md.\n\nFlags:\n")
		cli.PrintDefaults(fs, w)
	}
	defaults := cli.Bind(fs, "platform")
	if err := cli.Parse(fs, args, stdout, help); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if err := defaults.Apply(); err != nil {
		return err
	}
	if *traceFile == "" {
		return cli.Usagef("--trace: got nothing, want a trace CSV file")
	}
	if *output != "table" && *output != "json" {
		return cli.Usagef("--output: got %q, want table or json", *output)
	}
	at, err := time.Parse(time.RFC3339, *epoch)
	if err != nil {
		return cli.Usagef("--epoch: got %q, want an RFC 3339 time (2026-11-01T00:00:00Z)", *epoch)
	}
	runs, err := plan(platformFiles)
	if err != nil {
		return err
	}
	src, err := openTrace(*traceFile, stdin)
	if err != nil {
		return err
	}
	defer src.close()
	var jobs *simulate.JobsCSV
	var jobsOut *bufio.Writer
	if *jobsFile != "" {
		// --report out/ --jobs out/jobs.csv: the directory may not exist yet.
		if err := os.MkdirAll(filepath.Dir(*jobsFile), 0o755); err != nil {
			return fmt.Errorf("--jobs: %w", err)
		}
		f, err := os.Create(*jobsFile)
		if err != nil {
			return fmt.Errorf("--jobs: %w", err)
		}
		defer f.Close()
		jobsOut = bufio.NewWriter(f)
		if jobs, err = simulate.NewJobsCSV(jobsOut); err != nil {
			return err
		}
	}
	show := !*noProgress && (*progress || isTerminal(stderr))
	bar := &progressBar{w: stderr, show: show, start: time.Now()}
	rep := &simulate.Report{Schema: simulate.Schema, Trace: src.name}
	var noise []*simulate.AlarmNoise
	for i, r := range runs {
		opts := simulate.Options{Policy: r.policy, Epoch: at}
		var recorder *simulate.AlarmRecorder
		if *alarmNoise && r.policy == simulate.PolicyPlatform {
			recorder = simulate.NewAlarmRecorder(r.p)
			opts.Observer = recorder
		}
		if jobs != nil {
			label := r.label
			opts.Jobs = func(rec simulate.JobRecord) error { return jobs.Write(label, rec) }
		}
		res, err := runFile(r.p, src, opts, func(read int64) {
			bar.update((float64(i) + float64(read)/float64(max(src.size, 1))) / float64(len(runs)))
		})
		if err != nil {
			bar.done()
			return fmt.Errorf("%s (run %s, %s): %w", *traceFile, r.label, defaults.PlatformSource(r.file), err)
		}
		res.Label = r.label
		rep.Runs = append(rep.Runs, res)
		if recorder != nil {
			noise = append(noise, simulate.EvaluateAlarms(r.label, simulate.PlatformRules(r.p), recorder.Series()))
		}
	}
	bar.done()
	if jobs != nil {
		if err := jobs.Flush(); err != nil {
			return err
		}
		if err := jobsOut.Flush(); err != nil {
			return fmt.Errorf("--jobs: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", *jobsFile)
	}
	if *reportDir != "" {
		files, err := simulate.WriteReport(*reportDir, rep)
		if err != nil {
			return err
		}
		for _, f := range files {
			fmt.Fprintf(stderr, "wrote %s\n", f)
		}
	}
	if *output == "json" {
		if noise != nil {
			return writeJSONWithAlarms(stdout, rep, noise)
		}
		return simulate.WriteJSON(stdout, rep)
	}
	if err := simulate.WriteTable(stdout, rep); err != nil || noise == nil {
		return err
	}
	fmt.Fprintln(stdout)
	return simulate.WriteAlarmNoise(stdout, noise)
}

// run is one simulation of the trace.
type run struct {
	label string
	// file is the platform file, "" for the embedded default.
	file   string
	p      *platform.Platform
	policy simulate.Policy
}

// plan loads the platforms and lists the runs: each platform's own policy,
// labelled by its file name without the extension ("default" for the
// embedded one), then FIFO on the first platform's pools, labelled "fifo".
func plan(files []string) ([]run, error) {
	if len(files) == 0 {
		files = []string{""}
	}
	var runs []run
	seen := map[string]string{"fifo": "the FIFO baseline"}
	for _, f := range files {
		p, err := platformfile.LoadFileOrDefault(f)
		if err != nil {
			return nil, err
		}
		label := "default"
		if f != "" {
			label = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		}
		if other, dup := seen[label]; dup {
			return nil, cli.Usagef("--platform %s: its label %q is taken by %s; give the files different names", f, label, other)
		}
		seen[label] = "--platform " + f
		runs = append(runs, run{label: label, file: f, p: p, policy: simulate.PolicyPlatform})
	}
	return append(runs, run{label: "fifo", file: runs[0].file, p: runs[0].p, policy: simulate.PolicyFIFO}), nil
}

// countingReader counts bytes read, for the progress bar.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// traceSource is the trace each run reads from the start: a file, or
// standard input (--trace - or /dev/stdin), which the first run copies into
// a temporary file as it reads it, for the runs after it. Nothing holds the
// whole trace in memory.
type traceSource struct {
	path string
	// name is what the report calls the trace; size is its size in bytes
	// when known (for the progress bar).
	name  string
	size  int64
	stdin io.Reader
	spool *os.File
}

func openTrace(path string, stdin io.Reader) (*traceSource, error) {
	if path == "-" || path == "/dev/stdin" {
		f, err := os.CreateTemp("", "trainq-trace-*.csv")
		if err != nil {
			return nil, fmt.Errorf("--trace %s: a temporary copy of standard input: %w", path, err)
		}
		return &traceSource{path: f.Name(), name: "stdin", stdin: stdin, spool: f}, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	return &traceSource{path: path, name: filepath.Base(path), size: info.Size()}, nil
}

// open returns the trace from its start.
func (s *traceSource) open() (io.ReadCloser, error) {
	if s.stdin != nil {
		in := s.stdin
		s.stdin = nil
		return io.NopCloser(io.TeeReader(in, s.spool)), nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	return f, nil
}

func (s *traceSource) close() {
	if s.spool != nil {
		s.spool.Close()
		os.Remove(s.spool.Name())
	}
}

func runFile(p *platform.Platform, src *traceSource, opts simulate.Options, progress func(int64)) (*simulate.Result, error) {
	f, err := src.open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := &countingReader{r: f}
	tr, err := trace.NewReader(bufio.NewReaderSize(cr, 1<<16))
	if err != nil {
		return nil, err
	}
	opts.Progress = func(int) { progress(cr.n) }
	return simulate.Run(p, tr, opts)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws on stderr once a run has taken more than a second. It
// reads the wall clock only to decide whether to draw, never to simulate.
type progressBar struct {
	w     io.Writer
	show  bool
	start time.Time
	drawn bool
}

func (b *progressBar) update(frac float64) {
	if !b.show || time.Since(b.start) < time.Second {
		return
	}
	frac = min(max(frac, 0), 1)
	const width = 40
	n := int(frac * width)
	fmt.Fprintf(b.w, "\rsimulating [%s%s] %3.0f%%", strings.Repeat("#", n), strings.Repeat(" ", width-n), frac*100)
	b.drawn = true
}

func (b *progressBar) done() {
	if b.drawn {
		b.update(1)
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
