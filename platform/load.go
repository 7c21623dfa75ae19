package platform

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the embedded default platform file.
func DefaultYAML() []byte { return bytes.Clone(defaultYAML) }

// Default returns the embedded default platform, with defaults applied and
// validated.
func Default() *Platform {
	p, err := Parse(defaultYAML)
	if err != nil {
		panic(fmt.Sprintf("platform: embedded default is invalid: %v", err))
	}
	return p
}

// LoadFile reads, defaults and validates a platform file (YAML or JSON).
func LoadFile(path string) (*Platform, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read platform file: %w", err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("platform file %s: %w", path, err)
	}
	return p, nil
}

// Parse decodes a platform from YAML or JSON (JSON is YAML), applies defaults
// and validates it. Every problem is reported at once in a *ValidationError:
// unknown keys, values of the wrong type and values out of range.
func Parse(data []byte) (*Platform, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parse platform: %w", err)
	}
	var raw any
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("parse platform: %w", err)
	}
	if raw == nil {
		raw = map[string]any{}
	}
	var problems Problems
	checkShape(&problems, "", raw, reflect.TypeOf(Platform{}))
	if _, ok := raw.(map[string]any); !ok {
		return nil, &ValidationError{Problems: problems}
	}
	var p Platform
	if err := json.Unmarshal(js, &p); err != nil {
		// A value of the wrong type is skipped by Unmarshal, which decodes
		// the rest; checkShape has named each such value.
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || len(problems) == 0 {
			return nil, fmt.Errorf("parse platform: %w", err)
		}
	}
	checkExplicitZeros(&problems, raw)
	shaped := problems
	p.ApplyDefaults()
	if err := p.Validate(); err != nil {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		for _, vp := range ve.Problems {
			if !under(vp.Field, shaped) {
				problems = append(problems, vp)
			}
		}
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return &p, nil
}

// under reports whether field is, or lies under, a field already reported:
// a value of the wrong type is decoded as zero, which must not be reported
// a second time.
func under(field string, ps Problems) bool {
	for _, p := range ps {
		if field == p.Field || strings.HasPrefix(field, p.Field+".") || strings.HasPrefix(field, p.Field+"[") {
			return true
		}
	}
	return false
}

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

// checkShape walks the decoded document against the Go type and reports
// unknown keys and values of the wrong JSON type, so that a file with several
// mistakes gets all of them listed.
func checkShape(ps *Problems, path string, v any, t reflect.Type) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil {
		return
	}
	field := path
	if field == "" {
		field = "(top level)"
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			ps.add(field, v, "a mapping")
			return
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := fields[k]
			if !ok {
				known := make([]string, 0, len(fields))
				for name := range fields {
					known = append(known, name)
				}
				sort.Strings(known)
				ps.addf(join(path, quoteEmpty(k)), "(unknown key)", "one of: %s", strings.Join(known, ", "))
				continue
			}
			checkShape(ps, join(path, k), m[k], f.Type)
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			ps.add(path, v, "a list")
			return
		}
		for i, e := range a {
			checkShape(ps, fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			ps.add(path, v, "a mapping")
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			checkShape(ps, join(path, quoteEmpty(k)), m[k], t.Elem())
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			ps.add(path, v, "a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			ps.add(path, v, "true or false")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			ps.add(path, v, "a whole number")
		}
	case reflect.Float64:
		if _, ok := v.(float64); !ok {
			ps.add(path, v, "a number")
		}
	}
}

func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = f
	}
	return out
}

func quoteEmpty(k string) string {
	if k == "" {
		return `""`
	}
	return k
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// JSON returns the platform as compact JSON, the form bundled with the
// submission and observer functions.
func (p *Platform) JSON() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("platform: marshal: %v", err))
	}
	return b
}
