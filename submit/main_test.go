package submit_test

import (
	"os"
	"testing"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/ststest"
)

// TestMain runs the tests, then checks every request they sent to a fake
// Batch endpoint (every batchtest.Server of this binary, whichever test
// created it) against AWS's published service models
// (batchtest.CheckModels). A problem fails the binary and names the
// operation, the request and the test that sent it.
//
// FuzzInvoke and BenchmarkInvoke use an in-process stub, not the wire: their
// requests are not checked (their inputs are the fixtures other tests send).
func TestMain(m *testing.M) {
	batchtest.RecordAll()
	// Callers' identities are checked by a loopback STS that verifies their
	// SigV4 signatures (helpers_test.go).
	testSTS = ststest.New("us-east-1")
	code := m.Run()
	testSTS.Close()
	if batchtest.CheckModels() != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}
