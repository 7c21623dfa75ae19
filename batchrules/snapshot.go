package batchrules

import "math"

// QueueUtilization is the capacity part of GetJobQueueSnapshot's answer
// (queueUtilization), without the AWS SDK
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_GetJobQueueSnapshot.html,
// https://docs.aws.amazon.com/batch/latest/APIReference/API_QueueSnapshotUtilizationDetail.html).
type QueueUtilization struct {
	// TotalCapacityUsage is the whole queue's usage.
	TotalCapacityUsage []CapacityUsage
	// QuotaShareUtilization is set for a queue with a quota-share policy.
	QuotaShareUtilization *ShareUtilization
	// FairshareUtilization is set for a queue with a fair-share policy.
	FairshareUtilization *ShareUtilization
}

// ShareUtilization is quotaShareUtilization or fairshareUtilization:
// topCapacityUtilization, the usage of the shares that use the most.
type ShareUtilization struct {
	TopCapacityUtilization []ShareCapacityUsage
}

// ShareCapacityUsage is one share's usage: Share is its quotaShareName or
// shareIdentifier.
type ShareCapacityUsage struct {
	Share         string
	CapacityUsage []CapacityUsage
}

// CapacityUsage is QueueSnapshotCapacityUsage: "For service jobs, this
// [capacityUnit] is the instance type", and the quantity is the instances
// in use (https://docs.aws.amazon.com/batch/latest/APIReference/API_QueueSnapshotCapacityUsage.html).
type CapacityUsage struct {
	CapacityUnit string
	Quantity     float64
}

// Usage is the capacity in use, in instances, read from a snapshot.
type Usage struct {
	// ByType is the whole queue's usage per instance type.
	ByType map[string]float64
	// ByShare is each share's usage per instance type. A share it does not
	// list uses nothing.
	ByShare map[string]map[string]float64
	// PerShare is true when the snapshot broke the usage down by share
	// (quotaShareUtilization or fairshareUtilization); without it ByShare
	// is empty and says nothing about the shares.
	PerShare bool
}

// Usage reads the capacity in use from the snapshot's queueUtilization:
// totalCapacityUsage for the queue, and the per-share breakdown
// (quotaShareUtilization, or fairshareUtilization) for the shares, adding up
// repeated entries. It returns nil for a nil u (a snapshot without
// queueUtilization).
func (u *QueueUtilization) Usage() *Usage {
	if u == nil {
		return nil
	}
	out := &Usage{ByType: map[string]float64{}, ByShare: map[string]map[string]float64{}}
	for _, c := range u.TotalCapacityUsage {
		out.ByType[c.CapacityUnit] += c.Quantity
	}
	for _, su := range []*ShareUtilization{u.QuotaShareUtilization, u.FairshareUtilization} {
		if su == nil {
			continue
		}
		out.PerShare = true
		for _, s := range su.TopCapacityUtilization {
			if out.ByShare[s.Share] == nil {
				out.ByShare[s.Share] = map[string]float64{}
			}
			for _, c := range s.CapacityUsage {
				out.ByShare[s.Share][c.CapacityUnit] += c.Quantity
			}
		}
	}
	return out
}

// TotalInstances is the queue's instances of instanceType in use, a
// fractional quantity rounded up; 0 for a nil u.
func (u *Usage) TotalInstances(instanceType string) int {
	if u == nil {
		return 0
	}
	return int(math.Ceil(u.ByType[instanceType]))
}

// ShareInstances is share's instances of instanceType in use, a fractional
// quantity rounded up; 0 for a nil u.
func (u *Usage) ShareInstances(share, instanceType string) int {
	if u == nil {
		return 0
	}
	return int(math.Ceil(u.ByShare[share][instanceType]))
}
