package platformfile

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	. "github.com/trainq/trainq/platform"
)

// TestJSONAndYAMLPathsAgree: a JSON platform file read by the functions'
// JSON path (platform.ParseJSON, a scan of its keys) gives the problems
// and lines the YAML path's key check (checkDuplicateKeys) gives for the
// same bytes, and Parse gives the same platform or the same error whether
// the bytes are read as JSON or as YAML.
func TestJSONAndYAMLPathsAgree(t *testing.T) {
	docs := []string{
		"{\n  \"name\": \"a\",\n  \"name\": \"b\"\n}",
		`{"teams":[{"name":"x","capacity":[{"instanceType":"ml.p5.48xlarge","instances":2,"instances":3}]},{"name":"y","name":"z"}]}`,
		"{\"\": 1, \"\": 2, \"ab\": {\"c\": 1}, \"a\\u0062\": {\"c\": 2, \"c\": 3}}",
		"{\"pools\": [\n {\"instanceType\": \"ml.p5.48xlarge\",\n  \"instances\": 8}],\n \"scheduling\": {\"mode\": \"quota\", \"mode\": \"fairshare\"},\n \"x\": [[{\"y\": true, \"y\": null, \"z\": false}]]}",
		string(Default().JSON()),
	}
	for _, d := range docs {
		p1, err1 := ParseJSON([]byte(d))
		if errors.Is(err1, ErrNotJSON) {
			t.Errorf("%s: not taken by the JSON path", d)
			continue
		}
		var ps Problems
		lines := checkDuplicateKeys(&ps, []byte(d))
		p2, err2 := ParseDocument(Document{JSON: []byte(d), Problems: ps, KeyLines: lines})
		if !reflect.DeepEqual(p1, p2) || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Errorf("%s:\nJSON path %v %v\nYAML path %v %v", d, p1, err1, p2, err2)
		}
		p3, err3 := Parse([]byte("# read as YAML\n" + d))
		if err1 == nil && err3 == nil && !reflect.DeepEqual(p1, p3) || (err1 == nil) != (err3 == nil) {
			t.Errorf("%s: Parse gives %v, %v by the JSON path and %v, %v by the YAML path", d, p1, err1, p3, err3)
		}
	}
	// By hand: the first document's key "name" is on lines 2 and 3.
	_, err := ParseJSON([]byte(docs[0]))
	if !strings.Contains(fmt.Sprint(err), "name: got given twice, at lines 2 and 3") {
		t.Errorf("error %v, want name given twice, at lines 2 and 3", err)
	}
}

// TestTheJSONPathLeavesWhatYAMLReadsOtherwise: a whole number written
// with a fraction or an exponent, which the YAML path turns into an
// integer (instances: 1.0 is 1), and anything that is not one JSON object
// keep the YAML path; a fraction does not.
func TestTheJSONPathLeavesWhatYAMLReadsOtherwise(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"pools":[{"instances":1.0}]}`: false,
		`{"pools":[{"instances":1e3}]}`: false,
		`{"x":1e400}`:                   false,
		`{"x":0.5}`:                     true,
		`{"x":-12}`:                     true,
		`[1]`:                           false,
		`{"a":1} {"b":2}`:               false,
		"name: a":                       false,
		`{"a":1`:                        false,
	} {
		if _, err := ParseJSON([]byte(doc)); !errors.Is(err, ErrNotJSON) != want {
			t.Errorf("%s: JSON path %v (%v), want %v", doc, !want, err, want)
		}
	}
	// The default platform with its first instance count written 40.0 (by
	// hand: the default pool's 40 ml.p5.48xlarge) is the default platform.
	d := string(Default().JSON())
	at := strings.Index(d, `"instances":40`) + len(`"instances":40`)
	p, err := Parse([]byte(d[:at] + ".0" + d[at:]))
	if err != nil || !reflect.DeepEqual(p, Default()) {
		t.Errorf("instances 40.0: %v; want the default platform, as YAML reads it", err)
	}
}
