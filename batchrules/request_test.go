package batchrules

import (
	"strings"
	"testing"
)

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

// TestReadRequestedNamesTheMember: what the re-router logs of a payload it
// cannot read names the member; a heterogeneous cluster is no error but
// has no one type; an empty or null InstanceGroups is no cluster.
func TestReadRequestedNamesTheMember(t *testing.T) {
	cases := []struct {
		name, payload string
		want          Requested
		err           string // a part of the error; "" for none
	}{
		{"a training job on 2 × p4d", `{"ResourceConfig":{"InstanceCount":2,"InstanceType":"ml.p4d.24xlarge","InstanceGroups":null}}`, Requested{InstanceType: "ml.p4d.24xlarge", Count: 2}, ""},
		{"an empty InstanceGroups", `{"ResourceConfig":{"InstanceCount":1,"InstanceType":"ml.p5.48xlarge","InstanceGroups":[]}}`, Requested{InstanceType: "ml.p5.48xlarge", Count: 1}, ""},
		{"a heterogeneous cluster", `{"ResourceConfig":{"InstanceGroups":[{"InstanceType":"ml.p5.48xlarge","InstanceCount":1,"InstanceGroupName":"a"}]}}`, Requested{Heterogeneous: true}, ""},
		{"no ResourceConfig", `{}`, Requested{}, "no ResourceConfig"},
		// MaxRequestedInstances is 1,000,000: one more is refused.
		{"1,000,001 instances", `{"ResourceConfig":{"InstanceCount":1000001,"InstanceType":"ml.p5.48xlarge"}}`, Requested{}, `ResourceConfig.InstanceCount "1000001"`},
		{"a count written as a string", `{"ResourceConfig":{"InstanceCount":"2","InstanceType":"ml.p5.48xlarge"}}`, Requested{}, "serviceRequestPayload"},
		{"a type that is no instance type", `{"ResourceConfig":{"InstanceCount":1,"InstanceType":"p5"}}`, Requested{}, `ResourceConfig.InstanceType "p5"`},
		{"an array", `[1]`, Requested{}, "serviceRequestPayload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadRequested(tc.payload)
			if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ReadRequested = %+v, %v; want %+v, an error with %q", got, err, tc.want, tc.err)
			}
		})
	}
}
