package main

import (
	"os"
	"testing"

	"github.com/trainq/trainq/internal/loadtest"
)

// TestMain lifts go test's default 10-minute alarm: this package's run time
// depends on the machine's load, and slowness is measured by benchmarks.
func TestMain(m *testing.M) {
	loadtest.LiftDefaultTimeout()
	os.Exit(m.Run())
}
