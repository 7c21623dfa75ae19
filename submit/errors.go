package submit

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/trainq/trainq/platform"
)

// Kind is the errorType of a failed invocation, part of the public contract.
type Kind string

const (
	// KindValidation: the request is malformed or asks for something the
	// platform does not allow. The message lists every problem.
	KindValidation Kind = "ValidationError"
	// KindForbidden: the caller may not do this (a class other than the
	// alias's, another execution role, a job of another class).
	KindForbidden Kind = "Forbidden"
	// KindThrottled: AWS Batch kept throttling after every retry was spent.
	// Retry later with the same idempotencyKey.
	KindThrottled Kind = "Throttled"
	// KindUpstream: AWS Batch failed or refused the call for a reason that is
	// not the request's (server errors, timeouts, permissions).
	KindUpstream Kind = "UpstreamError"
)

// Problem is one thing wrong with a request: the field, the value received
// and what is allowed, reported like a platform file's problems.
type Problem = platform.Problem

// problems collects every problem of a request.
type problems []Problem

func (ps *problems) add(field string, value any, allowed string) {
	*ps = append(*ps, Problem{Field: field, Value: show(value), Allowed: allowed})
}

func (ps *problems) addf(field string, value any, format string, args ...any) {
	ps.add(field, value, fmt.Sprintf(format, args...))
}

// show renders a received value for a message: strings quoted and cut to a
// readable length, nothing as "nothing".
func show(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		if len(v) > 80 {
			v = v[:77] + "..."
		}
		return fmt.Sprintf("%q", v)
	case rawValue:
		return string(v)
	}
	return fmt.Sprint(v)
}

// rawValue is shown as is (already rendered, e.g. "an object").
type rawValue string

// Error is a failed request: its kind and either its problems or a message.
// Handler methods return it; the Lambda edge turns it into a function error
// whose errorType is the Kind.
type Error struct {
	Kind     Kind
	Problems []Problem
	Message  string
	Err      error
}

func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		if e.Err != nil {
			return e.Message + ": " + e.Err.Error()
		}
		return e.Message
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  - " + p.String()
	}
	noun := "problems"
	if len(e.Problems) == 1 {
		noun = "problem"
	}
	return fmt.Sprintf("%s (%d %s):\n%s", e.Message, len(e.Problems), noun, strings.Join(lines, "\n"))
}

func (e *Error) Unwrap() error { return e.Err }

func invalid(ps problems) *Error {
	return &Error{Kind: KindValidation, Problems: ps, Message: "invalid request"}
}

func forbidden(ps problems) *Error {
	return &Error{Kind: KindForbidden, Problems: ps, Message: "forbidden"}
}

// LambdaError converts err to the function error the Lambda runtime reports:
// errorType is the Kind of an *Error, UpstreamError for anything else.
func LambdaError(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return messages.InvokeResponse_Error{Type: string(e.Kind), Message: e.Error()}
	}
	return messages.InvokeResponse_Error{Type: string(KindUpstream), Message: err.Error()}
}
