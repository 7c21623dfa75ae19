package reroute

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzWithInstanceType: for any JSON object with a ResourceConfig object,
// withInstanceType changes ResourceConfig.InstanceType and nothing else
// (numbers kept as written), and its output is one JSON object.
func FuzzWithInstanceType(f *testing.F) {
	for _, seed := range []string{
		`{"ResourceConfig":{"InstanceCount":2,"InstanceType":"ml.p5.48xlarge"}}`,
		`{"HyperParameters":{"lr":"0.001","x":"<&>"},"ResourceConfig":{"InstanceCount":1,"InstanceType":"ml.p5.48xlarge","VolumeSizeInGB":100},"StoppingCondition":{"MaxRuntimeInSeconds":1e3}}`,
		`{"ResourceConfig":{},"Big":123456789012345678901234567890,"Float":0.1000000000000000055511151231257827}`,
		`{"ResourceConfig":{"InstanceType":"a"},"Unicode":"\u00e9\ud83d\ude00","Nested":[[{"a":null}]]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		want, ok := decodeObject(payload)
		if !ok {
			return
		}
		rc, ok := want["ResourceConfig"].(map[string]any)
		if !ok {
			return
		}
		out, err := withInstanceType(payload, "ml.p4d.24xlarge")
		if err != nil {
			t.Fatalf("withInstanceType(%q): %v", payload, err)
		}
		rc["InstanceType"] = "ml.p4d.24xlarge"
		got, ok := decodeObject(string(out))
		if !ok {
			t.Fatalf("output %q is no JSON object", out)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("payload %q became %q", payload, out)
		}
	})
}

func decodeObject(s string) (map[string]any, bool) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil || d.More() {
		return nil, false
	}
	return m, true
}
