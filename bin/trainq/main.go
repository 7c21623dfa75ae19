// Command trainq is the command-line client of a trainq platform:
//
//	trainq submit|status|cancel|reprioritize …   talk to the submission function
//	trainq simulate --trace jobs.csv …            replay a trace against a platform
//	trainq trace generate|convert …               make or convert job traces
//	trainq validate trainq.yaml                   check a platform file
//
// main only wires the commands; each lives in its own package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate/simcmd"
)

const usage = `trainq: priority scheduling of GPU training jobs on AWS Batch for SageMaker Training

Usage:
  trainq submit       submit a training job (trainq submit --help)
  trainq status       describe a job
  trainq cancel       cancel a job
  trainq reprioritize change a job's priority inside its class
  trainq simulate     replay a job trace against a platform and against FIFO
  trainq trace        generate or convert job traces
  trainq validate     check platform files (trainq validate FILE…)
`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "submit", "status", "cancel", "reprioritize":
		err = client.Run(ctx, cmd, rest, stdout, stderr)
	case "simulate":
		err = simcmd.Simulate(rest, stdout, stderr)
	case "trace":
		err = simcmd.Trace(rest, stdout, stderr)
	case "validate":
		err = validate(rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "trainq: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "trainq %s: %v\n", cmd, err)
		return 1
	}
}

const validateUsage = `Usage: trainq validate FILE…

Check platform files (YAML or JSON) and list every problem of each.
Exits 1 when a file is invalid.
`

// validate checks each platform file and lists every problem of each.
// -h, --help (or -help) prints usage; "--" ends the options, so that a file
// named like a flag can still be checked.
func validate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trainq validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stdout, validateUsage) }
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return errors.New("no platform file given; usage: trainq validate FILE…")
	}
	failed := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		p, err := platform.Parse(data)
		if err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", f, err)
			failed++
			continue
		}
		fmt.Fprintf(stdout, "%s: ok: platform %q, %s scheduling, %d instance types (%d instances), %d classes, %d teams\n",
			f, p.Name, p.Scheduling.Mode, len(p.Pools), p.TotalInstances(), len(p.Classes), len(p.Teams))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d platform files are invalid", failed, len(files))
	}
	return nil
}
