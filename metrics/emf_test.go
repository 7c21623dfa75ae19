package metrics_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
)

var at = time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC)

func jobDims() map[string]string {
	return map[string]string{
		metrics.Queue: "trainq-training", metrics.Class: "production", metrics.Team: "search-ranking",
	}
}

func TestEncodeIsReadBackAsCloudWatchWould(t *testing.T) {
	tests := []struct {
		name string
		rec  func() *metrics.Record
		want map[string][]float64
	}{
		{
			name: "a job counter is published under each of its four dimension sets",
			rec: func() *metrics.Record {
				r := &metrics.Record{Time: at, Dimensions: jobDims()}
				r.Add(metrics.JobsStarted, 1)
				return r
			},
			want: map[string][]float64{
				"trainq/JobsStarted{Class=production,Queue=trainq-training,Team=search-ranking}": {1},
				"trainq/JobsStarted{Class=production,Queue=trainq-training}":                     {1},
				"trainq/JobsStarted{Queue=trainq-training,Team=search-ranking}":                  {1},
				"trainq/JobsStarted{Queue=trainq-training}":                                      {1},
			},
		},
		{
			name: "a gauge is published only under the set it is given",
			rec: func() *metrics.Record {
				r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "q", metrics.InstanceType: "ml.p5.48xlarge"}}
				r.Add(metrics.InstancesInUse, 12, []string{metrics.Queue, metrics.InstanceType})
				r.Add(metrics.CapacityUtilization, 30, []string{metrics.Queue, metrics.InstanceType})
				return r
			},
			want: map[string][]float64{
				"trainq/InstancesInUse{InstanceType=ml.p5.48xlarge,Queue=q}":      {12},
				"trainq/CapacityUtilization{InstanceType=ml.p5.48xlarge,Queue=q}": {30},
			},
		},
		{
			name: "properties are kept on the line but publish nothing",
			rec: func() *metrics.Record {
				r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "q"},
					Properties: map[string]any{"reason": "not JSON", "eventId": "e-1"}}
				r.Add(metrics.EventsRejected, 1)
				return r
			},
			want: map[string][]float64{"trainq/EventsRejected{Queue=q}": {1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, err := tt.rec().Encode()
			if err != nil {
				t.Fatal(err)
			}
			ds, err := emftest.ValidateLine(line)
			if err != nil {
				t.Fatalf("%v\n%s", err, line)
			}
			if diff := cmp.Diff(tt.want, emftest.Values(ds)); diff != "" {
				t.Errorf("data points (-want +got):\n%s", diff)
			}
			for _, d := range ds {
				if !d.Time.Equal(at) {
					t.Errorf("%s: time %v, want %v", d.Key(), d.Time, at)
				}
				if m := byName(d.Name); d.Unit != m.Unit {
					t.Errorf("%s: unit %q, want %q", d.Key(), d.Unit, m.Unit)
				}
			}
		})
	}
}

func TestEncodeKeepsProperties(t *testing.T) {
	r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "q"},
		Properties: map[string]any{"reason": "detail-type \"x\" is not handled"}}
	r.Add(metrics.EventsRejected, 1)
	line, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"reason":"detail-type \"x\" is not handled"`) {
		t.Errorf("reason missing from the line: %s", line)
	}
}

func TestEncodeRefusesWhatCloudWatchWouldReject(t *testing.T) {
	tests := []struct {
		name    string
		rec     func() *metrics.Record
		wantErr string
	}{
		{"a record without metrics", func() *metrics.Record {
			return &metrics.Record{Time: at, Dimensions: jobDims()}
		}, "no metrics"},
		{"a dimension set the metric does not list", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: jobDims()}
			r.Add(metrics.EventsRejected, 1, []string{metrics.Queue, metrics.Team})
			return r
		}, "is not one of its sets"},
		{"a dimension without a value", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "q"}}
			r.Add(metrics.JobsFailed, 1, []string{metrics.Queue, metrics.Class})
			return r
		}, `dimension "Class" of set`},
		{"the same metric twice", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: jobDims()}
			r.Add(metrics.JobsFailed, 1, []string{metrics.Queue})
			r.Add(metrics.JobsFailed, 1, []string{metrics.Queue})
			return r
		}, "already used"},
		{"a value that is not a number", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: jobDims()}
			r.Add(metrics.WaitSeconds, math.NaN())
			return r
		}, "not a finite number"},
		{"an empty dimension value", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: " "}}
			r.Add(metrics.EventsRejected, 1)
			return r
		}, "is empty"},
		{"a dimension value that is not ASCII", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "équipe"}}
			r.Add(metrics.EventsRejected, 1)
			return r
		}, "only printable ASCII"},
		{"a property named like a metric", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "q"},
				Properties: map[string]any{"EventsRejected": "x"}}
			r.Add(metrics.EventsRejected, 1)
			return r
		}, "already used"},
		{"a property named _aws", func() *metrics.Record {
			r := &metrics.Record{Time: at, Dimensions: map[string]string{metrics.Queue: "q"},
				Properties: map[string]any{"_aws": "x"}}
			r.Add(metrics.EventsRejected, 1)
			return r
		}, "reserved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.rec().Encode()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func byName(name string) metrics.Metric {
	for _, m := range metrics.All() {
		if m.Name == name {
			return m
		}
	}
	return metrics.Metric{}
}

func TestEncodeDropsLargestPropertiesNeverMetrics(t *testing.T) {
	r := &metrics.Record{Time: at, Dimensions: jobDims(), Properties: map[string]any{
		"jobId": "j-1", "statusReason": strings.Repeat("\x01", 200_000), "message": strings.Repeat("m", 40_000), "small": 3,
	}}
	r.Add(metrics.JobsFailed, 1, []string{metrics.Queue})
	line, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if len(line) > metrics.MaxLineBytes {
		t.Fatalf("line of %d bytes, over %d", len(line), metrics.MaxLineBytes)
	}
	ds := emftest.Lines(t, append(line, '\n'))
	if got := emftest.Values(ds)["trainq/JobsFailed{Queue=trainq-training}"]; len(got) != 1 {
		t.Errorf("the metric was lost: %v", emftest.Values(ds))
	}
	s := string(line)
	for _, kept := range []string{`"jobId":"j-1"`, `"small":3`, `"message":"mmm`, `"droppedProperties":["statusReason"]`} {
		if !strings.Contains(s, kept) {
			t.Errorf("line lacks %s", kept)
		}
	}
	r.Properties[metrics.DroppedProperties] = "x"
	if _, err := r.Encode(); err == nil {
		t.Error("a property named droppedProperties was accepted")
	}
}
