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
	var p Platform
	if err := json.Unmarshal(js, &p); err != nil {
		// Only values of the wrong type stop decoding; checkShape has named
		// each of them.
		if len(problems) == 0 {
			return nil, fmt.Errorf("parse platform: %w", err)
		}
		return nil, &ValidationError{Problems: problems}
	}
	p.ApplyDefaults()
	if err := p.Validate(); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			problems = append(problems, ve.Problems...)
		} else {
			return nil, err
		}
	}
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return &p, nil
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
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			ps.add(path, v, "a mapping")
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
				ps.addf(join(path, k), "(unknown key)", "one of: %s", strings.Join(known, ", "))
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
		for k, e := range m {
			checkShape(ps, join(path, k), e, t.Elem())
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
