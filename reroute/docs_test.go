package reroute_test

import (
	"os"
	"path/filepath"
	"regexp"
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
	// Every message the re-router's code logs, read from its source, so that
	// a new log line cannot go undocumented.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	logged := regexp.MustCompile(`\.log\.(?:Debug|Info|Warn|Error)\("([^"]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range logged.FindAllStringSubmatch(string(src), -1) {
			seen++
			msg := m[1]
			if msg == "reroute refused: " {
				msg = "reroute refused: <why>"
			}
			if !strings.Contains(string(doc), "| `"+msg+"` |") {
				t.Errorf("docs/rerouting.md's log table has no row for %q (logged in %s)", msg, f)
			}
		}
	}
	if seen < 10 {
		t.Errorf("found %d log calls in the re-router's source: the pattern is out of date", seen)
	}
}
