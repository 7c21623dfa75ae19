package batchrules_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBatchrulesImportsOnlyTheStandardLibrary keeps the rules importable by
// platform validation, the constructs, the functions and the simulator: it
// imports nothing of trainq and no AWS library.
func TestBatchrulesImportsOnlyTheStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/trainq/trainq/batchrules").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("batchrules imports %s; it imports the standard library only", imp)
		}
	}
}
