package batchrules_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
)

func TestCheckTime(t *testing.T) {
	now := time.Date(2026, 11, 29, 17, 30, 0, 0, time.UTC)
	tests := []struct {
		name     string
		ms       int64
		mentions string
	}{
		{"a time of this year is plausible", now.Add(-time.Hour).UnixMilli(), ""},
		{"a time a little ahead of the clock is plausible", now.Add(time.Hour).UnixMilli(), ""},
		{"seconds instead of milliseconds are named", now.Unix(), "it reads as seconds"},
		{"a time before AWS Batch existed is refused", time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), "from 2017-01-01T00:00:00Z"},
		{"a time two days ahead is refused", now.Add(48 * time.Hour).UnixMilli(), "to 2026-11-30T17:30:00Z"},
		{"a negative time is refused", -5, "createdAt -5"},
		{"the largest int64 is refused", math.MaxInt64, "9223372036854775807"},
		{"the smallest int64 is refused", math.MinInt64, "-9223372036854775808"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := batchrules.CheckTime("createdAt", tt.ms, now)
			if (err != nil) != (tt.mentions != "") {
				t.Fatalf("CheckTime(%d) = %v", tt.ms, err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.mentions) {
				t.Errorf("error %q does not say %q", err, tt.mentions)
			}
		})
	}
}

func TestCheckQuantity(t *testing.T) {
	for _, q := range []float64{0, 1, 0.5, batchrules.MaxQuantity} {
		if err := batchrules.CheckQuantity("q", q); err != nil {
			t.Errorf("CheckQuantity(%v) = %v", q, err)
		}
	}
	for _, q := range []float64{-1, math.NaN(), math.Inf(1), math.Inf(-1), batchrules.MaxQuantity + 1, 1e308} {
		if err := batchrules.CheckQuantity("q", q); err == nil {
			t.Errorf("CheckQuantity(%v) accepted", q)
		}
	}
}

func TestUsageSkipsWhatIsNotAnInstanceCount(t *testing.T) {
	u := (&batchrules.QueueUtilization{
		TotalCapacityUsage: []batchrules.CapacityUsage{
			{CapacityUnit: "ml.p5.48xlarge", Quantity: 4},
			{CapacityUnit: "", Quantity: 1},
			{CapacityUnit: "ml.p5.48xlarge\u00e9", Quantity: 1},
			{CapacityUnit: strings.Repeat("m", 300), Quantity: 1},
			{CapacityUnit: "ml.p4d.24xlarge", Quantity: -3},
			{CapacityUnit: "ml.g5.xlarge", Quantity: 1e308},
			{CapacityUnit: "ml.g5.xlarge", Quantity: 1e308},
			{CapacityUnit: "ml.g6.xlarge", Quantity: 900_000},
			{CapacityUnit: "ml.g6.xlarge", Quantity: 900_000},
		},
		QuotaShareUtilization: &batchrules.ShareUtilization{TopCapacityUtilization: []batchrules.ShareCapacityUsage{
			{Share: "vision", CapacityUsage: []batchrules.CapacityUsage{{CapacityUnit: "ml.p5.48xlarge", Quantity: 2}, {CapacityUnit: "ml.p5.48xlarge", Quantity: math.Inf(1)}}},
		}},
	}).Usage()
	if diff := cmp.Diff(map[string]float64{"ml.p5.48xlarge": 4}, u.ByType); diff != "" {
		t.Errorf("by type (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]map[string]float64{"vision": {"ml.p5.48xlarge": 2}}, u.ByShare); diff != "" {
		t.Errorf("by share (-want +got):\n%s", diff)
	}
	if len(u.Skipped) != 8 {
		t.Errorf("%d entries skipped, want 8:\n%s", len(u.Skipped), strings.Join(u.Skipped, "\n"))
	}
	for _, s := range u.Skipped {
		if !strings.Contains(s, "totalCapacityUsage") && !strings.Contains(s, "topCapacityUtilization") {
			t.Errorf("skipped entry %q does not name where it was", s)
		}
	}
}

func TestBlockedReasons(t *testing.T) {
	tests := []struct {
		statusReason, blocked, ended string
	}{
		{"MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Quota share limits cannot meet the capacity requirement of the job.", batchrules.ReasonQuotaManagementLimitExceeded, ""},
		{"CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Service cannot fulfill the capacity requested for instance type ml.p5.48xlarge", batchrules.ReasonInsufficientCapacity, ""},
		{"MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE", batchrules.ReasonServiceEnvironmentMaxResource, ""},
		{"MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCEX", "", ""},
		{"blocked-reason", "", ""},
		{"Terminated by JobStateTimeLimit action due to reason: MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE", "", batchrules.ReasonServiceEnvironmentMaxResource},
		{"Terminated by JobStateTimeLimit action due to reason: SOMETHING", "", ""},
	}
	for _, tt := range tests {
		if got := batchrules.BlockedReason(tt.statusReason); got != tt.blocked {
			t.Errorf("BlockedReason(%q) = %q, want %q", tt.statusReason, got, tt.blocked)
		}
		got, ok := batchrules.EndedByTimeLimit(tt.statusReason)
		if got != tt.ended || ok != (tt.ended != "") {
			t.Errorf("EndedByTimeLimit(%q) = %q, %v, want %q", tt.statusReason, got, ok, tt.ended)
		}
	}
}

func TestParseServiceJobRef(t *testing.T) {
	q, _ := batchrules.ParseJobQueueARN(queueARN)
	tests := []struct {
		name, in  string
		want      batchrules.ServiceJobRef
		wantErr   bool
		sameQueue bool
	}{
		{"a job id", "4c7599ae-0a82-49aa-ba5a-4727fcce14a8", batchrules.ServiceJobRef{ID: "4c7599ae-0a82-49aa-ba5a-4727fcce14a8"}, false, true},
		{"a job ARN of the queue's account and Region", "arn:aws:batch:us-east-1:123456789012:service-job/j-1",
			batchrules.ServiceJobRef{ID: "j-1", ARN: "arn:aws:batch:us-east-1:123456789012:service-job/j-1", Partition: "aws", Region: "us-east-1", Account: "123456789012"}, false, true},
		{"a job ARN of another account", "arn:aws:batch:us-east-1:210987654321:service-job/j-1",
			batchrules.ServiceJobRef{ID: "j-1", ARN: "arn:aws:batch:us-east-1:210987654321:service-job/j-1", Partition: "aws", Region: "us-east-1", Account: "210987654321"}, false, false},
		{"a container job's ARN is no service job", "arn:aws:batch:us-east-1:123456789012:job/j-1", batchrules.ServiceJobRef{}, true, false},
		{"an id with a slash", "a/b", batchrules.ServiceJobRef{}, true, false},
		{"an ARN whose id has a slash", "arn:aws:batch:us-east-1:123456789012:service-job/a/b", batchrules.ServiceJobRef{}, true, false},
		{"an empty id", "", batchrules.ServiceJobRef{}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := batchrules.ParseServiceJobRef(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if err == nil && got.SameAccountAndRegion(q) != tt.sameQueue {
				t.Errorf("SameAccountAndRegion = %v, want %v", !tt.sameQueue, tt.sameQueue)
			}
		})
	}
}
