// Package platformfile reads a platform file written in YAML or JSON: what
// the trainq CLI, the simulator, the constructs and the platform stack read
// (trainq.yaml, a --platform flag, the embedded default).
//
// The functions read only the platform.json the constructs bundle with
// them (platform.LoadJSONFile), so that they link no YAML parser: the YAML
// packages' initialisation and size are paid by the tools, never by a cold
// start. Both paths end in platform.ParseDocument, with the same problems
// and lines for the same JSON bytes (TestJSONAndYAMLPathsAgree).
//
// It must never import the AWS CDK, jsii or constructs.
package platformfile

import (
	"errors"
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/trainq/trainq/platform"
)

// Parse decodes a platform from YAML or JSON (JSON is YAML), applies
// defaults and validates it. Every problem is reported at once in a
// *platform.ValidationError: keys given twice (with their lines), unknown
// keys, values of the wrong type and values out of range.
func Parse(data []byte) (*platform.Platform, error) {
	// One JSON object (the bundled platform.json) is read as JSON, as the
	// functions read it.
	p, err := platform.ParseJSON(data)
	if !errors.Is(err, platform.ErrNotJSON) {
		return p, err
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parse platform: %w", err)
	}
	var problems platform.Problems
	lines := checkDuplicateKeys(&problems, data)
	return platform.ParseDocument(platform.Document{JSON: js, Problems: problems, KeyLines: lines})
}

// LoadFile reads, defaults and validates a platform file (YAML or JSON).
func LoadFile(path string) (*platform.Platform, error) {
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
// (platform.Default) when path is "": what a --platform flag left unset
// means to the CLI and the simulator.
func LoadFileOrDefault(path string) (*platform.Platform, error) {
	if path == "" {
		return platform.Default(), nil
	}
	return LoadFile(path)
}
