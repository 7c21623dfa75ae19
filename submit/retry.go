package submit

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/smithy-go"
)

// RetryPolicy is how the Batch client retries throttling, 5xx answers and
// attempts that time out. Every retry of SubmitServiceJob carries the same
// clientToken, so a retry never creates a second job.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt.
	MaxAttempts int
	// MaxBackoff caps the jittered exponential delay between attempts
	// (throttling starts at 1 s, other errors at 50 ms).
	MaxBackoff time.Duration
	// AttemptTimeout bounds one HTTP attempt, so that a hung answer is
	// retried instead of eating the whole invocation.
	AttemptTimeout time.Duration
}

// DefaultRetryPolicy suits a function with a timeout of 60 s or more: at
// most 10 attempts; under sustained throttling the 9 waits are capped at
// 1+2+4×7 = 31 s and average half that, ≈ 15.5 s (the jitter is uniform in
// [0, cap)).
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 10, MaxBackoff: 4 * time.Second, AttemptTimeout: 10 * time.Second}

// NewBatchClient returns a Batch client for cfg (the SDK's standard
// configuration, so AWS_ENDPOINT_URL_BATCH is honoured) with policy's retries.
// The client-side retry quota is off: Batch's own throttling is the only
// limit, and a Lambda that gives up early loses submissions.
func NewBatchClient(cfg aws.Config, policy RetryPolicy, optFns ...func(*batch.Options)) *batch.Client {
	opts := append([]func(*batch.Options){func(o *batch.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = policy.MaxAttempts
			so.MaxBackoff = policy.MaxBackoff
			so.RateLimiter = ratelimit.None
		})
		o.HTTPClient = awshttp.NewBuildableClient().WithTimeout(policy.AttemptTimeout)
	}}, optFns...)
	return batch.NewFromConfig(cfg, opts...)
}

// throttleCodes are the error codes AWS services use for throttling.
var throttleCodes = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "ThrottledException": true,
	"RequestThrottledException": true, "TooManyRequestsException": true,
	"RequestLimitExceeded": true, "LimitExceededException": true,
}

func isThrottle(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && throttleCodes[ae.ErrorCode()] {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusTooManyRequests
}

// notFoundCodes are the error codes with which Batch answers a request for
// a job it does not know. Batch answers an unknown job id with a
// ClientException (400); AccessDeniedException (403) and other refusals are
// not "not found".
var notFoundCodes = map[string]bool{"ClientException": true, "ResourceNotFoundException": true}

// isNotFound reports an answer saying the job does not exist (as opposed to
// a refusal such as a missing permission).
func isNotFound(err error) bool {
	var re *awshttp.ResponseError
	if !errors.As(err, &re) {
		return false
	}
	if re.HTTPStatusCode() == http.StatusNotFound {
		return true
	}
	var ae smithy.APIError
	return re.HTTPStatusCode() == http.StatusBadRequest && errors.As(err, &ae) && notFoundCodes[ae.ErrorCode()]
}

// isClientError reports a 4xx answer other than throttling: Batch refused
// the call and retrying the same call cannot help.
func isClientError(err error) bool {
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() >= 400 && re.HTTPStatusCode() < 500 && !isThrottle(err)
}

// throttleNoter records whether any attempt of a call was throttled, which
// the error of a call cut short by its deadline no longer says.
type throttleNoter struct {
	aws.RetryerV2
	seen *atomic.Bool
}

func (t throttleNoter) IsErrorRetryable(err error) bool {
	if isThrottle(err) {
		t.seen.Store(true)
	}
	return t.RetryerV2.IsErrorRetryable(err)
}

// throttleKey is the context key of a request's throttle note.
type throttleKey struct{}

// noteThrottles returns ctx carrying a fresh note of whether any Batch call
// made under it was throttled (callOpts, throttledIn).
func noteThrottles(ctx context.Context) context.Context {
	return context.WithValue(ctx, throttleKey{}, new(atomic.Bool))
}

// callOpts are the per-call options of every Batch call of a request: they
// note a throttled attempt in ctx's note.
func callOpts(ctx context.Context) []func(*batch.Options) {
	if seen, ok := ctx.Value(throttleKey{}).(*atomic.Bool); ok {
		return []func(*batch.Options){noteThrottling(seen)}
	}
	return nil
}

// throttledIn reports whether a Batch call made under ctx was throttled.
func throttledIn(ctx context.Context) bool {
	seen, ok := ctx.Value(throttleKey{}).(*atomic.Bool)
	return ok && seen.Load()
}

// noteThrottling is a per-call option that sets seen when an attempt of the
// call is throttled.
func noteThrottling(seen *atomic.Bool) func(*batch.Options) {
	return func(o *batch.Options) {
		if r, ok := o.Retryer.(aws.RetryerV2); ok {
			o.Retryer = throttleNoter{RetryerV2: r, seen: seen}
		}
	}
}
