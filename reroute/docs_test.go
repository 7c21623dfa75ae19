package reroute_test

import (
	"os"
	"strings"
	"testing"

	"github.com/trainq/trainq/metrics"
)

// TestTheDocsNameEveryRefusalReasonAndLogLine keeps docs/rerouting.md
// equal to what the re-router writes: every refusal reason and every log
// message it logs.
func TestTheDocsNameEveryRefusalReasonAndLogLine(t *testing.T) {
	doc, err := os.ReadFile("../docs/rerouting.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range metrics.RefusalReasons() {
		if !strings.Contains(string(doc), "`"+r+"`") {
			t.Errorf("docs/rerouting.md does not name the refusal reason `%s`", r)
		}
	}
	for _, msg := range []string{"rerouted", "resubmitted", "submission failed but the replacement exists", "reroute refused: <why>",
		"rerouter stopped early; the next run carries on", "replacement already ended; the old job stays", "rerouter run"} {
		if !strings.Contains(string(doc), "| `"+msg+"` |") {
			t.Errorf("docs/rerouting.md's log table has no row for %q", msg)
		}
	}
}
