package reroute

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules/batchsdk"
)

// RetryPolicy is how the re-router's Batch client retries
// (batchsdk.RetryPolicy).
type RetryPolicy = batchsdk.RetryPolicy

// DefaultRetryPolicy is batchsdk.BackgroundRetryPolicy: the re-router gives up
// early on throttling, and its next run carries on.
var DefaultRetryPolicy = batchsdk.BackgroundRetryPolicy

// NewBatchClient is batchsdk.NewClient: the Batch client every trainq
// function builds, with policy's retries.
func NewBatchClient(cfg aws.Config, policy RetryPolicy, optFns ...func(*batch.Options)) *batch.Client {
	return batchsdk.NewClient(cfg, policy, optFns...)
}

// The answers the re-router tells apart, read by batchsdk.
var (
	isThrottle    = batchsdk.IsThrottle
	isClientError = batchsdk.IsClientError
)

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
