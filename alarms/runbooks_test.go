package alarms

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryAlarmHasItsRunbookSection: docs/runbooks.md has one section per
// alarm or family of alarms, in the order of Kinds, and each section says
// what the alarm means, its severity, three first checks and the usual
// fixes.
func TestEveryAlarmHasItsRunbookSection(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "runbooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	var sections []string
	bodies := map[string]string{}
	parts := regexp.MustCompile(`(?m)^## `).Split(string(data), -1)
	for _, part := range parts[1:] {
		name, body, _ := strings.Cut(part, "\n")
		sections = append(sections, name)
		bodies[name] = body
	}
	if diff := cmp.Diff(Kinds(), sections); diff != "" {
		t.Errorf("runbook sections (-alarms +docs/runbooks.md):\n%s", diff)
	}
	severities := map[string]map[string]bool{}
	for _, r := range everyRule() {
		if severities[r.Runbook] == nil {
			severities[r.Runbook] = map[string]bool{}
		}
		severities[r.Runbook][r.Severity] = true
	}
	for name, body := range bodies {
		body = strings.Join(strings.Fields(body), " ")
		for _, want := range []string{"Severity: ", "First checks: 1. ", " 2. ", " 3. ", "Usual fixes: "} {
			if !strings.Contains(body, want) {
				t.Errorf("section %s lacks %q", name, strings.TrimSpace(want))
			}
		}
		// A family's severity depends on the class (page for the paging
		// classes); every section states its rules' page or ticket in bold.
		stated := false
		for sev := range severities[name] {
			stated = stated || strings.Contains(body, "**"+sev+"**")
		}
		if !stated {
			t.Errorf("section %s does not state its severity (%v) in bold", name, severities[name])
		}
	}
}
