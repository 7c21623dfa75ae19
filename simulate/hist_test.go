package simulate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/simulate"
)

func TestHist(t *testing.T) {
	type stats struct {
		P50, P95, P99, Max int64
		Mean               float64
	}
	for _, tc := range []struct {
		name   string
		values []int64
		want   stats
	}{
		{
			// Nearest rank over 1..100: the ⌈p·100/100⌉-th value is p.
			// Mean (1 + 100)/2 = 50.5.
			name:   "waits below 2048 s are exact",
			values: seq(1, 100),
			want:   stats{P50: 50, P95: 95, P99: 99, Max: 100, Mean: 50.5},
		},
		{
			// 4096 ≤ v < 8192 shares buckets of 2² = 4 s: p50 of three is the
			// 2nd (⌈1.5⌉), 5001, which reads 5000 (5001 >> 2 << 2), 0.02% low.
			// p95 is the 3rd (⌈2.85⌉), the exact max. (A bucket holding the
			// smallest value reads that value: it is exact.)
			name:   "a larger wait reads its bucket's lowest value",
			values: []int64{10, 5001, 6000},
			want:   stats{P50: 5000, P95: 6000, P99: 6000, Max: 6000, Mean: 11011.0 / 3},
		},
		{
			// 2^19 ≤ 1,000,003 < 2^20, so buckets are 2^9 = 512 s:
			// 1,000,003 >> 9 = 1953, × 512 = 999,936 (67 s, 0.0067% low, under
			// 1/1024), the 2nd of three.
			name:   "a twelve-day wait is within 0.1%",
			values: []int64{10, 1_000_003, 2_000_000},
			want:   stats{P50: 999_936, P95: 2_000_000, P99: 2_000_000, Max: 2_000_000, Mean: 3_000_013.0 / 3},
		},
		{
			name: "no values reads zero",
			want: stats{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h simulate.Hist
			for _, v := range tc.values {
				h.Add(v)
			}
			got := stats{h.Percentile(50), h.Percentile(95), h.Percentile(99), h.Max(), h.Mean()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistPercentilesAreNeverAbove(t *testing.T) {
	// For waits 0, 7, 14, … up to 3,000,000 s, each percentile is at most the
	// exact nearest-rank value and within 1/1024 of it.
	var h simulate.Hist
	var vals []int64
	for v := int64(0); v <= 3_000_000; v += 7 {
		h.Add(v)
		vals = append(vals, v)
	}
	for _, p := range []int{1, 10, 50, 90, 95, 99} {
		exact := vals[(p*len(vals)+99)/100-1]
		got := h.Percentile(p)
		if got > exact || float64(exact-got) > float64(exact)/1024 {
			t.Errorf("p%d: got %d, exact %d", p, got, exact)
		}
	}
}

func seq(a, b int64) []int64 {
	var out []int64
	for v := a; v <= b; v++ {
		out = append(out, v)
	}
	return out
}
