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
