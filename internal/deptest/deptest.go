// Package deptest checks, from a test, what a package links: it runs
// `go list -deps` and fails the test when a forbidden package is among the
// dependencies. The layering of the run-time half (the CLI links neither the
// submission handler nor the Batch SDK, the event observer does not link the
// poller) is enforced with it.
//
// It is test support: only tests import it.
package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// Deps returns the packages pkg depends on, itself included.
func Deps(t testing.TB, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", pkg)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr.String())
	}
	return strings.Fields(string(out))
}

// Forbid fails t for each of forbidden (exact import paths) that pkg
// depends on, and when pkg's dependencies do not include want, which shows
// that the listing looked at the right package.
func Forbid(t testing.TB, pkg string, want string, forbidden ...string) {
	t.Helper()
	deps := map[string]bool{}
	for _, d := range Deps(t, pkg) {
		deps[d] = true
	}
	if !deps[want] {
		t.Errorf("%s does not depend on %s; the dependency list is not the one expected", pkg, want)
	}
	for _, f := range forbidden {
		if deps[f] {
			t.Errorf("%s depends on %s, which it must not link", pkg, f)
		}
	}
}
