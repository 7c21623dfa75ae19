// Package cli holds the command-line conventions that trainq's commands
// share (the job commands in client, the simulator's in simulate/simcmd):
// usage errors, which bin/trainq exits 2 for, and flag parsing that never
// prints on its own.
//
// It is run-time code: it imports nothing of trainq, and never the AWS SDK,
// the AWS CDK, jsii or constructs.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// UsageError is a mistake in the command line (an unknown flag, a missing
// argument, a flag's value out of its set), as opposed to a failure of the
// command itself: bin/trainq exits 2 for it, 1 for any other error.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// IsUsage marks the error for bin/trainq, which tells usage errors apart by
// this method.
func (e *UsageError) IsUsage() bool { return true }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Parse parses args into fs without letting the flag package print: -h,
// -help and --help write help to stdout and return flag.ErrHelp, and a bad
// flag comes back as a UsageError (bin/trainq prints it once, with its
// prefix).
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer, help func(io.Writer)) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		help(stdout)
		return flag.ErrHelp
	default:
		return &UsageError{Err: err}
	}
}

// PrintDefaults writes fs's flags to w.
func PrintDefaults(fs *flag.FlagSet, w io.Writer) {
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
