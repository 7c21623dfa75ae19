package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/trainq/trainq/contract"
)

// Events are decoded member by member, so that one unreadable member costs
// only what depends on it (fieldProblems says which top-level member is at
// fault), never the whole event:
//
//   - member names are matched exactly, as AWS spells them: encoding/json
//     would let "STATUS" fill status;
//   - a member given twice is unreadable: which one Batch meant is unknown;
//   - a value of the wrong type is unreadable and left unset (nil, zero);
//   - unknown members are ignored, whatever they hold.

// fieldProblem is one unreadable member: its path in the event
// (detail.attempts[1].startedAt) and what is wrong.
type fieldProblem struct {
	Path, What string
}

func (p fieldProblem) String() string { return p.Path + ": " + p.What }

// top is the event member the problem is under, as dependencies name it:
// "detail.attempts" for detail.attempts[1].startedAt, "id" for id.
func (p fieldProblem) top() string {
	path := p.Path
	rest, inDetail := strings.CutPrefix(path, "detail.")
	if inDetail {
		path = rest
	}
	if i := strings.IndexAny(path, ".["); i >= 0 {
		path = path[:i]
	}
	if inDetail {
		return "detail." + path
	}
	return path
}

// decodeMembers fills the struct pointed to by v from the JSON object raw,
// by exact json tag names, and returns the unreadable members under path.
func decodeMembers(raw []byte, v any, path string) []fieldProblem {
	var ps []fieldProblem
	decodeValue(raw, reflect.ValueOf(v).Elem(), path, &ps)
	return ps
}

// decodeValue decodes raw into v (settable), adding a problem for each part
// that does not fit. A value of the wrong type is left at its zero value and
// decodeValue reports false; an object with unreadable members, or a list
// with unreadable items, is kept with those parts zero (their problems say
// which), and decodeValue reports true.
func decodeValue(raw []byte, v reflect.Value, path string, ps *[]fieldProblem) bool {
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, []byte("null")) {
		v.Set(reflect.Zero(v.Type()))
		return true
	}
	switch v.Kind() {
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if !decodeValue(raw, elem.Elem(), path, ps) {
			v.Set(reflect.Zero(v.Type()))
			return false
		}
		v.Set(elem)
		return true
	case reflect.Struct:
		members, err := contract.SplitObject(raw)
		if err != nil {
			*ps = append(*ps, fieldProblem{path, "not an object (" + kindOf(raw) + ")"})
			return false
		}
		fields := fieldsOf(v.Type())
		seen := map[string]bool{}
		for _, m := range members {
			i, known := fields[m.Name]
			if !known {
				continue
			}
			f := v.Field(i)
			p := join(path, m.Name)
			if seen[m.Name] {
				*ps = append(*ps, fieldProblem{p, "given twice"})
				f.Set(reflect.Zero(f.Type()))
				continue
			}
			seen[m.Name] = true
			decodeValue(m.Value, f, p, ps)
		}
		return true
	case reflect.Slice:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			*ps = append(*ps, fieldProblem{path, "not a list (" + kindOf(raw) + ")"})
			v.Set(reflect.Zero(v.Type()))
			return false
		}
		out := reflect.MakeSlice(v.Type(), len(items), len(items))
		for i, item := range items {
			decodeValue(item, out.Index(i), path+"["+strconv.Itoa(i)+"]", ps)
		}
		v.Set(out)
		return true
	}
	if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
		*ps = append(*ps, fieldProblem{path, fmt.Sprintf("got %s, want %s", kindOf(raw), wantOf(v.Type()))})
		v.Set(reflect.Zero(v.Type()))
		return false
	}
	return true
}

// kindOf names a raw JSON value for a problem, bounded.
func kindOf(raw []byte) string { return contract.DescribeJSON(raw) }

func wantOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	}
	return t.String()
}

var fieldCache sync.Map // reflect.Type → map[string]int

// fieldsOf maps the exact json names of t's fields to their index.
func fieldsOf(t reflect.Type) map[string]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	fieldCache.Store(t, m)
	return m
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
