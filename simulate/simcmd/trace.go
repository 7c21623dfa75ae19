package simcmd

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/trace"
)

const traceUsage = `Usage:
  trainq trace generate --seed N --jobs N --out FILE [--platform FILE] [--load 0.5] [--output table|json]
  trainq trace convert --format %s --in FILE --out FILE [--platform FILE]
      [--gpus-per-instance 8] [--instance-types a,b] [--class NAME] [--output table|json]
  trainq trace export --since DAY --until DAY --out FILE (--class C --team T | --unqualified)

Make job traces for trainq simulate: generate draws a synthetic one for a platform,
convert reads a public cluster trace, export writes a deployed platform's own jobs
from its job ledger. See docs/simulate.md.
Run 'trainq trace generate --help', 'trainq trace convert --help' or
'trainq trace export --help' for their flags.
`

// TraceSummary is what trace generate and convert print with --output json
// (on stdout; the trace itself goes to --out).
type TraceSummary struct {
	Out  string `json:"out"`
	Jobs int    `json:"jobs"`
	// Rows and Skipped (convert only): the input's rows and why some were
	// not converted.
	Rows    int            `json:"rows,omitempty"`
	Skipped map[string]int `json:"skipped,omitempty"`
}

// Trace runs `trainq trace generate|convert`.
func Trace(args []string, stdout, stderr io.Writer) error {
	usage := func(w io.Writer) { fmt.Fprintf(w, traceUsage, strings.Join(trace.Formats, "|")) }
	if len(args) == 0 {
		return cli.Usagef("got no subcommand, want generate, convert or export")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return flag.ErrHelp
	case "generate":
		return generate(args[1:], stdout, stderr)
	case "convert":
		return convert(args[1:], stdout, stderr)
	}
	return cli.Usagef("subcommand: got %q, want generate, convert or export", args[0])
}

// traceOutput checks --output and that a JSON summary and a trace do not
// both go to stdout.
func traceOutput(output, out string) error {
	switch {
	case output != "table" && output != "json":
		return cli.Usagef("--output: got %q, want table or json", output)
	case output == "json" && out == "-":
		return cli.Usagef("--output json and --out - both write to stdout; give --out a file")
	}
	return nil
}

func printSummary(w io.Writer, s TraceSummary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

func generate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace generate", flag.ContinueOnError)
	platformFile := fs.String("platform", "", "platform file; default: the embedded default platform")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same trace")
	jobs := fs.Int("jobs", 1000, "number of jobs")
	load := fs.Float64("load", trace.DefaultLoad, "offered load: the trace's instance-seconds ÷ (all pool instances × its span); 1 fills the pools, the daily peak is 1.5 × this")
	out := fs.String("out", "", "output CSV file, - for stdout (required)")
	output := fs.String("output", "table", "table: nothing on stdout but the trace with --out -; json: a summary of what was written")
	help := func(w io.Writer) {
		fmt.Fprint(w, "Usage: trainq trace generate --seed N --jobs N --out FILE [flags]\n\n"+
			"Draw a synthetic job trace for a platform: the same seed, options and platform give the same\n"+
			"file. See docs/simulate.md.\n\nFlags:\n")
		cli.PrintDefaults(fs, w)
	}
	defaults := cli.Bind(fs, "platform")
	if err := cli.Parse(fs, args, stdout, help); err != nil {
		return err
	}
	if err := defaults.Apply(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if *out == "" {
		return cli.Usagef("--out: got nothing, want a file or -")
	}
	if err := traceOutput(*output, *out); err != nil {
		return err
	}
	p, err := platformfile.LoadFileOrDefault(*platformFile)
	if err != nil {
		return err
	}
	n := 0
	err = writeTrace(*out, stdout, func(emit func(trace.Job) error) error {
		return trace.Generate(p, trace.GenerateOptions{Seed: *seed, Jobs: *jobs, Load: *load}, func(j trace.Job) error { n++; return emit(j) })
	})
	if err != nil || *output != "json" {
		return err
	}
	return printSummary(stdout, TraceSummary{Out: *out, Jobs: n})
}

func convert(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace convert", flag.ContinueOnError)
	platformFile := fs.String("platform", "", "platform whose teams, classes and types to map onto; default: embedded")
	format := fs.String("format", "", "input format: "+strings.Join(trace.Formats, ", ")+" (required)")
	in := fs.String("in", "", "input file (required)")
	out := fs.String("out", "", "output CSV file, - for stdout (required)")
	gpi := fs.Int("gpus-per-instance", 8, "GPUs per instance: instances = ceil(gpus / this)")
	types := fs.String("instance-types", "", "comma-separated instance types to spread jobs over; default: every pool type")
	class := fs.String("class", "", "class for formats without priorities (gavel); default: the middle class")
	output := fs.String("output", "table", "table: the summary on stderr; json: the summary as JSON on stdout")
	help := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: trainq trace convert --format %s --in FILE --out FILE [flags]\n\n"+
			"Convert a public cluster trace into trainq's trace CSV, mapped onto a platform's teams, classes\n"+
			"and instance types. See docs/simulate.md.\n\nFlags:\n", strings.Join(trace.Formats, "|"))
		cli.PrintDefaults(fs, w)
	}
	defaults := cli.Bind(fs, "platform")
	if err := cli.Parse(fs, args, stdout, help); err != nil {
		return err
	}
	if err := defaults.Apply(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	var missing []string
	for _, f := range []struct{ flag, value string }{{"--format", *format}, {"--in", *in}, {"--out", *out}} {
		if f.value == "" {
			missing = append(missing, f.flag)
		}
	}
	if len(missing) > 0 {
		return cli.Usagef("missing %s; --format, --in and --out are all required", strings.Join(missing, ", "))
	}
	if !slices.Contains(trace.Formats, *format) {
		return cli.Usagef("--format: got %q, want one of %s", *format, strings.Join(trace.Formats, ", "))
	}
	if err := traceOutput(*output, *out); err != nil {
		return err
	}
	p, err := platformfile.LoadFileOrDefault(*platformFile)
	if err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	opts := trace.ConvertOptions{Platform: p, GPUsPerInstance: *gpi, Class: *class}
	if *types != "" {
		opts.InstanceTypes = strings.Split(*types, ",")
	}
	var st trace.ConvertStats
	err = writeTrace(*out, stdout, func(emit func(trace.Job) error) error {
		var cerr error
		st, cerr = trace.Convert(*format, bufio.NewReader(f), opts, emit)
		return cerr
	})
	if err != nil {
		return err
	}
	if *output == "json" {
		return printSummary(stdout, TraceSummary{Out: *out, Jobs: st.Kept, Rows: st.Rows, Skipped: st.Skipped})
	}
	fmt.Fprintf(stderr, "converted %d of %d rows", st.Kept, st.Rows)
	reasons := make([]string, 0, len(st.Skipped))
	for r := range st.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(stderr, "; skipped %d: %s", st.Skipped[r], r)
	}
	fmt.Fprintln(stderr)
	return nil
}

func writeTrace(path string, stdout io.Writer, fill func(emit func(trace.Job) error) error) error {
	var w io.Writer = stdout
	var f *os.File
	if path != "-" {
		var err error
		if f, err = os.Create(path); err != nil {
			return fmt.Errorf("write trace: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	tw, err := trace.NewWriter(bw)
	if err != nil {
		return err
	}
	if err := fill(tw.Write); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("write trace: %w", err)
		}
	}
	return nil
}
