package platform

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
)

//go:embed default.yaml
var defaultYAML []byte

// defaultJSON is default.yaml as JSON (TestDefaultJSONIsTheYAML in package
// platformfile holds them equal), so that this package reads no YAML.
//
//go:embed default.json
var defaultJSON []byte

// DefaultYAML returns the embedded default platform file.
func DefaultYAML() []byte { return bytes.Clone(defaultYAML) }

// Default returns the embedded default platform, with defaults applied and
// validated.
func Default() *Platform {
	p, err := ParseJSON(defaultJSON)
	if err != nil {
		panic(fmt.Sprintf("platform: embedded default is invalid: %v", err))
	}
	return p
}

// ErrNotJSON is ParseJSON's answer to a document that is not one JSON
// object whose whole numbers are written as integers: package platformfile
// reads such a document as YAML.
var ErrNotJSON = errors.New("not one JSON object with whole numbers written as integers (a YAML platform file is read by the trainq CLI, the simulator and the constructs, which bundle it with each function as platform.json)")

// LoadJSONFile reads, defaults and validates a JSON platform file: the
// platform.json the constructs bundle with each function, which is all the
// functions read (a YAML file is read by package platformfile, which they
// do not link). It gives ParseJSON's platform or error; a bundle is read
// by the generated bundle decoder, without the reflection that costs
// ParseJSON most of a millisecond at a function's cold start (bundle.go).
func LoadJSONFile(path string) (*Platform, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read platform file: %w", err)
	}
	p, err := loadJSON(data)
	if err != nil {
		return nil, fmt.Errorf("platform file %s: %w", path, err)
	}
	return p, nil
}

// ParseJSON decodes a platform from one JSON object, applies defaults and
// validates it, as ParseDocument. A document that is not one JSON object
// with whole numbers written as integers is refused with ErrNotJSON.
func ParseJSON(data []byte) (*Platform, error) {
	// A scan of the keys instead of the YAML parsers, which cost most of a
	// function's cold start.
	dups, lines, ok := jsonKeys(data)
	if !ok {
		return nil, fmt.Errorf("parse platform: %w", ErrNotJSON)
	}
	return ParseDocument(Document{JSON: data, Problems: dups, KeyLines: lines})
}

// Document is a platform file once its syntax is read: the file as JSON,
// the problems of its syntax (keys given twice) and the line of each key,
// by field (teams[0].capacity), for the problems found later.
type Document struct {
	JSON     []byte
	Problems Problems
	KeyLines map[string]int
}

// ParseDocument decodes a platform from d, applies defaults and validates
// it. Every problem is reported at once in a *ValidationError: d's own,
// unknown keys (with their lines), values of the wrong type and values out
// of range.
func ParseDocument(d Document) (*Platform, error) {
	problems, js, lines := slices.Clone(d.Problems), d.JSON, d.KeyLines
	var raw any
	if err := json.Unmarshal(js, &raw); err != nil {
		return nil, fmt.Errorf("parse platform: %w", err)
	}
	if raw == nil {
		raw = map[string]any{}
	}
	checkShape(&problems, "", raw, reflect.TypeOf(Platform{}))
	if _, ok := raw.(map[string]any); !ok {
		return nil, &ValidationError{Problems: problems, keyLines: lines}
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
	checkExplicitZeros(&problems, "", raw, reflect.TypeOf(Platform{}))
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
		return nil, &ValidationError{Problems: problems, keyLines: lines}
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

// JSON returns the platform as compact JSON, the form bundled with the
// submission and observer functions.
func (p *Platform) JSON() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("platform: marshal: %v", err))
	}
	return b
}
