package poll

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules/batchsdk"
)

// RetryPolicy is how the poller's Batch client retries
// (batchsdk.RetryPolicy).
type RetryPolicy = batchsdk.RetryPolicy

// DefaultRetryPolicy is batchsdk.BackgroundRetryPolicy: the poller gives up
// early on throttling, and its next run carries on.
var DefaultRetryPolicy = batchsdk.BackgroundRetryPolicy

// NewBatchClient is batchsdk.NewClient: the Batch client every trainq
// function builds, with policy's retries.
func NewBatchClient(cfg aws.Config, policy RetryPolicy, optFns ...func(*batch.Options)) *batch.Client {
	return batchsdk.NewClient(cfg, policy, optFns...)
}
