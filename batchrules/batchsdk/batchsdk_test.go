package batchsdk_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
)

func use(unit string, quantity float64) types.QueueSnapshotCapacityUsage {
	return types.QueueSnapshotCapacityUsage{CapacityUnit: aws.String(unit), Quantity: aws.Float64(quantity)}
}

// TestQueueUtilization: GetJobQueueSnapshot's queueUtilization
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_QueueSnapshotUtilizationDetail.html)
// comes across whole, each share named by its quotaShareName or
// shareIdentifier.
func TestQueueUtilization(t *testing.T) {
	tests := []struct {
		name string
		in   *batch.GetJobQueueSnapshotOutput
		want *batchrules.QueueUtilization
	}{
		{"no answer is no utilization", nil, nil},
		{"an answer without queueUtilization is no utilization", &batch.GetJobQueueSnapshotOutput{}, nil},
		{"a quota-share queue's usage is broken down by quota share name",
			&batch.GetJobQueueSnapshotOutput{QueueUtilization: &types.QueueSnapshotUtilizationDetail{
				TotalCapacityUsage: []types.QueueSnapshotCapacityUsage{use("ml.p5.48xlarge", 20), use("ml.p4d.24xlarge", 3)},
				QuotaShareUtilization: &types.QuotaShareUtilizationDetail{TopCapacityUtilization: []types.QuotaShareCapacityUtilization{
					{QuotaShareName: aws.String("vision"), CapacityUsage: []types.QuotaShareCapacityUsage{{CapacityUnit: aws.String("ml.p5.48xlarge"), Quantity: aws.Float64(12)}}},
					{QuotaShareName: aws.String("speech"), CapacityUsage: []types.QuotaShareCapacityUsage{{CapacityUnit: aws.String("ml.p5.48xlarge"), Quantity: aws.Float64(8)}, {CapacityUnit: aws.String("ml.p4d.24xlarge"), Quantity: aws.Float64(3)}}},
				}},
			}},
			&batchrules.QueueUtilization{
				TotalCapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: "ml.p5.48xlarge", Quantity: 20}, {CapacityUnit: "ml.p4d.24xlarge", Quantity: 3}},
				QuotaShareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
					{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: "ml.p5.48xlarge", Quantity: 12}}},
					{Share: "speech", CapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: "ml.p5.48xlarge", Quantity: 8}, {CapacityUnit: "ml.p4d.24xlarge", Quantity: 3}}},
				}},
			}},
		{"a fair-share queue's usage is broken down by share identifier",
			&batch.GetJobQueueSnapshotOutput{QueueUtilization: &types.QueueSnapshotUtilizationDetail{
				TotalCapacityUsage: []types.QueueSnapshotCapacityUsage{use("ml.p5.48xlarge", 2.5)},
				FairshareUtilization: &types.FairshareUtilizationDetail{TopCapacityUtilization: []types.FairshareCapacityUtilization{
					{ShareIdentifier: aws.String("vision"), CapacityUsage: []types.FairshareCapacityUsage{{CapacityUnit: aws.String("ml.p5.48xlarge"), Quantity: aws.Float64(2.5)}}},
				}},
			}},
			&batchrules.QueueUtilization{
				TotalCapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: "ml.p5.48xlarge", Quantity: 2.5}},
				FairshareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
					{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: "ml.p5.48xlarge", Quantity: 2.5}}},
				}},
			}},
		{"an idle queue uses nothing and lists no share",
			&batch.GetJobQueueSnapshotOutput{QueueUtilization: &types.QueueSnapshotUtilizationDetail{
				QuotaShareUtilization: &types.QuotaShareUtilizationDetail{},
			}},
			&batchrules.QueueUtilization{QuotaShareUtilization: &batchrules.ShareUtilization{}}},
		{"a missing unit or quantity reads as nothing",
			&batch.GetJobQueueSnapshotOutput{QueueUtilization: &types.QueueSnapshotUtilizationDetail{
				TotalCapacityUsage: []types.QueueSnapshotCapacityUsage{{}},
			}},
			&batchrules.QueueUtilization{TotalCapacityUsage: []batchrules.CapacityUsage{{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, batchsdk.QueueUtilization(tt.in)); diff != "" {
				t.Errorf("QueueUtilization (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunnableSince: a described job (DescribeServiceJob,
// https://docs.aws.amazon.com/batch/latest/APIReference/API_DescribeServiceJob.html)
// became RUNNABLE when created and again when an attempt stopped, be it
// retried or preempted.
func TestRunnableSince(t *testing.T) {
	ms := aws.Int64
	tests := []struct {
		name      string
		in        *batch.DescribeServiceJobOutput
		before    int64
		want      int64
		wantFound bool
	}{
		{"a job never run became runnable when created", &batch.DescribeServiceJobOutput{CreatedAt: ms(100)}, 500, 100, true},
		{"a retried job became runnable when its last attempt stopped",
			&batch.DescribeServiceJobOutput{CreatedAt: ms(100), Attempts: []types.ServiceJobAttemptDetail{{StoppedAt: ms(200)}, {StoppedAt: ms(300)}}}, 500, 300, true},
		{"a preempted job became runnable when the preempted attempt stopped",
			&batch.DescribeServiceJobOutput{CreatedAt: ms(100), PreemptionSummary: &types.ServiceJobPreemptionSummary{
				RecentPreemptedAttempts: []types.ServiceJobPreemptedAttempt{{StoppedAt: ms(400)}}}}, 500, 400, true},
		{"a stop after the moment asked about does not count",
			&batch.DescribeServiceJobOutput{CreatedAt: ms(100), Attempts: []types.ServiceJobAttemptDetail{{StoppedAt: ms(600)}}}, 500, 100, true},
		{"an answer without times says nothing", &batch.DescribeServiceJobOutput{}, 500, 0, false},
		{"no answer says nothing", nil, 500, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := batchsdk.RunnableSince(tt.in, tt.before)
			if got != tt.want || found != tt.wantFound {
				t.Errorf("RunnableSince(…, %d) = %d, %v; want %d, %v", tt.before, got, found, tt.want, tt.wantFound)
			}
		})
	}
}
