package reroute_test

import (
	"os"
	"testing"

	"github.com/trainq/trainq/internal/batchtest"
)

// TestMain runs the tests, then checks every request they sent to a fake
// Batch endpoint against AWS's published service models
// (batchtest.CheckModels): the re-router's SubmitServiceJob, ListServiceJobs,
// DescribeServiceJob, TerminateServiceJob and GetJobQueueSnapshot requests,
// and the SageMaker payloads it rewrote.
func TestMain(m *testing.M) {
	batchtest.RecordAll()
	code := m.Run()
	if batchtest.CheckModels() != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}
