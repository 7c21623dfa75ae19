package platform

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// checkShape walks the decoded document against the Go type and reports
// unknown keys and values of the wrong JSON type, so that a file with several
// mistakes gets all of them listed.
// unknownKey is the value shown for a key the platform does not have (with
// its line, when the file's YAML gives one).
const unknownKey = "(unknown key)"

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
			ps.Add(field, v, "a mapping")
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
				ps.Addf(join(path, quoteEmpty(k)), Shown(unknownKey), "one of: %s", strings.Join(known, ", "))
				continue
			}
			checkShape(ps, join(path, k), m[k], f.Type)
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			ps.Add(path, v, "a list")
			return
		}
		for i, e := range a {
			checkShape(ps, fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			ps.Add(path, v, "a mapping")
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
			ps.Add(path, v, "a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			ps.Add(path, v, "true or false")
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		f, ok := v.(float64)
		if !ok || f != float64(int64(f)) {
			ps.Add(path, v, "a whole number")
		}
	case reflect.Float64:
		if _, ok := v.(float64); !ok {
			ps.Add(path, v, "a number")
		}
	}
}

func jsonFields(t reflect.Type) map[string]reflect.StructField {
	if f, ok := fieldsOf.Load(t); ok {
		return f.(map[string]reflect.StructField)
	}
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = f
	}
	fieldsOf.Store(t, out)
	return out
}

// fieldsOf caches jsonFields by type: a platform file's teams and
// classes are structs of the same few types. Its maps are never changed.
var fieldsOf sync.Map

// FieldPath is the path of key under path as problems name it
// (teams[0].capacity; an empty key written ""): the path checkShape, the
// JSON key scan and platformfile's YAML key check all write.
func FieldPath(path, key string) string { return join(path, quoteEmpty(key)) }

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
