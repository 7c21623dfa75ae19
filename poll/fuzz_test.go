package poll_test

import (
	"testing"
	"time"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

// FuzzGauges feeds arbitrary capacity entries and runnable-job times through
// the snapshot rules (batchrules' Usage) and the gauges: every record must
// encode (so that one odd entry never costs the others), and no value may be
// negative or beyond a plausible count.
func FuzzGauges(f *testing.F) {
	f.Add("ml.p5.48xlarge", 36.0, "ml.p4d.24xlarge", 15.0, "search-ranking", 5.0, int64(1796054400000))
	f.Add("", -1.0, "ml.p5.48xlargé", 1e308, "x", 1e308, int64(-9223372036854775808))
	f.Add("NUM_INSTANCES", 3.0, "ml.p5.48xlarge", 999999.0, "search-research", 999999.0, int64(1796054400))
	p := platform.Default()
	now := time.UnixMilli(1796059800000).UTC()
	f.Fuzz(func(t *testing.T, u1 string, q1 float64, u2 string, q2 float64, share string, qs float64, since int64) {
		usage := (&batchrules.QueueUtilization{
			TotalCapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: u1, Quantity: q1}, {CapacityUnit: u2, Quantity: q2}},
			QuotaShareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
				{Share: share, CapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: u1, Quantity: qs}, {CapacityUnit: u2, Quantity: q2}}},
			}},
		}).Usage()
		job := poll.RunnableJob{ID: u1, Team: share, Class: "production"}
		if batchrules.CheckTime("since", since, now) == nil && since <= now.UnixMilli() {
			job.Since = time.UnixMilli(since)
		}
		g := poll.Gauges{Platform: p, Queue: "trainq-training", Now: now, Usage: usage, Runnable: []poll.RunnableJob{job}, RunnableKnown: true}
		for _, r := range g.Records() {
			line, err := r.Encode()
			if err != nil {
				t.Fatalf("record does not encode: %v (entries %q %v, %q %v, share %q %v)", err, u1, q1, u2, q2, share, qs)
			}
			if len(line) > 64*1024 {
				t.Fatalf("line of %d bytes", len(line))
			}
		}
		for _, m := range []map[string]float64{usage.ByType, usage.ByShare[share]} {
			for unit, n := range m {
				if n < 0 || n > batchrules.MaxQuantity || !batchrules.ValidCapacityUnit(unit) {
					t.Fatalf("usage %q = %v kept", unit, n)
				}
			}
		}
	})
}
