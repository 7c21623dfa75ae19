package simulate

import "math/bits"

// Hist counts waits (non-negative whole seconds) in memory bounded by the
// range of the values, not their number: a log-linear histogram with 1,024
// buckets per power of two. Values below 2,048 s have a bucket each and are
// exact; a larger value v shares its bucket with the values that agree with
// it in their top 11 bits, so a bucket spans 2^e seconds where
// 2^(e+10) ≤ v < 2^(e+11), less than 1/1024 of v. Percentiles are
// nearest-rank over the buckets and report the bucket's lowest value (or the
// smallest value counted, when that is larger): exact below 2,048 s,
// otherwise at most 0.1% (and at most 2^e − 1 s) below the exact
// nearest-rank value. Max, min, count and mean are exact. A month of
// waits (< 2^22 s) needs at most 13 × 1,024 counters.
type Hist struct {
	counts   []uint32
	n        int
	sum      int64
	min, max int64
}

const (
	histSubBits = 10
	histSub     = 1 << histSubBits
	// HistExactBelow is the wait below which Hist's percentiles are exact.
	HistExactBelow = 2 * histSub
)

// histIndex is the bucket of v ≥ 0.
func histIndex(v int64) int {
	if v < HistExactBelow {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSubBits - 1
	return (e+1)*histSub + int(v>>e) - histSub
}

// histLow is the lowest value of bucket i.
func histLow(i int) int64 {
	if i < HistExactBelow {
		return int64(i)
	}
	e := i/histSub - 1
	return int64(i%histSub+histSub) << e
}

// Add counts one value (negative values count as 0).
func (h *Hist) Add(v int64) {
	v = max(v, 0)
	i := histIndex(v)
	for len(h.counts) <= i {
		h.counts = append(h.counts, make([]uint32, histSub)...)
	}
	h.counts[i]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	h.sum += v
}

// N is the number of values counted.
func (h *Hist) N() int { return h.n }

// Max is the largest value (0 when empty).
func (h *Hist) Max() int64 { return h.max }

// Mean is the exact mean (0 when empty).
func (h *Hist) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return float64(h.sum) / float64(h.n)
}

// Percentile is the nearest-rank p-th percentile (the ⌈p·n/100⌉-th smallest
// value, at least the first), to the bucket's lowest value; 0 when empty.
func (h *Hist) Percentile(p int) int64 {
	if h.n == 0 {
		return 0
	}
	rank := max((p*h.n+99)/100, 1)
	if rank >= h.n {
		return h.max
	}
	seen := 0
	for i, c := range h.counts {
		if seen += int(c); seen >= rank {
			return min(max(histLow(i), h.min), h.max)
		}
	}
	return h.max
}

// Each calls fn for each non-empty bucket in increasing order, with the
// bucket's lowest value and the number of values up to and including it.
func (h *Hist) Each(fn func(low int64, cumulative int)) {
	seen := 0
	for i, c := range h.counts {
		if c > 0 {
			seen += int(c)
			fn(histLow(i), seen)
		}
	}
}
