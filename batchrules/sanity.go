package batchrules

import (
	"fmt"
	"math"
	"time"
)

// Sanity bounds on what AWS Batch answers and sends. Batch's own answers
// and events are trusted in shape, not in value: a time or a quantity
// outside these bounds is a fault (a wrong unit, an overflow, a forged
// event) and is refused by name instead of being turned into a metric or
// a decision.

// EarliestTime is the earliest time a Batch job can carry: AWS Batch
// became generally available on 5 January 2017
// (https://aws.amazon.com/about-aws/whats-new/2017/01/aws-batch-now-generally-available/);
// its first day of that year is the bound.
var EarliestTime = time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxClockSkew is how far past the reader's clock a Batch time may lie.
const MaxClockSkew = 24 * time.Hour

// CheckTime reports whether ms, a Batch timestamp (Unix milliseconds) read
// at now, is plausible: from EarliestTime to now + MaxClockSkew. The error
// names field, the value and the bounds, and says when the value would be
// plausible in seconds (a unit mistake).
func CheckTime(field string, ms int64, now time.Time) error {
	lo, hi := EarliestTime.UnixMilli(), now.Add(MaxClockSkew).UnixMilli()
	if ms >= lo && ms <= hi {
		return nil
	}
	hint := ""
	if ms > 0 && ms <= math.MaxInt64/1000 && ms*1000 >= lo && ms*1000 <= hi {
		hint = " (it reads as seconds, not milliseconds)"
	}
	return fmt.Errorf("%s %d is not a time in Unix milliseconds from %s to %s (now + %s)%s",
		field, ms, EarliestTime.Format(time.RFC3339), now.Add(MaxClockSkew).UTC().Format(time.RFC3339), MaxClockSkew, hint)
}

// MaxQuantity bounds an instance count: a service environment's capacity
// limit is a 32-bit integer, but no queue holds a million instances.
const MaxQuantity = 1_000_000

// CheckQuantity reports whether q is a plausible number of instances:
// finite, at least 0, at most MaxQuantity.
func CheckQuantity(field string, q float64) error {
	if math.IsNaN(q) || math.IsInf(q, 0) || q < 0 || q > MaxQuantity {
		return fmt.Errorf("%s %v is not a number of instances from 0 to %d", field, q, MaxQuantity)
	}
	return nil
}

// NumInstances is the capacity unit of a service environment without quota
// management (https://docs.aws.amazon.com/batch/latest/APIReference/API_CapacityLimit.html).
const NumInstances = "NUM_INSTANCES"

// ValidCapacityUnit reports whether s may be the capacityUnit of a service
// job's capacity usage: an instance type ("For service jobs, this is the
// instance type",
// https://docs.aws.amazon.com/batch/latest/APIReference/API_QueueSnapshotCapacityUsage.html)
// or NUM_INSTANCES.
func ValidCapacityUnit(s string) bool { return s == NumInstances || ValidInstanceType(s) }
