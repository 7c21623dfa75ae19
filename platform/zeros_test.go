package platform

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestTheExplicitZeroRule: a 0 written for a zero:"refuse" field is refused
// with the field's path, the value and its range; a 0 or false written
// anywhere else is left to the other checks. The expected problems are
// written out by hand.
func TestTheExplicitZeroRule(t *testing.T) {
	// hint ends every message of the rule.
	const hint = " (0 is not a value; omit the field for the default)"
	cases := []struct {
		name   string
		base   func() doc
		change func(testing.TB, doc)
		want   Problems // nil: the file is valid
	}{
		{
			name: "a fair-share team's weight of 0 is refused with the weight range",
			base: fairshareDoc, change: to("teams.0.weight", 0),
			want: Problems{{Field: "teams[0].weight", Value: "0", Allowed: "0.0001 to 999.9999" + hint}},
		},
		{
			name: "a weight written as 0.0 is a 0 too",
			base: fairshareDoc, change: to("teams.1.weight", 0.0),
			want: Problems{{Field: "teams[1].weight", Value: "0", Allowed: "0.0001 to 999.9999" + hint}},
		},
		{
			// Today's message: the zero rule speaks first, and the quota-mode
			// check sees no weight, so the user hears of it once.
			name: "a weight of 0 in quota mode is refused once, as a 0",
			base: quotaDoc, change: to("teams.1.weight", 0),
			want: Problems{{Field: "teams[1].weight", Value: "0", Allowed: "0.0001 to 999.9999" + hint}},
		},
		{
			name: "a class's maxRuntimeSeconds of 0 is refused with the runtime range (28 days = 2419200 s)",
			base: quotaDoc, change: withClasses(to("classes.2.maxRuntimeSeconds", 0)),
			want: Problems{{Field: "classes[2].maxRuntimeSeconds", Value: "0", Allowed: "1 to 2419200 (28 days)" + hint}},
		},
		{
			name: "a utilization target of 0 is refused with its percentage range",
			base: quotaDoc, change: to("monitoring.utilizationTargetPercent", 0),
			want: Problems{{Field: "monitoring.utilizationTargetPercent", Value: "0", Allowed: "1 to 100" + hint}},
		},
		{
			name: "an idle alarm window of 0 is refused with its range in whole minutes",
			base: quotaDoc, change: to("monitoring.idleAlarmSeconds", 0),
			want: Problems{{Field: "monitoring.idleAlarmSeconds", Value: "0", Allowed: "60 to 86400, whole minutes" + hint}},
		},
		{
			name: "a log retention of 0 is refused with CloudWatch Logs' retentions",
			base: quotaDoc, change: to("monitoring.logRetentionDays", 0),
			want: Problems{{Field: "monitoring.logRetentionDays", Value: "0", Allowed: "one of CloudWatch Logs' retentions (1, 3, 5, 7, 14, 30, …, 3653)" + hint}},
		},
		{
			name: "zeros in several sections are listed in the order of the file's sections: classes, teams, monitoring",
			base: fairshareDoc, change: func(t testing.TB, d doc) {
				d["classes"] = defaultClassesDoc()
				set(t, d, "monitoring.logRetentionDays", 0)
				set(t, d, "teams.1.weight", 0)
				set(t, d, "teams.0.weight", 0)
				set(t, d, "classes.1.maxRuntimeSeconds", 0)
			},
			want: Problems{
				{Field: "classes[1].maxRuntimeSeconds", Value: "0", Allowed: "1 to 2419200 (28 days)" + hint},
				{Field: "teams[0].weight", Value: "0", Allowed: "0.0001 to 999.9999" + hint},
				{Field: "teams[1].weight", Value: "0", Allowed: "0.0001 to 999.9999" + hint},
				{Field: "monitoring.logRetentionDays", Value: "0", Allowed: "one of CloudWatch Logs' retentions (1, 3, 5, 7, 14, 30, …, 3653)" + hint},
			},
		},
		{
			name: "a zero next to other mistakes comes after the unknown keys and before the range checks",
			base: quotaDoc, change: func(t testing.TB, d doc) {
				set(t, d, "monitoring.idleAlarmSeconds", 90)
				set(t, d, "monitoring.utilizationTargetPercent", 0)
				set(t, d, "monitoring.colour", "red")
			},
			want: Problems{
				{Field: "monitoring.colour", Value: "(unknown key)", Allowed: "one of: alarmEmails, enabled, failureAlarmClasses, idleAlarmSeconds, logRetentionDays, maxWaitSeconds, page, pagingClasses, runbookUrl, ticket, utilizationTargetPercent"},
				{Field: "monitoring.utilizationTargetPercent", Value: "0", Allowed: "1 to 100" + hint},
				{Field: "monitoring.idleAlarmSeconds", Value: "90", Allowed: "60 to 86400, whole minutes"},
			},
		},
		{
			name: "a 0 written as a string is a value of the wrong type, not a 0",
			base: fairshareDoc, change: to("teams.0.weight", "0"),
			want: Problems{{Field: "teams[0].weight", Value: `"0"`, Allowed: "a number"}},
		},
		{
			name: "a 0 under a misspelt key is an unknown key, not a 0",
			base: fairshareDoc, change: to("teams.0.wieght", 0),
			want: Problems{{Field: "teams[0].wieght", Value: "(unknown key)", Allowed: "one of: borrowLimitPercent, budgets, capacity, inSharePreemption, name, sharing, training, weight"}},
		},
		{
			name: "a pool of 0 instances has no default, so validation says what is allowed",
			base: quotaDoc, change: to("pools.1.instances", 0),
			want: Problems{{Field: "pools[1].instances", Value: "0", Allowed: "at least 1"}},
		},
		{
			name: "a wait threshold of 0 is kept for validation, which refuses it with its own range",
			base: quotaDoc, change: to("monitoring.maxWaitSeconds.sweep", 0),
			want: Problems{{Field: "monitoring.maxWaitSeconds.sweep", Value: "0", Allowed: "60 to 604800 seconds"}},
		},
		{
			name: "a class band from 0 to 0 is a value: priorities have no default",
			base: quotaDoc, change: withClasses(to("classes.2.priority", doc{"min": 0, "max": 0})),
		},
		{
			name: "queuePriority, retries, preemptionRetries and borrowLimitPercent of 0 are values (pointers: omitted is nil)",
			base: quotaDoc, change: func(t testing.TB, d doc) {
				d["classes"] = defaultClassesDoc()
				set(t, d, "scheduling.queuePriority", 0)
				set(t, d, "classes.0.retries", 0)
				set(t, d, "classes.0.preemptionRetries", 0)
				set(t, d, "teams.0.borrowLimitPercent", 0)
			},
		},
		{
			name: "shareDecaySeconds and computeReservation of 0 are values in fair-share mode",
			base: fairshareDoc, change: func(t testing.TB, d doc) {
				set(t, d, "scheduling.shareDecaySeconds", 0)
				set(t, d, "scheduling.computeReservation", 0)
			},
		},
		{
			name: "false is a value: monitoring, in-share preemption and AWS's images turned off",
			base: quotaDoc, change: func(t testing.TB, d doc) {
				set(t, d, "monitoring.enabled", false)
				set(t, d, "teams.0.inSharePreemption", false)
				set(t, d, "training.awsManagedImages", false)
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.base()
			tc.change(t, d)
			data := render(t, d)
			_, err := Parse(data)
			var got Problems
			if err != nil {
				got = problemsOf(t, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\nfile:\n%s", diff, data)
			}
		})
	}
}

// TestAZeroInJSONIsRefusedLikeOneInYAML: JSON is YAML; the rule reads the
// decoded document, so both spellings of a file get the same problem.
func TestAZeroInJSONIsRefusedLikeOneInYAML(t *testing.T) {
	yamlFile := `
pools: [{instanceType: ml.p5.48xlarge, instances: 4}]
teams: [{name: a, capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]}]
classes: [{name: c, priority: {min: 1, max: 2}, maxRuntimeSeconds: 0}]
`
	jsonFile := `{"pools": [{"instanceType": "ml.p5.48xlarge", "instances": 4}],
 "teams": [{"name": "a", "capacity": [{"instanceType": "ml.p5.48xlarge", "instances": 4}]}],
 "classes": [{"name": "c", "priority": {"min": 1, "max": 2}, "maxRuntimeSeconds": 0.0}]}`
	want := Problems{{Field: "classes[0].maxRuntimeSeconds", Value: "0", Allowed: "1 to 2419200 (28 days) (0 is not a value; omit the field for the default)"}}
	for name, file := range map[string]string{"YAML": yamlFile, "JSON": jsonFile} {
		_, err := Parse([]byte(file))
		if diff := cmp.Diff(want, problemsOf(t, err)); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", name, diff)
		}
	}
}

