package platform

import "fmt"

// checkExplicitZeros reports a written 0 where 0 stands for "omitted", so
// that an explicit 0 is refused instead of silently replaced by the default.
func checkExplicitZeros(ps *Problems, raw any) {
	m, _ := raw.(map[string]any)
	zero := func(obj any, key, field, allowed string) {
		om, _ := obj.(map[string]any)
		if v, ok := om[key].(float64); ok && v == 0 {
			ps.add(field, v, allowed+" (0 is not a value; omit the field for the default)")
		}
	}
	teams, _ := m["teams"].([]any)
	for i, t := range teams {
		zero(t, "weight", fmt.Sprintf("teams[%d].weight", i), fmt.Sprintf("%g to %g", MinWeight, MaxWeight))
	}
	classes, _ := m["classes"].([]any)
	for i, c := range classes {
		zero(c, "maxRuntimeSeconds", fmt.Sprintf("classes[%d].maxRuntimeSeconds", i), fmt.Sprintf("1 to %d (28 days)", MaxRuntimeSecondsLimit))
	}
	mon := m["monitoring"]
	zero(mon, "utilizationTargetPercent", "monitoring.utilizationTargetPercent", "1 to 100")
	zero(mon, "idleAlarmSeconds", "monitoring.idleAlarmSeconds", "60 to 86400, whole minutes")
	zero(mon, "logRetentionDays", "monitoring.logRetentionDays", "one of CloudWatch Logs' retentions (1, 3, 5, 7, 14, 30, …, 3653)")
}
