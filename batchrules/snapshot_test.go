package batchrules_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
)

func usage(unit string, q float64) batchrules.CapacityUsage {
	return batchrules.CapacityUsage{CapacityUnit: unit, Quantity: q}
}

func TestUsageFromSnapshot(t *testing.T) {
	const p5, p4 = "ml.p5.48xlarge", "ml.p4d.24xlarge"
	tests := []struct {
		name string
		in   *batchrules.QueueUtilization
		want *batchrules.Usage
	}{
		{"a snapshot without queueUtilization says nothing", nil, nil},
		{
			"a FIFO queue has a total and no per-share breakdown",
			&batchrules.QueueUtilization{TotalCapacityUsage: []batchrules.CapacityUsage{usage(p5, 3)}},
			&batchrules.Usage{ByType: map[string]float64{p5: 3}, ByShare: map[string]map[string]float64{}},
		},
		{
			"a quota queue lists each share's usage per instance type",
			&batchrules.QueueUtilization{
				TotalCapacityUsage: []batchrules.CapacityUsage{usage(p5, 36), usage(p4, 15)},
				QuotaShareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
					{Share: "search", CapacityUsage: []batchrules.CapacityUsage{usage(p5, 30), usage(p4, 5)}},
					{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{usage(p5, 6)}},
				}},
			},
			&batchrules.Usage{ByType: map[string]float64{p5: 36, p4: 15}, PerShare: true,
				ByShare: map[string]map[string]float64{"search": {p5: 30, p4: 5}, "vision": {p5: 6}}},
		},
		{
			"a fair-share queue lists each share identifier's usage",
			&batchrules.QueueUtilization{FairshareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
				{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{usage(p5, 2)}},
			}}},
			&batchrules.Usage{ByType: map[string]float64{}, PerShare: true, ByShare: map[string]map[string]float64{"vision": {p5: 2}}},
		},
		{
			"repeated entries add up",
			&batchrules.QueueUtilization{
				TotalCapacityUsage: []batchrules.CapacityUsage{usage(p5, 2), usage(p5, 3)}, // 2 + 3 = 5
				QuotaShareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
					{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{usage(p5, 1)}},
					{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{usage(p5, 4)}}, // 1 + 4 = 5
				}},
			},
			&batchrules.Usage{ByType: map[string]float64{p5: 5}, PerShare: true, ByShare: map[string]map[string]float64{"vision": {p5: 5}}},
		},
		{
			"an empty quota-share breakdown still is a breakdown: every share uses nothing",
			&batchrules.QueueUtilization{QuotaShareUtilization: &batchrules.ShareUtilization{}},
			&batchrules.Usage{ByType: map[string]float64{}, PerShare: true, ByShare: map[string]map[string]float64{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.in.Usage()); diff != "" {
				t.Errorf("Usage (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUsageInstances(t *testing.T) {
	u := &batchrules.Usage{ByType: map[string]float64{"ml.p5.48xlarge": 2.25}, ByShare: map[string]map[string]float64{"vision": {"ml.p5.48xlarge": 2}}}
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"a whole quantity is that many instances", u.ShareInstances("vision", "ml.p5.48xlarge"), 2},
		{"a fractional quantity is rounded up", u.TotalInstances("ml.p5.48xlarge"), 3}, // ⌈2.25⌉
		{"a share the snapshot does not list uses nothing", u.ShareInstances("search", "ml.p5.48xlarge"), 0},
		{"a type nobody uses has nothing in use", u.TotalInstances("ml.p4d.24xlarge"), 0},
		{"no usage at all has nothing in use", (*batchrules.Usage)(nil).TotalInstances("ml.p5.48xlarge"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %d, want %d", tt.got, tt.want)
			}
		})
	}
}
