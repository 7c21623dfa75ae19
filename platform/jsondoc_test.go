package platform

import (
	"reflect"
	"strings"
	"testing"
)

// TestJSONAndYAMLPathsAgree: a JSON platform file read by the JSON path
// (jsonKeys) gives the problems and lines the YAML path
// (checkDuplicateKeys) gives for the same bytes, and Parse the same
// platform or the same error.
func TestJSONAndYAMLPathsAgree(t *testing.T) {
	docs := []string{
		"{\n  \"name\": \"a\",\n  \"name\": \"b\"\n}",
		`{"teams":[{"name":"x","capacity":[{"instanceType":"ml.p5.48xlarge","instances":2,"instances":3}]},{"name":"y","name":"z"}]}`,
		"{\"\": 1, \"\": 2, \"ab\": {\"c\": 1}, \"a\\u0062\": {\"c\": 2, \"c\": 3}}",
		"{\"pools\": [\n {\"instanceType\": \"ml.p5.48xlarge\",\n  \"instances\": 8}],\n \"scheduling\": {\"mode\": \"quota\", \"mode\": \"fairshare\"},\n \"x\": [[{\"y\": true, \"y\": null, \"z\": false}]]}",
		string(Default().JSON()),
	}
	for _, d := range docs {
		ps, lines, ok := jsonKeys([]byte(d))
		if !ok {
			t.Errorf("%s: not taken by the JSON path", d)
			continue
		}
		var want Problems
		wantLines := checkDuplicateKeys(&want, []byte(d))
		if !reflect.DeepEqual(ps, want) || !reflect.DeepEqual(lines, wantLines) {
			t.Errorf("%s:\nJSON path %v %v\nYAML path %v %v", d, ps, lines, want, wantLines)
		}
		p1, err1 := Parse([]byte(d))
		p2, err2 := Parse([]byte("# read as YAML\n" + d))
		if err1 == nil && err2 == nil && !reflect.DeepEqual(p1, p2) || (err1 == nil) != (err2 == nil) {
			t.Errorf("%s: Parse gives %v, %v by the JSON path and %v, %v by the YAML path", d, p1, err1, p2, err2)
		}
	}
	// By hand: the first document's key "name" is on lines 2 and 3.
	ps, _, _ := jsonKeys([]byte(docs[0]))
	if len(ps) != 1 || ps[0].Field != "name" || ps[0].Value != "given twice, at lines 2 and 3" {
		t.Errorf("problems %v, want name given twice, at lines 2 and 3", ps)
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
		if _, _, ok := jsonKeys([]byte(doc)); ok != want {
			t.Errorf("%s: JSON path %v, want %v", doc, ok, want)
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
