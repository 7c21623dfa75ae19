package contract

// Kind is the errorType of a failed invocation of a trainq function: the
// submission function's answers, and those of the observer, the poller and
// the re-router, which fail only as UpstreamError (AWS failed a call).
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
	// KindOverBudget: the team has used a budget whose action for the
	// class is refuse (platform teams[].budgets). The message names the
	// budget, what is used, the limit and when it resets.
	KindOverBudget Kind = "OverBudget"
)

// Kinds lists every error kind, in a fixed order. Whatever lists or alarms
// on kinds (the dashboard, the alarms) iterates it, so that a new kind
// cannot be missed.
func Kinds() []Kind {
	return []Kind{KindValidation, KindForbidden, KindThrottled, KindUpstream, KindOverBudget}
}

// CallersMistake reports whether an error of kind k is the caller's to fix
// (ValidationError, Forbidden, OverBudget) rather than the platform's or AWS's
// (Throttled, UpstreamError), which on-call is paged for.
func (k Kind) CallersMistake() bool {
	return k == KindValidation || k == KindForbidden || k == KindOverBudget
}

// FunctionError is the answer of a failed invocation as Lambda encodes it.
type FunctionError struct {
	// Type is a Kind.
	Type    string `json:"errorType"`
	Message string `json:"errorMessage"`
}

func (e *FunctionError) Error() string { return e.Type + ": " + e.Message }
