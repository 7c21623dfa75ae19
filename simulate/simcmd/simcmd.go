// Package simcmd is the command line of the simulator: `trainq simulate`
// replays a trace against a platform and FIFO, and `trainq trace` generates
// and converts traces. bin/trainq wires Simulate and Trace in; this package
// only parses flags, opens files and prints.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package simcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// Simulate runs `trainq simulate`.
func Simulate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	platformFile := fs.String("platform", "", "platform file (YAML or JSON); default: the embedded default platform")
	traceFile := fs.String("trace", "", "trace CSV: submit_s,duration_s,instances,instance_type,class,team[,job_id,priority] (required)")
	output := fs.String("output", "table", "output format: table or json")
	reportDir := fs.String("report", "", "directory to write SVG plots and report.json into")
	noProgress := fs.Bool("no-progress", false, "never show a progress bar")
	progress := fs.Bool("progress", false, "show a progress bar on stderr even when it is not a terminal")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: trainq simulate --trace FILE [--platform FILE] [--output table|json] [--report DIR]\n\n"+
			"Replays a job trace against the platform's scheduling policy and against a strict FIFO queue on\n"+
			"the same pools, and reports waits, preemptions and utilization. See docs/simulate.md.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("simulate: unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if *traceFile == "" {
		fs.Usage()
		return errors.New("simulate: --trace: got nothing, want a trace CSV file")
	}
	if *output != "table" && *output != "json" {
		return fmt.Errorf("simulate: --output: got %q, want table or json", *output)
	}
	p, err := platform.LoadFileOrDefault(*platformFile)
	if err != nil {
		return err
	}
	info, err := os.Stat(*traceFile)
	if err != nil {
		return fmt.Errorf("simulate: open trace: %w", err)
	}
	show := !*noProgress && (*progress || isTerminal(stderr))
	bar := &progressBar{w: stderr, show: show, start: time.Now()}
	rep := &simulate.Report{Schema: simulate.Schema, Platform: p.Name, Mode: string(p.Scheduling.Mode), Trace: filepath.Base(*traceFile)}
	for i, pol := range []simulate.Policy{simulate.PolicyPlatform, simulate.PolicyFIFO} {
		res, err := runFile(p, *traceFile, pol, func(read int64) {
			bar.update((float64(i) + float64(read)/float64(max(info.Size(), 1))) / 2)
		})
		if err != nil {
			bar.done()
			return fmt.Errorf("simulate %s: %w", *traceFile, err)
		}
		if i == 0 {
			rep.Policy = res
		} else {
			rep.FIFO = res
		}
	}
	bar.done()
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
		return simulate.WriteJSON(stdout, rep)
	}
	return simulate.WriteTable(stdout, rep)
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

func runFile(p *platform.Platform, path string, pol simulate.Policy, progress func(int64)) (*simulate.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	cr := &countingReader{r: f}
	tr, err := trace.NewReader(cr)
	if err != nil {
		return nil, err
	}
	return simulate.Run(p, tr, simulate.Options{Policy: pol, Progress: func(int) { progress(cr.n) }})
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
