package batchrules

import "testing"

func TestRequestedInstancesReadsResourceConfig(t *testing.T) {
	cases := []struct {
		name, payload string
		typ           string
		n             int
		ok            bool
	}{
		{"a training job on 4 × p5", `{"TrainingJobName":"x","ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":4,"VolumeSizeInGB":100}}`, "ml.p5.48xlarge", 4, true},
		{"no ResourceConfig", `{"TrainingJobName":"x"}`, "", 0, false},
		{"a heterogeneous cluster has no one type", `{"ResourceConfig":{"InstanceGroups":[{"InstanceType":"ml.p5.48xlarge","InstanceCount":1,"InstanceGroupName":"a"}]}}`, "", 0, false},
		{"a fractional count", `{"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":1.5}}`, "", 0, false},
		{"a zero count", `{"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":0}}`, "", 0, false},
		{"a type that is no instance type", `{"ResourceConfig":{"InstanceType":"p5","InstanceCount":1}}`, "", 0, false},
		{"no JSON", `ResourceConfig`, "", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			typ, n, ok := RequestedInstances(tc.payload)
			if typ != tc.typ || n != tc.n || ok != tc.ok {
				t.Errorf("RequestedInstances = %q, %d, %v; want %q, %d, %v", typ, n, ok, tc.typ, tc.n, tc.ok)
			}
		})
	}
}
