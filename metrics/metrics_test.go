package metrics_test

import (
	"testing"

	"github.com/trainq/trainq/metrics"
)

func TestEveryMetricIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range metrics.All() {
		if seen[m.Name] {
			t.Errorf("metric %s is listed twice", m.Name)
		}
		seen[m.Name] = true
		if !metrics.ValidUnit(m.Unit) {
			t.Errorf("metric %s: unit %q is not a CloudWatch unit", m.Name, m.Unit)
		}
		if len(m.DimensionSets) == 0 {
			t.Errorf("metric %s has no dimension set", m.Name)
		}
		for _, set := range m.DimensionSets {
			if len(set) > metrics.MaxDimensionsPerSet {
				t.Errorf("metric %s: set %v has more than %d dimensions", m.Name, set, metrics.MaxDimensionsPerSet)
			}
			if set[0] != metrics.Queue {
				t.Errorf("metric %s: set %v does not start with Queue, which every metric carries", m.Name, set)
			}
		}
	}
}

// TestAlarmDimensionSetsExist pins the dimension sets the alarm and dashboard
// constructs use: renaming or dropping one must fail here first.
func TestAlarmDimensionSetsExist(t *testing.T) {
	q, c, tm, it := metrics.Queue, metrics.Class, metrics.Team, metrics.InstanceType
	tests := []struct {
		name   string
		metric metrics.Metric
		dims   []string
	}{
		{"failed jobs per class page the on-call", metrics.JobsFailed, []string{q, c}},
		{"the oldest waiting job per class", metrics.OldestRunnableSeconds, []string{q, c}},
		{"pool utilization for the idle alarm", metrics.CapacityUtilization, []string{q}},
		{"runnable jobs for the idle alarm", metrics.RunnableJobs, []string{q}},
		{"instances in use per type", metrics.InstancesInUse, []string{q, it}},
		{"utilization per type", metrics.CapacityUtilization, []string{q, it}},
		{"utilization per team", metrics.CapacityUtilization, []string{q, tm}},
		{"borrowed instances per team", metrics.BorrowedInstances, []string{q, tm}},
		{"wait per class", metrics.WaitSeconds, []string{q, c}},
		{"starts per class", metrics.JobsStarted, []string{q, c}},
		{"preemptions per class", metrics.JobsPreempted, []string{q, c}},
		{"rejected events", metrics.EventsRejected, []string{q}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.metric.HasDimensions(tt.dims...) {
				t.Errorf("%s is not emitted with %v; its sets are %v", tt.metric.Name, tt.dims, tt.metric.DimensionSets)
			}
		})
	}
}

func TestHasDimensionsIgnoresOrderButNotMembers(t *testing.T) {
	m := metrics.Metric{Name: "m", Unit: metrics.UnitCount, DimensionSets: [][]string{{"Queue", "Class"}}}
	if !m.HasDimensions("Class", "Queue") {
		t.Error("order should not matter")
	}
	if m.HasDimensions("Queue") || m.HasDimensions("Queue", "Class", "Team") || m.HasDimensions("Queue", "Queue") {
		t.Error("a set with other members matched")
	}
}
