package poll

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules/batchsdk"
)

// RetryPolicy is how the poller's Batch client retries
// (batchsdk.RetryPolicy).
type RetryPolicy = batchsdk.RetryPolicy

// DefaultRetryPolicy gives up early on throttling, as the re-router's
// does: a run's calls are bounded by CallTimeout anyway, and the next run
// (a minute later) reads the queue again.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, MaxBackoff: 2 * time.Second, AttemptTimeout: 10 * time.Second}

// NewBatchClient is batchsdk.NewClient: the Batch client every trainq
// function builds, with policy's retries.
func NewBatchClient(cfg aws.Config, policy RetryPolicy, optFns ...func(*batch.Options)) *batch.Client {
	return batchsdk.NewClient(cfg, policy, optFns...)
}
