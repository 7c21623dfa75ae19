package batchsdk

import (
	"errors"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/smithy-go"
)

// RetryPolicy is how a function's Batch client retries throttling, 5xx
// answers and attempts that time out. A retried SubmitServiceJob carries
// the same clientToken, so a retry never creates a second job; a retried
// TerminateServiceJob terminates the same job.
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

// BackgroundRetryPolicy is the retries of the functions that run on a
// schedule (the poller, the re-router): they give up early on throttling,
// at most 3 attempts and 1 + 2 s of waits, since their calls are bounded
// by their run anyway and the next run, a minute later, reads the queue
// again; the submission function shares Batch's submission rate with them.
var BackgroundRetryPolicy = RetryPolicy{MaxAttempts: 3, MaxBackoff: 2 * time.Second, AttemptTimeout: 10 * time.Second}

// NewClient returns a Batch client for cfg (the SDK's standard
// configuration, so AWS_ENDPOINT_URL_BATCH is honoured) with policy's
// retries. The client-side retry quota is off: Batch's own throttling is
// the only limit, and a function that gives up early loses work.
func NewClient(cfg aws.Config, policy RetryPolicy, optFns ...func(*batch.Options)) *batch.Client {
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

// IsThrottle reports an answer saying the caller sends too fast (after the
// SDK's own retries).
func IsThrottle(err error) bool {
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

// IsNotFound reports an answer saying the job does not exist (as opposed to
// a refusal such as a missing permission).
func IsNotFound(err error) bool {
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

// IsClientError reports a 4xx answer other than throttling: Batch refused
// the call and retrying the same call cannot help.
func IsClientError(err error) bool {
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() >= 400 && re.HTTPStatusCode() < 500 && !IsThrottle(err)
}
