package platform

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// The explicit-zero rule.
//
// A plain number field (int, float64) has no way to say "omitted" but 0, so
// ApplyDefaults fills it when it is 0. A 0 written in a file would then be
// silently replaced by the default. Every such field carries the struct tag
//
//	zero:"refuse"
//
// and Parse refuses a 0 written there, with the field's path in the file
// (teams[0].weight), the value and what is allowed: zeroAllowed()[field] and
// zeroHint. The rule is read from the tags, so a field is covered by its
// declaration; TestEveryDefaultedNumberRefusesAnExplicitZero fails when
// ApplyDefaults replaces a written 0 of a field without the tag.
//
// Pointer fields (*int, *bool) need no tag: nil is "omitted", and a written 0
// or false is a value that is kept (queuePriority: 0, awsManagedImages:
// false).
const (
	zeroTag    = "zero"
	zeroRefuse = "refuse"
	zeroHint   = " (0 is not a value; omit the field for the default)"
)

// zeroAllowed is what a zero:"refuse" field allows, keyed by the Go type and
// field name (fieldKey). Every tagged field has an entry, and every entry a
// tagged field (TestEveryZeroTagHasItsAllowedRange). It is built at its
// first use, by a file with an explicit 0, rather than at every function's
// start.
var zeroAllowed = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"Class.MaxRuntimeSeconds":             fmt.Sprintf("1 to %d (28 days)", MaxRuntimeSecondsLimit),
		"Team.Weight":                         fmt.Sprintf("%g to %g", MinWeight, MaxWeight),
		"Monitoring.UtilizationTargetPercent": "1 to 100",
		"Monitoring.IdleAlarmSeconds":         "60 to 86400, whole minutes",
		"Monitoring.LogRetentionDays":         "one of CloudWatch Logs' retentions (1, 3, 5, 7, 14, 30, …, 3653)",
		"Training.LogRetentionDays":           "one of CloudWatch Logs' retentions (1, 3, 5, 7, 14, 30, …, 3653)",
		"Reroute.AfterSeconds":                fmt.Sprintf("%d to %d", MinRerouteAfterSeconds, MaxRerouteAfterSeconds),
		"Reroute.MaxMoves":                    fmt.Sprintf("1 to %d", MaxRerouteMoves),
		"Checkpoints.IntervalSeconds":         fmt.Sprintf("%d to %d", MinCheckpointSeconds, MaxCheckpointSeconds),
		"Rerouting.MaxMovesPerMinute":         fmt.Sprintf("1 to %d", MaxMovesPerMinuteLimit),
		"Rerouting.EveryMinutes":              "1 to 60",
		"Ledger.RetentionDays":                fmt.Sprintf("1 to %d", MaxLedgerRetentionDays),
	}
})

// fieldKey names a struct field of t as zeroAllowed keys it: "Team.Weight".
func fieldKey(t reflect.Type, f reflect.StructField) string { return t.Name() + "." + f.Name }

// checkExplicitZeros walks the decoded document v against the Go type t, as
// checkShape does, and reports a 0 written for a zero:"refuse" field, so that
// an explicit 0 is refused instead of silently replaced by the default.
// Fields come in declaration order, list entries in index order and mapping
// keys in alphabetical order. A value of the wrong JSON type is skipped:
// checkShape has reported it.
func checkExplicitZeros(ps *Problems, path string, v any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, _ := v.(map[string]any)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			fv, ok := m[name]
			if name == "" || name == "-" || !ok {
				continue
			}
			field := join(path, name)
			if f.Tag.Get(zeroTag) == zeroRefuse {
				if n, ok := fv.(float64); ok && n == 0 {
					ps.Add(field, n, zeroAllowed()[fieldKey(t, f)]+zeroHint)
				}
				continue
			}
			checkExplicitZeros(ps, field, fv, f.Type)
		}
	case reflect.Slice:
		a, _ := v.([]any)
		for i, e := range a {
			checkExplicitZeros(ps, fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
	case reflect.Map:
		m, _ := v.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			checkExplicitZeros(ps, join(path, quoteEmpty(k)), m[k], t.Elem())
		}
	}
}