// TestEveryDefaultedNumberRefusesAnExplicitZero walks every field of
// Platform and finds, by running ApplyDefaults, the number fields whose
// written 0 it replaces; each must carry zero:"refuse", and each tagged
// field must be one of them.
//
// Which fields "get a default" is found, not listed: a list kept here by hand
// would let a new field escape exactly as the old list in load.go did. The
// question asked of ApplyDefaults is "does a written 0 survive?", not "is the
// default non-zero?", because that is what a user loses: queuePriority
// defaults to 10, but it is a *int, ApplyDefaults fills only nil, and a
// written 0 is kept (TestExplicitFalseAndZeroAreKept). So the skeleton writes
// every number as 0 — a plain 0, or a pointer to 0 — and a number that comes
// out of ApplyDefaults not 0 was replaced.
//
// The skeleton has one entry in every list and mapping and every optional
// struct set, so that every field exists (a default applied to an empty list,
// such as the default classes, is not a written 0 replaced), and it is tried
// in each mode, the one field ApplyDefaults branches on. If ApplyDefaults ever
// branches on another field, add its values to skeletons.
func TestEveryDefaultedNumberRefusesAnExplicitZero(t *testing.T) {
	type defaulted struct {
		path string  // in the file, e.g. teams[0].weight
		to   float64 // the default that replaced the 0
		mode Mode
	}
	replaced := map[string]defaulted{} // by fieldKey
	for _, mode := range []Mode{ModeQuota, ModeFairShare} {
		p := skeleton(mode)
		seen := map[string]bool{}
		p.ApplyDefaults()
		walkNumbers(reflect.ValueOf(p).Elem(), "", func(path, key string, f reflect.StructField, n float64) {
			seen[key] = true
			if _, ok := replaced[key]; !ok && n != 0 {
				replaced[key] = defaulted{path, n, mode}
			}
		})
		// The skeleton reaches every number field of every type under
		// Platform; a field it cannot reach would escape the test.
		for key := range numberFieldsOf(reflect.TypeOf(Platform{})) {
			if !seen[key] {
				t.Errorf("%s mode: the skeleton does not reach the number field %s", mode, key)
			}
		}
	}

	tags := numberFieldsOf(reflect.TypeOf(Platform{}))
	for key, d := range replaced {
		if tags[key].Tag.Get("zero") != "refuse" {
			t.Errorf(`%s (%s): ApplyDefaults replaces a written 0 by %g in %s mode, but the field has no zero:"refuse" tag, so a 0 in the file would be silently replaced`, d.path, key, d.to, d.mode)
		}
	}
	for key, f := range tags {
		if _, ok := replaced[key]; f.Tag.Get("zero") != "" && !ok {
			t.Errorf(`%s: tagged zero:%q, but ApplyDefaults keeps a written 0 there, so the tag would refuse a value`, key, f.Tag.Get("zero"))
		}
	}

	// The fields known today, by hand, so that a detector that finds nothing
	// does not pass: weight 1, maxRuntimeSeconds 432000, utilization 80 %,
	// idle window 1800 s, log retention 30 days.
	for key, want := range map[string]float64{
		"Team.Weight": 1, "Class.MaxRuntimeSeconds": 432000,
		"Monitoring.UtilizationTargetPercent": 80, "Monitoring.IdleAlarmSeconds": 1800, "Monitoring.LogRetentionDays": 30,
	} {
		if got, ok := replaced[key]; !ok || got.to != want {
			t.Errorf("%s: found replaced by %v (%v), want by %g", key, got.to, ok, want)
		}
	}

	// And through Parse: a 0 written at each such path is refused, once,
	// with the field's range.
	for key, d := range replaced {
		base := quotaDoc
		if d.mode == ModeFairShare {
			base = fairshareDoc
		}
		doc := base()
		doc["classes"] = defaultClassesDoc()
		// A reroute block needs its instance types; the 0 under test must
		// be the only problem.
		if strings.HasPrefix(d.path, "classes[0].reroute.") {
			set(t, doc, "classes.0.reroute.instanceTypes", []any{"ml.p5.48xlarge", "ml.p4d.24xlarge"})
		}
		set(t, doc, strings.NewReplacer("[", ".", "]", "").Replace(d.path), 0)
		_, err := Parse(render(t, doc))
		want := Problems{{Field: d.path, Value: "0", Allowed: zeroAllowed()[key] + zeroHint}}
		if diff := cmp.Diff(want, problemsOf(t, err)); diff != "" {
			t.Errorf("%s: 0 written: problems (-want +got):\n%s", d.path, diff)
		}
	}
}

