package submit

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules/batchsdk"
)

// RetryPolicy is how the submission function's Batch client retries
// (batchsdk.RetryPolicy).
type RetryPolicy = batchsdk.RetryPolicy

// DefaultRetryPolicy suits a function with a timeout of 60 s or more: at
// most 10 attempts; under sustained throttling the 9 waits are capped at
// 1+2+4×7 = 31 s and average half that, ≈ 15.5 s (the jitter is uniform in
// [0, cap)).
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 10, MaxBackoff: 4 * time.Second, AttemptTimeout: 10 * time.Second}

// NewBatchClient is batchsdk.NewClient: the Batch client every trainq
// function builds, with policy's retries.
func NewBatchClient(cfg aws.Config, policy RetryPolicy, optFns ...func(*batch.Options)) *batch.Client {
	return batchsdk.NewClient(cfg, policy, optFns...)
}

// The answers the handler tells apart, read by batchsdk.
var (
	isThrottle    = batchsdk.IsThrottle
	isNotFound    = batchsdk.IsNotFound
	isClientError = batchsdk.IsClientError
)

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
