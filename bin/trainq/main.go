// Command trainq is the command-line client of a trainq platform:
//
//	trainq submit|status|cancel|reprioritize|queue …   talk to the submission function
//	trainq simulate --trace jobs.csv …            replay a trace against a platform
//	trainq trace generate|convert|export …        make, convert or export job traces
//	trainq validate trainq.yaml                   check a platform file
//	trainq version                                what was built
//
// Help goes to stdout and exits 0; a mistake in the command line exits 2,
// any other failure 1, with one "trainq <command>: " before the message.
// main only wires the commands; each lives in its own package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/simulate/simcmd"
)

const usage = `trainq: priority scheduling of GPU training jobs on AWS Batch for SageMaker Training

Usage:
  trainq submit       submit a training job (trainq submit --help)
  trainq status       describe a job: why it waits and when it may start
  trainq queue        list the queue's running and waiting jobs and each share's usage
  trainq cancel       cancel a job
  trainq reprioritize change a job's priority inside its class
  trainq usage        instance-hours per team, class and type from the job ledger
  trainq history      the job ledger's jobs of a window, each with its attempts (like sacct)
  trainq simulate     replay a job trace against a platform and against FIFO
  trainq trace        generate or convert job traces, or export the ledger's as one
  trainq validate     check platform files (trainq validate FILE…)
  trainq plan         what deploying a changed platform file would do (trainq plan OLD NEW)
  trainq config       show the defaults taken from the environment and the config file's profile
  trainq version      show the version trainq was built from

Every command takes --help and --output table|json. --platform, --class, --team,
--region and the other settings default to TRAINQ_* environment variables and a
profile of ~/.config/trainq/config.yaml (trainq config shows them).
Exit status: 0 success, 1 failure, 2 a mistake in the command line.
`

// commands are the commands run serves, for the unknown command's message
// and its suggestion.
var commands = []string{"submit", "status", "queue", "cancel", "reprioritize", "usage", "history", "simulate", "trace", "validate", "plan", "config", "version", "help"}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is how the commands' packages mark a mistake in the command
// line (cli.UsageError, and this package's own).
type usageError interface{ IsUsage() bool }

// badUsage is this package's usage error.
type badUsage struct{ msg string }

func (e *badUsage) Error() string { return e.msg }
func (e *badUsage) IsUsage() bool { return true }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	name := cmd
	var err error
	switch cmd {
	case "submit", "status", "cancel", "reprioritize", "queue", "usage":
		err = client.Run(ctx, cmd, rest, stdout, stderr)
	case "simulate":
		err = simcmd.Simulate(rest, stdout, stderr)
	case "history":
		err = client.Run(ctx, cmd, rest, stdout, stderr)
	case "trace":
		if len(rest) > 0 && (rest[0] == "generate" || rest[0] == "convert" || rest[0] == "export") {
			name += " " + rest[0]
		}
		if name == "trace export" {
			err = client.Run(ctx, name, rest[1:], stdout, stderr)
			break
		}
		err = simcmd.Trace(rest, stdout, stderr)
	case "validate":
		err = validate(rest, stdout)
	case "version", "--version", "-version":
		name = "version"
		err = version(rest, stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "config":
		err = cli.ConfigCommand(rest, stdout)
	case "plan":
		err = planCommand(rest, stdout, stderr)
	default:
		msg := fmt.Sprintf("trainq: unknown command %q", cmd)
		if s := cli.Suggest(cmd, commands); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		fmt.Fprintf(stderr, "%s\nwant one of: %s\nRun 'trainq --help' for usage.\n", msg, strings.Join(commands, ", "))
		return exitUsage
	}
	var u usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &u) && u.IsUsage():
		fmt.Fprintf(stderr, "trainq %s: %v\nRun 'trainq %s --help' for usage.\n", name, err, name)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "trainq %s: %v\n", name, err)
		return exitFailure
	}
}

// parse parses args into fs without letting the flag package print: help
// goes to stdout (flag.ErrHelp is returned), a bad flag is a usage error.
func parse(fs *flag.FlagSet, args []string, stdout io.Writer, help string) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, help)
		cli.PrintDefaults(fs, stdout)
		return flag.ErrHelp
	default:
		return &badUsage{strings.Replace(err.Error(), ": -", ": --", 1)}
	}
}

// checkOutput refuses an --output other than table or json.
func checkOutput(output string) error {
	if output != "table" && output != "json" {
		return &badUsage{fmt.Sprintf("--output: got %q, want table or json", output)}
	}
	return nil
}