// TestEveryZeroTagHasItsAllowedRange: the tag says refuse and nothing else,
// sits on a number, and the field has its range in zeroAllowed; zeroAllowed
// names no field without the tag.
func TestEveryZeroTagHasItsAllowedRange(t *testing.T) {
	tagged := map[string]bool{}
	for key, f := range numberFieldsOf(reflect.TypeOf(Platform{})) {
		switch tag, ok := f.Tag.Lookup("zero"); {
		case !ok:
		case tag != "refuse":
			t.Errorf(`%s: zero:%q, want zero:"refuse" (the only rule)`, key, tag)
		case zeroAllowed()[key] == "":
			t.Errorf(`%s: tagged zero:"refuse" but has no range in zeroAllowed`, key)
		default:
			tagged[key] = true
		}
	}
	for key := range zeroAllowed() {
		if !tagged[key] {
			t.Errorf(`zeroAllowed has a range for %s, which is not a number field tagged zero:"refuse"`, key)
		}
	}
	// A zero tag on a field that is not a number would never fire.
	walkTypes(reflect.TypeOf(Platform{}), func(owner reflect.Type, f reflect.StructField) {
		if _, ok := f.Tag.Lookup("zero"); ok && !isNumber(f.Type) {
			t.Errorf("%s: a zero tag on a %s, which is not a number", fieldKey(owner, f), f.Type)
		}
	})
}

