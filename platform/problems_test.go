package platform

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShow(t *testing.T) {
	long := strings.Repeat("a", 129)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"a string is quoted", "ml.p5", `"ml.p5"`},
		{"a long string is shown whole, so that the value can be found", long, `"` + long + `"`},
		{"nothing written is nothing", nil, "nothing"},
		{"a number is printed", 31, "31"},
		{"a decoded list is named by its kind", []any{"a", "b"}, "a list"},
		{"a decoded mapping is named by its kind", map[string]any{"a": 1}, "a mapping"},
		{"a value already shown is left as is", Shown("(unknown key)"), "(unknown key)"},
		{"a string that reads like a shown value is still quoted", "(unknown key)", `"(unknown key)"`},
		{"a named string type is printed as is", ModeQuota, "quota"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Show(tt.in); got != tt.want {
				t.Errorf("Show(%#v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestProblemsAddAndAddf(t *testing.T) {
	var ps Problems
	ps.Add("teams[0].name", "a b", "1-128 letters, digits, '-' or '_'")
	ps.Addf("scheduling.queuePriority", 1001, "0 to %d", MaxQueuePriority)
	want := Problems{
		{Field: "teams[0].name", Value: `"a b"`, Allowed: "1-128 letters, digits, '-' or '_'"},
		{Field: "scheduling.queuePriority", Value: "1001", Allowed: "0 to 1000"},
	}
	if diff := cmp.Diff(want, ps); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if got, want := ps[1].String(), "scheduling.queuePriority: got 1001, want 0 to 1000"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestProblemsReport(t *testing.T) {
	one := Problems{{Field: "name", Value: `"a b"`, Allowed: "a letter"}}
	two := append(Problems{}, one[0], Problem{Field: "pools", Value: `"[]"`, Allowed: "at least one"})
	tests := []struct {
		name string
		ps   Problems
		want string
	}{
		{"one problem is one line under the heading", one, "invalid platform (1 problem):\n  - name: got \"a b\", want a letter"},
		{"problems are listed in order, one a line", two, "invalid platform (2 problems):\n  - name: got \"a b\", want a letter\n  - pools: got \"[]\", want at least one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.ps.Report("invalid platform"); got != tt.want {
				t.Errorf("Report = %q, want %q", got, tt.want)
			}
			if got := (&ValidationError{Problems: tt.ps}).Error(); got != tt.want {
				t.Errorf("ValidationError = %q, want the report %q", got, tt.want)
			}
		})
	}
}
