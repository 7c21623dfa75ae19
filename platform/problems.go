package platform

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a platform: the field, the value received
// and what is allowed.
type Problem struct {
	Field   string `json:"field"`
	Value   string `json:"value"`
	Allowed string `json:"allowed"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: got %s, want %s", p.Field, p.Value, p.Allowed)
}

// Problems is a list of problems, in the order found. It is the one list
// of "field: got value, want allowed" problems in trainq: a platform's here,
// a request's in package contract, which aliases it.
type Problems []Problem

// Add records that field holds value (rendered by Show) where allowed is
// allowed.
func (ps *Problems) Add(field string, value any, allowed string) {
	*ps = append(*ps, Problem{Field: field, Value: Show(value), Allowed: allowed})
}

// Addf is Add with allowed built by fmt.Sprintf.
func (ps *Problems) Addf(field string, value any, format string, args ...any) {
	ps.Add(field, value, fmt.Sprintf(format, args...))
}

// Shown is a value already rendered for a message (e.g. "(unknown key)",
// "an object"); Show returns it as is.
type Shown string

// Show renders a value received for a message: nil as "nothing", a Shown as
// is, a string quoted (whole), a decoded list or mapping by its kind ("a
// list", "a mapping"), anything else as fmt.Sprint prints it.
func Show(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case Shown:
		return string(v)
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprint(v)
}

// ValidationError lists every problem found in a platform.
type ValidationError struct {
	Problems Problems
	// keyLines are the lines of the file's keys, by field: the message
	// gives an unknown key's line.
	keyLines map[string]int
}

func (e *ValidationError) Error() string {
	return withLines(e.Problems, e.keyLines).Report("invalid platform")
}

// Report lists the problems under heading, one a line:
//
//	heading (2 problems):
//	  - field: got value, want allowed
//	  - …
func (ps Problems) Report(heading string) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = "  - " + p.String()
	}
	noun := "problems"
	if len(ps) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("%s (%d %s):\n%s", heading, len(ps), noun, strings.Join(lines, "\n"))
}

// withLines is ps with its line added to each unknown key's value, as
// ValidationError prints them.
func withLines(ps Problems, lines map[string]int) Problems {
	out := make(Problems, len(ps))
	copy(out, ps)
	for i, p := range out {
		if line, ok := lines[p.Field]; ok && p.Value == unknownKey {
			out[i].Value = fmt.Sprintf("%s at line %d", unknownKey, line)
		}
	}
	return out
}
