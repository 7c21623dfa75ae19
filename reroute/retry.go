package reroute

import (
	"errors"
	"net/http"
	"strings"
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
// clientToken; a retry of TerminateServiceJob terminates the same job.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt.
	MaxAttempts int
	// MaxBackoff caps the jittered exponential delay between attempts.
	MaxBackoff time.Duration
	// AttemptTimeout bounds one HTTP attempt.
	AttemptTimeout time.Duration
}

// DefaultRetryPolicy gives up early on throttling: the re-router is not in
// a hurry (a run stops at the first call still throttled after 3 attempts,
// at most 1 + 2 s of waits, and the next run carries on), and the
// submission function shares Batch's submission rate.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, MaxBackoff: 2 * time.Second, AttemptTimeout: 10 * time.Second}

// NewBatchClient returns a Batch client for cfg (the SDK's standard
// configuration, so AWS_ENDPOINT_URL_BATCH is honoured) with policy's
// retries and no client-side retry quota.
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

// isThrottle reports an answer saying the caller sends too fast (after the
// SDK's own retries).
func isThrottle(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && throttleCodes[ae.ErrorCode()] {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusTooManyRequests
}

// isClientError reports a 4xx answer other than throttling: Batch refused
// the call and the same call cannot succeed.
func isClientError(err error) bool {
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() >= 400 && re.HTTPStatusCode() < 500 && !isThrottle(err)
}

// isRepeatedToken reports Batch's refusal of a SubmitServiceJob whose
// clientToken and request it already received: the job exists. The API
// reference says only that "the second request is rejected"
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_SubmitServiceJob.html);
// the fake endpoint answers a ClientException saying "already received".
// The re-router looks for the job after any failed submission, so this only
// makes it look longer.
func isRepeatedToken(err error) bool {
	return isClientError(err) && strings.Contains(strings.ToLower(err.Error()), "already received")
}
