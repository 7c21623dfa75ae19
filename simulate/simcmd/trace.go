package simcmd

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

// Trace runs `trainq trace generate|convert`.
func Trace(args []string, stdout, stderr io.Writer) error {
	usage := func() {
		fmt.Fprintf(stderr, "Usage:\n"+
			"  trainq trace generate --seed N --jobs N --out FILE [--platform FILE] [--load 0.5]\n"+
			"  trainq trace convert --format %s --in FILE --out FILE [--platform FILE]\n"+
			"      [--gpus-per-instance 8] [--instance-types a,b] [--class NAME]\n", strings.Join(trace.Formats, "|"))
	}
	if len(args) == 0 {
		usage()
		return errors.New("trace: got no subcommand, want generate or convert")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage()
		return flag.ErrHelp
	case "generate":
		return generate(args[1:], stdout, stderr)
	case "convert":
		return convert(args[1:], stdout, stderr)
	}
	usage()
	return fmt.Errorf("trace: subcommand: got %q, want generate or convert", args[0])
}

func generate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	platformFile := fs.String("platform", "", "platform file; default: the embedded default platform")
	seed := fs.Uint64("seed", 1, "random seed; the same seed gives the same trace")
	jobs := fs.Int("jobs", 1000, "number of jobs")
	load := fs.Float64("load", trace.DefaultLoad, "offered load: the trace's instance-seconds ÷ (all pool instances × its span); 1 fills the pools, the daily peak is 1.5 × this")
	out := fs.String("out", "", "output CSV file, - for stdout (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errors.New("trace generate: --out: got nothing, want a file or -")
	}
	p, err := platform.LoadFileOrDefault(*platformFile)
	if err != nil {
		return err
	}
	return writeTrace(*out, stdout, func(emit func(trace.Job) error) error {
		return trace.Generate(p, trace.GenerateOptions{Seed: *seed, Jobs: *jobs, Load: *load}, emit)
	})
}

func convert(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trace convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	platformFile := fs.String("platform", "", "platform whose teams, classes and types to map onto; default: embedded")
	format := fs.String("format", "", "input format: "+strings.Join(trace.Formats, ", ")+" (required)")
	in := fs.String("in", "", "input file (required)")
	out := fs.String("out", "", "output CSV file, - for stdout (required)")
	gpi := fs.Int("gpus-per-instance", 8, "GPUs per instance: instances = ceil(gpus / this)")
	types := fs.String("instance-types", "", "comma-separated instance types to spread jobs over; default: every pool type")
	class := fs.String("class", "", "class for formats without priorities (gavel); default: the middle class")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var missing []string
	for _, f := range []struct{ flag, value string }{{"--format", *format}, {"--in", *in}, {"--out", *out}} {
		if f.value == "" {
			missing = append(missing, f.flag)
		}
	}
	if len(missing) > 0 {
		fs.Usage()
		return fmt.Errorf("trace convert: missing %s; --format, --in and --out are all required", strings.Join(missing, ", "))
	}
	if !slices.Contains(trace.Formats, *format) {
		return fmt.Errorf("trace convert: --format: got %q, want one of %s", *format, strings.Join(trace.Formats, ", "))
	}
	p, err := platform.LoadFileOrDefault(*platformFile)
	if err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return fmt.Errorf("trace convert: %w", err)
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
