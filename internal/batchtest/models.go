package batchtest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/trainq/trainq/internal/awsmodel"
)

// CheckModels checks every request recorded since RecordAll against AWS's
// published service models (the Batch model for each request, SageMaker's
// CreateTrainingJobRequest for each serviceRequestPayload), prints a
// one-line summary and every problem, and returns an error when the check
// failed. Without python3 and botocore the check fails in CI (CI=true) and
// is skipped, with a note, elsewhere. A test binary calls it in TestMain
// after m.Run:
//
//	batchtest.RecordAll()
//	code := m.Run()
//	if batchtest.CheckModels() != nil && code == 0 {
//		code = 1
//	}
func CheckModels() error {
	calls := Recorded()
	if len(calls) == 0 {
		return nil
	}
	reqs := make([]awsmodel.Request, len(calls))
	for i, c := range calls {
		reqs[i] = c.ModelRequest()
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

// ModelRequest is the call as a request for awsmodel.Check.
func (c Call) ModelRequest() awsmodel.Request {
	return awsmodel.Request{Service: "batch", Operation: c.Op, Method: c.Method, Path: c.Path,
		PathParams: c.PathParams, Query: c.Query, Body: c.Body, Label: c.Label}
}
