package submit

import (
	"errors"

	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/trainq/trainq/contract"
)

// problems collects every problem of a request.
type problems = contract.Problems

// Error is a failed request: its kind and either its problems or a message.
// Handler methods return it; the Lambda edge turns it into a function error
// whose errorType is the Kind.
type Error struct {
	Kind     contract.Kind
	Problems contract.Problems
	Message  string
	Err      error
}

// Error is the message callers get, bounded whatever the input: the
// problems listed by contract.Report (each value cut, at most
// contract.MaxProblemsShown of them), or the message and the cause's text,
// cut at contract.MaxLoggedChars.
func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		msg := e.Message
		if e.Err != nil {
			msg += ": " + e.Err.Error()
		}
		return contract.Cut(msg, contract.MaxLoggedChars)
	}
	return contract.Report(e.Message, e.Problems)
}

func (e *Error) Unwrap() error { return e.Err }

func invalid(ps problems) *Error {
	return &Error{Kind: contract.KindValidation, Problems: ps, Message: "invalid request"}
}

func forbidden(ps problems) *Error {
	return &Error{Kind: contract.KindForbidden, Problems: ps, Message: "forbidden"}
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
	return messages.InvokeResponse_Error{Type: string(contract.KindUpstream), Message: contract.Cut(err.Error(), contract.MaxLoggedChars)}
}
