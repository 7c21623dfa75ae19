package submit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/trainq/trainq/internal/awsmodel"
	"github.com/trainq/trainq/submit/batchfake"
)

// TestMain runs the tests, then checks every request they sent to a fake
// Batch endpoint (every batchfake.Server of this binary, whichever test
// created it) against AWS's published service models: the Batch model for
// each request and SageMaker's CreateTrainingJobRequest for each
// serviceRequestPayload. A problem fails the binary and names the operation,
// the request and the test that sent it. Without python3 and botocore the
// check fails in CI (CI=true) and is skipped, with a note, elsewhere.
//
// FuzzInvoke and BenchmarkInvoke use an in-process stub, not the wire: their
// requests are not checked (their inputs are the fixtures other tests send).
func TestMain(m *testing.M) {
	batchfake.RecordAll()
	code := m.Run()
	if checkModels() != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// checkModels checks the recorded requests, prints a one-line summary and
// every problem, and returns an error when the check failed.
func checkModels() error {
	calls := batchfake.Recorded()
	if len(calls) == 0 {
		return nil
	}
	reqs := make([]awsmodel.Request, len(calls))
	for i, c := range calls {
		reqs[i] = awsmodel.Request{Service: "batch", Operation: c.Op, Method: c.Method, Path: c.Path,
			PathParams: c.PathParams, Query: c.Query, Body: c.Body, Label: c.Label}
	}
	r, err := awsmodel.Check(context.Background(), reqs)
	switch {
	case errors.Is(err, awsmodel.ErrUnavailable) && !awsmodel.Required():
		fmt.Printf("AWS service models: %d requests NOT checked: %v (with CI=true this fails)\n", len(reqs), err)
		return nil
	case err != nil:
		fmt.Printf("--- FAIL: AWS service models: %d requests not checked: %v\n", len(reqs), err)
		return err
	}
	fmt.Println(r.Summary())
	for _, s := range r.SkippedPatterns {
		fmt.Printf("    pattern not checked (Python's re cannot compile it: %s): %s, of %s\n", s.Error, s.Pattern, strings.Join(s.Shapes, ", "))
	}
	if len(r.Problems) == 0 {
		return nil
	}
	fmt.Printf("--- FAIL: AWS service models: %d problems\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Printf("    %s\n", p)
	}
	return fmt.Errorf("%d requests break AWS's service models", len(r.Problems))
}
