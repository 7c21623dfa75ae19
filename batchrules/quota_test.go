package batchrules_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
)

// share is a fluent builder of a ShareState.
type share struct{ batchrules.ShareState }

func reserve(capacity int) share {
	return share{batchrules.ShareState{Limit: batchrules.Limit{Strategy: batchrules.Reserve, Capacity: capacity}}}
}

func lend(capacity int) share {
	return share{batchrules.ShareState{Limit: batchrules.Limit{Strategy: batchrules.Lend, Capacity: capacity}}}
}

func lendAndBorrow(capacity, borrowLimitPercent int) share {
	return share{batchrules.ShareState{Limit: batchrules.Limit{Strategy: batchrules.LendAndBorrow, Capacity: capacity, BorrowLimitPercent: borrowLimitPercent}}}
}

func (s share) using(n int) share { s.Used = n; return s }

// state is a pool of pool instances with shares; InUse is what the shares
// hold plus extra (jobs the snapshot lists under no share).
func state(pool, extra int, shares ...share) batchrules.TypeState {
	q := batchrules.TypeState{Pool: pool, InUse: extra}
	for _, s := range shares {
		q.Shares = append(q.Shares, s.ShareState)
		q.InUse += s.Used
	}
	return q
}

func TestMaxBorrowed(t *testing.T) {
	tests := []struct {
		name  string
		limit batchrules.Limit
		pool  int
		want  int
	}{
		{"a reserve share never borrows", reserve(4).Limit, 10, 0},
		{"a lend share never borrows", lend(4).Limit, 10, 0},
		{"a lend-and-borrow share borrows its limit's percent of its capacity", lendAndBorrow(4, 50).Limit, 10, 2}, // 4 × 50% = 2
		{"the percent of the capacity is rounded down", lendAndBorrow(5, 50).Limit, 10, 2},                         // 5 × 50% = 2.5 → 2
		{"a limit above 100 percent borrows more than the capacity", lendAndBorrow(4, 200).Limit, 20, 8},           // 4 × 200% = 8
		{"a zero limit borrows nothing", lendAndBorrow(4, 0).Limit, 10, 0},
		{"an unlimited share may borrow the whole pool", lendAndBorrow(4, batchrules.UnlimitedBorrow).Limit, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.limit.MaxBorrowed(tt.pool); got != tt.want {
				t.Errorf("MaxBorrowed(%d) = %d, want %d", tt.pool, got, tt.want)
			}
		})
	}
}

func TestRoom(t *testing.T) {
	tests := []struct {
		name  string
		state batchrules.TypeState
		share int
		want  batchrules.Room
	}{
		{
			"an idle pool lets a lend-and-borrow share use its capacity and its borrow limit",
			state(10, 0, lendAndBorrow(4, 50), lend(6)),
			// Idle: min(ceiling 4+2 − 0, free 10) = 6; Reclaim: min(4 − 0, 10) = 4.
			0, batchrules.Room{Idle: 6, Reclaim: 4},
		},
		{
			"an unlimited borrower may take every idle instance",
			state(10, 0, lendAndBorrow(4, -1), lend(6).using(1)),
			// Idle: min(4+10 − 0, free 10 − 1) = 9; Reclaim: min(4, 9) = 4.
			0, batchrules.Room{Idle: 9, Reclaim: 4},
		},
		{
			"another reserve share's idle quota is not idle capacity for others",
			state(10, 0, lendAndBorrow(4, -1), reserve(6).using(2)),
			// free 10 − 2 = 8, of which reserve's idle quota 6 − 2 = 4 is its own:
			// Idle: min(14, 8 − 4) = 4; Reclaim: min(4, 4) = 4.
			0, batchrules.Room{Idle: 4, Reclaim: 4},
		},
		{
			"a reserve share's own idle quota is its to use",
			state(10, 0, lendAndBorrow(4, -1), reserve(6).using(2)),
			// Idle: min(ceiling 6 − 2, free 8) = 4; Reclaim: min(6 − 2, 8) = 4.
			1, batchrules.Room{Idle: 4, Reclaim: 4},
		},
		{
			"a lend share's idle quota may be borrowed",
			state(10, 0, lendAndBorrow(4, -1).using(4), lend(6)),
			// free 10 − 4 = 6, none reserved: Idle: min(14 − 4, 6) = 6; Reclaim: min(0, …) = 0.
			0, batchrules.Room{Idle: 6, Reclaim: 0},
		},
		{
			"a lend share never goes beyond its capacity",
			state(10, 0, lend(4).using(3), lend(6)),
			// Idle: min(ceiling 4 − 3, free 7) = 1; Reclaim: min(4 − 3, 7) = 1.
			0, batchrules.Room{Idle: 1, Reclaim: 1},
		},
		{
			"a share gets back what others borrow from it",
			state(10, 0, lendAndBorrow(4, -1), lendAndBorrow(6, -1).using(10)),
			// free 0: Idle: min(14, 0) = 0; Reclaim: min(4 − 0, 0 + borrowed 10 − 6 = 4) = 4.
			0, batchrules.Room{Idle: 0, Reclaim: 4},
		},
		{
			"a share at its borrow limit has no idle room but what it may reclaim",
			state(10, 0, lendAndBorrow(4, 50).using(6), lend(6)),
			// Idle: min(6 − 6, free 4) = 0; Reclaim: min(4 − 6 → 0, …) = 0.
			0, batchrules.Room{Idle: 0, Reclaim: 0},
		},
		{
			"instances no share is guaranteed may be borrowed",
			state(12, 0, lendAndBorrow(4, -1).using(4), reserve(6)),
			// free 12 − 4 = 8, reserve's idle quota 6: Idle: min(16 − 4, 8 − 6) = 2.
			0, batchrules.Room{Idle: 2, Reclaim: 0},
		},
		{
			"instances the snapshot lists under no share are in use",
			state(10, 3, lendAndBorrow(4, -1), lend(6)),
			// free 10 − 3 = 7: Idle: min(14, 7) = 7; Reclaim: min(4, 7) = 4.
			0, batchrules.Room{Idle: 7, Reclaim: 4},
		},
		{
			"a share without capacity of the type may still borrow idle capacity",
			state(10, 0, lendAndBorrow(0, -1), lend(6)),
			// Idle: min(0 + 10, 10) = 10; Reclaim: 0.
			0, batchrules.Room{Idle: 10, Reclaim: 0},
		},
		{
			"reclaiming is bounded by what others borrow when capacities exceed the pool",
			state(8, 0, lendAndBorrow(6, -1), lendAndBorrow(6, -1).using(8)),
			// free 0, borrowed 8 − 6 = 2: Reclaim: min(6, 0 + 2) = 2.
			0, batchrules.Room{Idle: 0, Reclaim: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.state.Room(tt.share)); diff != "" {
				t.Errorf("Room(%d) (-want +got):\n%s", tt.share, diff)
			}
		})
	}
}

