// Package cli holds the command-line conventions that trainq's commands
// share (the job commands in client, the simulator's in simulate/simcmd,
// plan and config in bin/trainq): usage errors, which bin/trainq exits 2
// for; flag parsing that never prints on its own, spells flags with two
// dashes as the docs do and suggests the flag meant; and the defaults a
// command takes from environment variables and the profiles of trainq's
// config file (settings.go).
//
// It is run-time code: it imports nothing of trainq, and never the AWS SDK,
// the AWS CDK, jsii or constructs.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
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
// prefix) that names the flag with two dashes and the flag most like it.
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
		return &UsageError{Err: errors.New(flagError(fs, err.Error()))}
	}
}

// flagError rewrites the flag package's messages ("flag provided but not
// defined: -clas", "invalid value … for flag -x: …") with two dashes, and
// adds the flag most like an unknown one.
func flagError(fs *flag.FlagSet, msg string) string {
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = "flag provided but not defined: --" + name
		if s := Suggest(name, names); s != "" {
			msg += "; did you mean --" + s + "?"
		}
		return msg
	}
	for _, prefix := range []string{"for flag -", "needs an argument: -"} {
		msg = strings.Replace(msg, prefix, prefix+"-", 1)
	}
	return msg
}

// PrintDefaults writes fs's flags to w, each spelt with two dashes (as the
// docs and examples write them), its value's name, its usage and its
// default when that is not the zero value.
func PrintDefaults(fs *flag.FlagSet, w io.Writer) {
	fs.VisitAll(func(f *flag.Flag) {
		var b strings.Builder
		name, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  --%s", f.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		b.WriteString("\n    \t")
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "[]" {
			if name == "string" {
				fmt.Fprintf(&b, " (default %q)", d)
			} else {
				fmt.Fprintf(&b, " (default %v)", d)
			}
		}
		fmt.Fprintln(w, b.String())
	})
}

// Suggest returns the candidate nearest to word when it is near enough to be
// a typing mistake (at most two edits, and fewer than half of word's
// letters), or "".
func Suggest(word string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(word, c)
		if d < bestD && 2*d < len([]rune(word)) {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of two adjacent
// letters each count one ("sumbit" is one edit from "submit").
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range t {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
