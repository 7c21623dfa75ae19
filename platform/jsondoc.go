package platform

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// jsonKeys is the key check of package platformfile's YAML path for a
// document that is one JSON object — the platform.json the constructs
// bundle with each function, which every cold start reads — by a scan of
// its bytes instead of two YAML parsers (a tenth of the time, and no YAML
// package linked into the functions). It reports the same problems and
// lines (platformfile's TestJSONAndYAMLPathsAgree). ok is false for anything else, and for a
// JSON number that is whole but written with a fraction or an exponent
// (1.0, 1e3): the YAML path turns those into integers (1, 1000), which
// the integer fields accept, so such a document keeps that path.
func jsonKeys(data []byte) (ps Problems, lines map[string]int, ok bool) {
	if !json.Valid(data) {
		return nil, nil, false
	}
	s := &keyScan{data: data, lines: map[string]int{}, line: 1}
	i := s.space(0)
	if data[i] != '{' {
		return nil, nil, false
	}
	// json.Valid holds: the scan needs no error handling of its own, and
	// nothing but white space follows the object.
	if _, ok := s.value(i, "", true); !ok {
		return nil, nil, false
	}
	return s.ps, s.lines, true
}

// keyScan walks a valid JSON document.
type keyScan struct {
	data  []byte
	ps    Problems
	lines map[string]int
	line  int // the line of the scan's position: a line break is only ever white space
}

func (s *keyScan) space(i int) int {
	for ; i < len(s.data); i++ {
		switch s.data[i] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return i
		}
	}
	return i
}

// value scans the value at i, of path; keep says whether its keys are
// recorded (not under a key given twice, whose value the YAML path skips
// as well). It returns the index after the value.
func (s *keyScan) value(i int, path string, keep bool) (int, bool) {
	d := s.data
	switch c := d[i]; {
	case c == '{':
		first := map[string]int{}
		i = s.space(i + 1)
		for d[i] != '}' {
			end := s.str(i)
			key := string(d[i+1 : end-1])
			if strings.IndexByte(key, '\\') >= 0 {
				if err := json.Unmarshal(d[i:end], &key); err != nil {
					return 0, false
				}
			}
			field := FieldPath(path, key)
			at, seen := first[key]
			if keep && seen {
				s.ps.Addf(field, Shown(fmt.Sprintf("given twice, at lines %d and %d", at, s.line)),
					"each key once in a mapping (only the last would be kept)")
			} else if keep {
				first[key] = s.line
				s.lines[field] = s.line
			}
			i = s.space(s.space(end) + 1) // past the colon
			var ok bool
			if i, ok = s.value(i, field, keep && !seen); !ok {
				return 0, false
			}
			if i = s.space(i); d[i] == ',' {
				i = s.space(i + 1)
			}
		}
		return i + 1, true
	case c == '[':
		i = s.space(i + 1)
		for n := 0; d[i] != ']'; n++ {
			var ok bool
			if i, ok = s.value(i, fmt.Sprintf("%s[%d]", path, n), keep); !ok {
				return 0, false
			}
			if i = s.space(i); d[i] == ',' {
				i = s.space(i + 1)
			}
		}
		return i + 1, true
	case c == '"':
		return s.str(i), true
	case c == '-' || c >= '0' && c <= '9':
		j := i
		for j < len(d) && strings.IndexByte("+-0123456789.eE", d[j]) >= 0 {
			j++
		}
		if n := string(d[i:j]); strings.ContainsAny(n, ".eE") {
			if f, err := strconv.ParseFloat(n, 64); err != nil || f == math.Trunc(f) {
				return 0, false
			}
		}
		return j, true
	case c == 't' || c == 'n':
		return i + 4, true // true, null
	default:
		return i + 5, true // false
	}
}

// str returns the index after the string that starts at i.
func (s *keyScan) str(i int) int {
	for i++; s.data[i] != '"'; i++ {
		if s.data[i] == '\\' {
			i++
		}
	}
	return i + 1
}
