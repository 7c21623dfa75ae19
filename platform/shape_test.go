package platform

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProblemsInAMappingComeInKeyOrder: wrong values under
// monitoring.maxWaitSeconds must be listed in the same order on every run
// (alphabetical, like unknown keys), not in Go's random map order.
func TestProblemsInAMappingComeInKeyOrder(t *testing.T) {
	d := quotaDoc()
	set(t, d, "monitoring.maxWaitSeconds", doc{"sweep": "12h", "production": "15m", "research": "2h"})
	data := render(t, d)
	want := []string{
		"monitoring.maxWaitSeconds.production",
		"monitoring.maxWaitSeconds.research",
		"monitoring.maxWaitSeconds.sweep",
	}
	for i := range 50 {
		_, err := Parse(data)
		if diff := cmp.Diff(want, fields(problemsOf(t, err))); diff != "" {
			t.Fatalf("parse %d: problem order (-want +got):\n%s", i+1, diff)
		}
	}
}

// TestTypeErrorsDoNotHideOtherProblems: a value of the wrong type must not
// stop the other checks, or a user fixes one line only to be told of the
// next mistake.
func TestTypeErrorsDoNotHideOtherProblems(t *testing.T) {
	d := quotaDoc()
	set(t, d, "pools.0.instances", "forty")        // wrong type
	set(t, d, "scheduling.queuePriority", 5000)    // out of range: 0 to 1000
	set(t, d, "teams.1.sharing", "borrow")         // not a strategy
	set(t, d, "monitoring.logRetentionDays", 31)   // not a CloudWatch retention
	set(t, d, "training.s3Read", []any{"s3://x*"}) // wildcard
	_, err := Parse(render(t, d))
	want := []string{
		"pools[0].instances",
		"scheduling.queuePriority",
		"teams[1].sharing",
		"monitoring.logRetentionDays",
		"training.s3Read[0]",
	}
	if diff := cmp.Diff(want, fields(problemsOf(t, err))); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s\nerror:\n%v", diff, err)
	}
}

// TestNotAMappingNamesTheDocument: a file that is a list or a scalar gets a
// problem whose field says where (the whole document), never an empty field.
func TestNotAMappingNamesTheDocument(t *testing.T) {
	for _, text := range []string{"- pools\n- teams\n", "just some words\n", "42\n"} {
		t.Run(strings.TrimSpace(text), func(t *testing.T) {
			_, err := Parse([]byte(text))
			ps := problemsOf(t, err)
			if len(ps) != 1 {
				t.Fatalf("got %d problems, want 1: %v", len(ps), err)
			}
			if ps[0].Field == "" || !strings.Contains(ps[0].Allowed, "mapping") {
				t.Errorf("problem %+v: want a named field and an allowed range mentioning a mapping", ps[0])
			}
		})
	}
}