// skeleton returns a platform of the given mode in which every list and
// mapping has one entry, every pointer is set and every number is 0 (a plain
// 0, or a pointer to 0): every number field written as 0.
func skeleton(mode Mode) *Platform {
	p := &Platform{}
	fillSkeleton(reflect.ValueOf(p).Elem())
	p.Scheduling.Mode = mode
	return p
}

func fillSkeleton(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillSkeleton(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillSkeleton(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillSkeleton(v.Index(0))
	case reflect.Map:
		e := reflect.New(v.Type().Elem()).Elem()
		fillSkeleton(e)
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.Zero(v.Type().Key()), e)
		v.Set(m)
	}
}

// walkNumbers calls visit for every number field under v (a struct value),
// with its path in the file, its fieldKey and its value (0 for a nil
// pointer).
func walkNumbers(v reflect.Value, path string, visit func(path, key string, f reflect.StructField, n float64)) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fp := join(path, name)
			if isNumber(f.Type) {
				visit(fp, fieldKey(v.Type(), f), f, numberOf(v.Field(i)))
				continue
			}
			walkNumbers(v.Field(i), fp, visit)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), visit)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			walkNumbers(v.MapIndex(k), join(path, quoteEmpty(k.String())), visit)
		}
	}
}

// numberFieldsOf lists the number fields of every struct type under t, by
// fieldKey.
func numberFieldsOf(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	walkTypes(t, func(owner reflect.Type, f reflect.StructField) {
		if isNumber(f.Type) {
			out[fieldKey(owner, f)] = f
		}
	})
	return out
}

// walkTypes calls visit for every field of a JSON name of every struct type
// under t, once per type.
func walkTypes(t reflect.Type, visit func(owner reflect.Type, f reflect.StructField)) {
	done := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || done[t] {
			return
		}
		done[t] = true
		for _, f := range jsonFields(t) {
			visit(t, f)
			walk(f.Type)
		}
	}
	walk(t)
}

// isNumber reports whether t is an int or float kind, or a pointer to one.
func isNumber(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// numberOf is the value of a number field as a float64, 0 for a nil pointer.
func numberOf(v reflect.Value) float64 {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0
		}
		v = v.Elem()
	}
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanUint():
		return float64(v.Uint())
	}
	return v.Float()
}
