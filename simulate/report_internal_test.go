package simulate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLastBucketIsNotAFalseDrop: one instance busy for the whole of a 90 s
// run in 60 s buckets. The second bucket covers only 60–90 s, so its 30
// instance-seconds are 30/(30 × 1) = 100% busy, not 30/(60 × 1) = 50%.
func TestLastBucketIsNotAFalseDrop(t *testing.T) {
	s := &Series{Start: 0, Width: 60, End: 90, Capacity: 1, TeamBusy: [][]float64{{60, 30}}, Goodput: []float64{60, 30}, Lost: []float64{0, 0}}
	p := &page{r: &Report{Runs: []*Result{{StartSeconds: 0, MakespanSeconds: 90, series: s}}}}
	ax := newTimeAxis(90)
	xs, ys := p.steps(s, ax, func(b int, span float64) float64 { return s.TeamBusy[0][b] / (span * float64(s.Capacity)) })
	if diff := cmp.Diff([]float64{0, 60.0 / 3600, 60.0 / 3600, 90.0 / 3600}, xs); diff != "" {
		t.Errorf("x (hours) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 1, 1, 1}, ys); diff != "" {
		t.Errorf("busy share (-want +got):\n%s", diff)
	}
}
