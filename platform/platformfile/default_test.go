package platformfile

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/trainq/trainq/platform"
)

// TestDefaultJSONIsTheYAML: the embedded default's JSON form, which
// platform.Default reads without a YAML parser, is default.yaml as JSON,
// and both read as the same platform. After editing default.yaml:
// TRAINQ_WRITE_DEFAULT_JSON=1 go test ./platform/platformfile -run TestDefaultJSONIsTheYAML
func TestDefaultJSONIsTheYAML(t *testing.T) {
	js, err := yaml.YAMLToJSON(platform.DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Indent(&want, js, "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	const file = "../default.json"
	if os.Getenv("TRAINQ_WRITE_DEFAULT_JSON") == "1" {
		if err := os.WriteFile(file, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("platform/default.json is not default.yaml as JSON; write it with\n  TRAINQ_WRITE_DEFAULT_JSON=1 go test ./platform/platformfile -run TestDefaultJSONIsTheYAML")
	}
	fromYAML, err := Parse(platform.DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromYAML, platform.Default()); diff != "" {
		t.Errorf("the default read from YAML (-) and from JSON (+):\n%s", diff)
	}
}
