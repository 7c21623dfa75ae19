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

// Problems is a list of problems.
type Problems []Problem

func (ps *Problems) add(field string, value any, allowed string) {
	*ps = append(*ps, Problem{Field: field, Value: show(value), Allowed: allowed})
}

func (ps *Problems) addf(field string, value any, format string, args ...any) {
	ps.add(field, value, fmt.Sprintf(format, args...))
}

func show(v any) string {
	switch v := v.(type) {
	case string:
		if v == "(unknown key)" {
			return v
		}
		return fmt.Sprintf("%q", v)
	case nil:
		return "nothing"
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
}

func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  - " + p.String()
	}
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("invalid platform (%d %s):\n%s", len(e.Problems), noun, strings.Join(lines, "\n"))
}
