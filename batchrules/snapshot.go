package batchrules

import (
	"fmt"
	"math"
	"sort"
)

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
	// Skipped says which entries of the snapshot were left out, and why:
	// a capacityUnit that is no ValidCapacityUnit, a quantity CheckQuantity
	// refuses, or a unit whose quantities add up beyond MaxQuantity. The
	// rest is read as if they were absent. At most MaxSkipped are listed;
	// they quote what Batch sent whole, so whoever writes them cuts them
	// (contract.Cut).
	Skipped []string
}

// MaxSkipped bounds Usage.Skipped.
const MaxSkipped = 10

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
	skipped := 0
	skip := func(format string, args ...any) {
		if skipped < MaxSkipped {
			out.Skipped = append(out.Skipped, fmt.Sprintf(format, args...))
		}
		skipped++
	}
	// add reads one list of entries into m, refusing bad entries and units
	// whose total is no plausible quantity.
	add := func(where string, list []CapacityUsage, m map[string]float64) {
		for i, c := range list {
			field := fmt.Sprintf("%s[%d]", where, i)
			if !ValidCapacityUnit(c.CapacityUnit) {
				skip("%s.capacityUnit: got %q, want an instance type (ml.<family>.<size>) or %s", field, c.CapacityUnit, NumInstances)
				continue
			}
			if err := CheckQuantity(field+".quantity", c.Quantity); err != nil {
				skip("%v", err)
				continue
			}
			m[c.CapacityUnit] += c.Quantity
		}
		units := make([]string, 0, len(m))
		for unit := range m {
			units = append(units, unit)
		}
		sort.Strings(units)
		for _, unit := range units {
			if err := CheckQuantity(where+" total of "+unit, m[unit]); err != nil {
				skip("%v", err)
				delete(m, unit)
			}
		}
	}
	add("totalCapacityUsage", u.TotalCapacityUsage, out.ByType)
	for _, su := range []*ShareUtilization{u.QuotaShareUtilization, u.FairshareUtilization} {
		if su == nil {
			continue
		}
		out.PerShare = true
		for i, s := range su.TopCapacityUtilization {
			if out.ByShare[s.Share] == nil {
				out.ByShare[s.Share] = map[string]float64{}
			}
			add(fmt.Sprintf("topCapacityUtilization[%d].capacityUsage", i), s.CapacityUsage, out.ByShare[s.Share])
		}
	}
	if skipped > MaxSkipped {
		out.Skipped = append(out.Skipped, fmt.Sprintf("and %d more", skipped-MaxSkipped))
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