func TestFit(t *testing.T) {
	tests := []struct {
		name      string
		room      batchrules.Room
		instances int
		want      batchrules.Fit
	}{
		{"a job within the idle room starts on idle capacity", batchrules.Room{Idle: 4, Reclaim: 2}, 4, batchrules.FitsIdle},
		{"a job within the share's capacity but beyond idle starts by reclaiming", batchrules.Room{Idle: 1, Reclaim: 4}, 3, batchrules.FitsByReclaim},
		{"a job idle capacity and reclaiming both fit starts on idle capacity", batchrules.Room{Idle: 4, Reclaim: 4}, 4, batchrules.FitsIdle},
		{"a job larger than both waits", batchrules.Room{Idle: 2, Reclaim: 3}, 4, batchrules.Wait},
		{"a job of no room at all waits", batchrules.Room{}, 1, batchrules.Wait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.room.Fit(tt.instances); got != tt.want {
				t.Errorf("%+v.Fit(%d) = %v, want %v", tt.room, tt.instances, got, tt.want)
			}
			if fits := tt.want != batchrules.Wait; fits != (tt.instances <= tt.room.Headroom()) {
				t.Errorf("Headroom %d disagrees with Fit %v for %d instances", tt.room.Headroom(), tt.want, tt.instances)
			}
		})
	}
}

func TestMaxHeld(t *testing.T) {
	tests := []struct {
		name  string
		state batchrules.TypeState
		share int
		want  int
	}{
		{"a lend share holds at most its capacity", state(10, 0, lend(4), lend(6)), 0, 4},
		{"a borrower holds at most its ceiling", state(10, 0, lendAndBorrow(4, 50), lend(6)), 0, 6},                                   // 4 + 4 × 50%
		{"an unlimited borrower may hold the pool less other reserve capacity", state(10, 0, lendAndBorrow(4, -1), reserve(3)), 0, 7}, // 10 − 3
		{"a reserve share's capacity stays its own even when idle", state(10, 0, lendAndBorrow(4, -1), reserve(6), lend(0)), 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.state.MaxHeld(tt.share); got != tt.want {
				t.Errorf("MaxHeld(%d) = %d, want %d", tt.share, got, tt.want)
			}
		})
	}
}

func TestStateOf(t *testing.T) {
	shares := []batchrules.Share{
		{Name: "vision", Capacity: map[string]int{"ml.p5.48xlarge": 4}, Strategy: batchrules.LendAndBorrow, BorrowLimitPercent: 50},
		{Name: "search", Capacity: map[string]int{"ml.p4d.24xlarge": 6}, Strategy: batchrules.Reserve},
	}
	u := &batchrules.Usage{
		ByType:  map[string]float64{"ml.p5.48xlarge": 5.5},
		ByShare: map[string]map[string]float64{"vision": {"ml.p5.48xlarge": 3}, "other": {"ml.p5.48xlarge": 2.5}},
	}
	want := batchrules.TypeState{Pool: 10, InUse: 6, Shares: []batchrules.ShareState{ // 5.5 rounded up
		{Limit: batchrules.Limit{Strategy: batchrules.LendAndBorrow, Capacity: 4, BorrowLimitPercent: 50}, Used: 3},
		{Limit: batchrules.Limit{Strategy: batchrules.Reserve, Capacity: 0}, Used: 0}, // no p5 capacity, none in use
	}}
	if diff := cmp.Diff(want, batchrules.StateOf("ml.p5.48xlarge", 10, shares, u)); diff != "" {
		t.Errorf("StateOf (-want +got):\n%s", diff)
	}
	if got := batchrules.StateOf("ml.p5.48xlarge", 10, shares, nil); got.InUse != 0 || got.Shares[0].Used != 0 {
		t.Errorf("without usage, StateOf says %+v; want nothing in use", got)
	}
}
