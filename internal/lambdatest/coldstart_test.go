package lambdatest

import (
	"testing"
	"time"
)

// TestQuantileIsTheNearestRank: of 1..10 (shuffled) the median is the 5th
// value, 5, and the 90th percentile the 9th, 9; of 30 values, the 15th
// and the 27th; one value is every quantile.
func TestQuantileIsTheNearestRank(t *testing.T) {
	ten := []float64{7, 3, 10, 1, 9, 2, 8, 5, 6, 4}
	thirty := make([]time.Duration, 30)
	for i := range thirty {
		thirty[i] = time.Duration(30-i) * time.Millisecond
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"median of 1..10", quantile(ten, 0.5), 5},
		{"90th percentile of 1..10", quantile(ten, 0.9), 9},
		{"median of 1..30 ms", float64(quantile(thirty, 0.5)), float64(15 * time.Millisecond)},
		{"90th percentile of 1..30 ms", float64(quantile(thirty, 0.9)), float64(27 * time.Millisecond)},
		{"one value", quantile([]float64{3}, 0.9), 3},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if ten[0] != 7 {
		t.Errorf("quantile sorted its argument: %v", ten)
	}
}
