package contract

import (
	"fmt"

	"github.com/trainq/trainq/platform"
)

// Problem is one thing wrong with a request: the field, the value received
// and what is allowed, reported like a platform file's problems.
type Problem = platform.Problem

// Problems collects every problem of a request.
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

// Shown is a value already rendered for a message (e.g. "an object"); Show
// returns it as is.
type Shown string

// Show renders a received value for a message: strings quoted and cut to a
// readable length, nil as "nothing", a Shown as is.
func Show(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		if len(v) > 80 {
			v = v[:77] + "..."
		}
		return fmt.Sprintf("%q", v)
	case Shown:
		return string(v)
	}
	return fmt.Sprint(v)
}
