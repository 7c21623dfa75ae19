package platform

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
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

// LoadFileOrDefault is LoadFile(path), or the embedded default platform
// (Default) when path is "": what a --platform flag left unset means to the
// CLI and the simulator.
func LoadFileOrDefault(path string) (*Platform, error) {
	if path == "" {
		return Default(), nil
	}
	return LoadFile(path)
}

// Parse decodes a platform from YAML or JSON (JSON is YAML), applies defaults
// and validates it. Every problem is reported at once in a *ValidationError:
// keys given twice (with their lines), unknown keys, values of the wrong type
// and values out of range.
func Parse(data []byte) (*Platform, error) {
	var problems Problems
	// A JSON object (the bundled platform.json) is read as JSON: the YAML
	// parsers cost most of a function's cold start.
	dups, lines, isJSON := jsonKeys(data)
	js := data
	if isJSON {
		problems = dups
	} else {
		var err error
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return nil, fmt.Errorf("parse platform: %w", err)
		}
		lines = checkDuplicateKeys(&problems, data)
	}
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
