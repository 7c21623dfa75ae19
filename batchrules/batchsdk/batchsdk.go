// Package batchsdk is the thin adapter from the AWS SDK's Batch types
// (github.com/aws/aws-sdk-go-v2/service/batch) to package batchrules' input
// types and rules — a queue snapshot's capacity usage, when a described job
// became RUNNABLE — so that the functions that call Batch read its answers
// one way and batchrules itself never imports the SDK.
//
// It also builds the Batch client every trainq function uses (NewClient:
// retries, no client-side quota) and tells its answers apart (IsThrottle,
// IsNotFound, IsClientError), so that the functions retry and read errors
// one way.
//
// It converts and decides nothing: the rules are batchrules'. It imports the
// Batch SDK and batchrules, nothing else of trainq; it is run-time code and
// must never import the AWS CDK, jsii or constructs.
package batchsdk

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
)

// QueueUtilization is the queueUtilization of a GetJobQueueSnapshot answer
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_GetJobQueueSnapshot.html)
// as batchrules reads it (QueueUtilization.Usage): the queue's
// totalCapacityUsage and the per-share breakdown, quotaShareUtilization or
// fairshareUtilization, each share named by its quotaShareName or
// shareIdentifier. It is nil when out or its queueUtilization is nil; a
// missing unit or quantity reads as "" or 0.
func QueueUtilization(out *batch.GetJobQueueSnapshotOutput) *batchrules.QueueUtilization {
	if out == nil || out.QueueUtilization == nil {
		return nil
	}
	qu := out.QueueUtilization
	u := &batchrules.QueueUtilization{}
	for _, c := range qu.TotalCapacityUsage {
		u.TotalCapacityUsage = append(u.TotalCapacityUsage, capacityUsage(c.CapacityUnit, c.Quantity))
	}
	if qs := qu.QuotaShareUtilization; qs != nil {
		u.QuotaShareUtilization = &batchrules.ShareUtilization{}
		for _, s := range qs.TopCapacityUtilization {
			su := batchrules.ShareCapacityUsage{Share: aws.ToString(s.QuotaShareName)}
			for _, c := range s.CapacityUsage {
				su.CapacityUsage = append(su.CapacityUsage, capacityUsage(c.CapacityUnit, c.Quantity))
			}
			u.QuotaShareUtilization.TopCapacityUtilization = append(u.QuotaShareUtilization.TopCapacityUtilization, su)
		}
	}
	if fs := qu.FairshareUtilization; fs != nil {
		u.FairshareUtilization = &batchrules.ShareUtilization{}
		for _, s := range fs.TopCapacityUtilization {
			su := batchrules.ShareCapacityUsage{Share: aws.ToString(s.ShareIdentifier)}
			for _, c := range s.CapacityUsage {
				su.CapacityUsage = append(su.CapacityUsage, capacityUsage(c.CapacityUnit, c.Quantity))
			}
			u.FairshareUtilization.TopCapacityUtilization = append(u.FairshareUtilization.TopCapacityUtilization, su)
		}
	}
	return u
}

// capacityUsage is one capacity usage entry (the SDK has a type for each
// of the three lists; all carry a capacityUnit and a quantity).
func capacityUsage(unit *string, quantity *float64) batchrules.CapacityUsage {
	return batchrules.CapacityUsage{CapacityUnit: aws.ToString(unit), Quantity: aws.ToFloat64(quantity)}
}

// RunnableSince is when the job a DescribeServiceJob answer describes last
// became RUNNABLE, at or before before (Unix milliseconds): batchrules'
// rule over its createdAt and the stoppedAt of its attempts and recently
// preempted attempts
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_DescribeServiceJob.html).
func RunnableSince(out *batch.DescribeServiceJobOutput, before int64) (since int64, found bool) {
	if out == nil {
		return 0, false
	}
	moments := []*int64{out.CreatedAt}
	for _, a := range out.Attempts {
		moments = append(moments, a.StoppedAt)
	}
	if ps := out.PreemptionSummary; ps != nil {
		for _, a := range ps.RecentPreemptedAttempts {
			moments = append(moments, a.StoppedAt)
		}
	}
	return batchrules.RunnableSince(before, moments...)
}
