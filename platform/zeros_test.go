package platform

import (
	"errors"
	"strings"
	"testing"
)

func TestAnExplicitZeroIsRefusedNotDefaulted(t *testing.T) {
	base := `pools: [{instanceType: ml.p5.48xlarge, instances: 4}]
teams: [{name: a, capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]}]
`
	cases := map[string]struct{ yaml, field string }{
		"a class runtime of 0":      {base + "classes: [{name: c, priority: {min: 1, max: 2}, maxRuntimeSeconds: 0}]\n", "classes[0].maxRuntimeSeconds"},
		"a utilization target of 0": {base + "monitoring: {utilizationTargetPercent: 0}\n", "monitoring.utilizationTargetPercent"},
		"an idle window of 0":       {base + "monitoring: {idleAlarmSeconds: 0}\n", "monitoring.idleAlarmSeconds"},
		"a log retention of 0":      {base + "monitoring: {logRetentionDays: 0}\n", "monitoring.logRetentionDays"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse = %v, want a *ValidationError", err)
			}
			if len(ve.Problems) != 1 || ve.Problems[0].Field != c.field || !strings.Contains(ve.Problems[0].Allowed, "omit the field") {
				t.Errorf("problems = %v, want one on %s saying to omit the field", ve.Problems, c.field)
			}
		})
	}
}

// TestAnExplicitFalseIsAValue: the explicit-zero rule is for numbers that
// stand for "omitted". awsManagedImages: false turns AWS's prebuilt images
// off; it is neither refused nor replaced by the default true, and it stays
// false in the JSON bundled with the functions.
func TestAnExplicitFalseIsAValue(t *testing.T) {
	base := `pools: [{instanceType: ml.p5.48xlarge, instances: 4}]
teams: [{name: a, capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]}]
`
	cases := []struct {
		name string
		yaml string
		want bool
	}{
		{"awsManagedImages: false is kept", base + "training: {awsManagedImages: false}\n", false},
		{"awsManagedImages: true is kept", base + "training: {awsManagedImages: true}\n", true},
		{"awsManagedImages omitted is true", base, true},
		{"awsManagedImages: null is the default true", base + "training: {awsManagedImages: null}\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, []byte(c.yaml))
			if got := p.Training.UsesAWSManagedImages(); got != c.want {
				t.Errorf("UsesAWSManagedImages = %v, want %v", got, c.want)
			}
			back := mustParse(t, p.JSON())
			if got := back.Training.UsesAWSManagedImages(); got != c.want {
				t.Errorf("after JSON and back, UsesAWSManagedImages = %v, want %v", got, c.want)
			}
		})
	}
	if !(Training{}).UsesAWSManagedImages() {
		t.Error("a Training built in Go without AWSManagedImages does not use AWS's images, want it to (the default)")
	}
}
