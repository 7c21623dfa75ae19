package simulate

import "testing"

// TestAChangeThatRoundsToNoneIsNoChange: −0.04 pp shows as "0.0 pp", with
// no sign (and so, in the report, no colour).
func TestAChangeThatRoundsToNoneIsNoChange(t *testing.T) {
	for _, tc := range []struct {
		d    float64
		mag  string
		want string
	}{
		{-0.0004, "0.0 pp", "0.0 pp"},
		{0.0004, "0.0 pp", "0.0 pp"},
		{-0.01, "1.0 pp", "−1.0 pp"},
		{0.5, "0s", "0s"},
		{-30, "30s", "−30s"},
		{120, "2m00s", "+2m00s"},
	} {
		if got := signed(tc.d, tc.mag); got != tc.want {
			t.Errorf("signed(%g, %q) = %q, want %q", tc.d, tc.mag, got, tc.want)
		}
	}
}

// TestInstanceHoursKeepOneUnit: 900 instance-seconds are 0.25 inst-h
// (900 / 3600), 5400 are 1.5.
func TestInstanceHoursKeepOneUnit(t *testing.T) {
	for is, want := range map[int64]string{0: "0.0 inst-h", 900: "0.25 inst-h", 5400: "1.5 inst-h"} {
		if got := instanceHours(is); got != want {
			t.Errorf("instanceHours(%d) = %q, want %q", is, got, want)
		}
	}
}
