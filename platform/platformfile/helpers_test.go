package platformfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	. "github.com/trainq/trainq/platform"

	"sigs.k8s.io/yaml"
)

// The helpers of package platform's tests that the tests of reading a file
// use: documents (maps and lists, as YAML decodes them) rendered to YAML,
// and the problems of an error.

// doc is a platform file as decoded YAML.
type doc = map[string]any

// quotaDoc is a small valid quota-mode file: 40 × ml.p5.48xlarge and
// 60 × ml.p4d.24xlarge shared by two teams whose capacities add up to the
// pools exactly (p5: 24+16 = 40, p4d: 30+30 = 60).
func quotaDoc() doc {
	return doc{
		"pools": []any{
			doc{"instanceType": "ml.p5.48xlarge", "instances": 40},
			doc{"instanceType": "ml.p4d.24xlarge", "instances": 60},
		},
		"teams": []any{
			doc{"name": "search-ranking", "capacity": []any{
				doc{"instanceType": "ml.p5.48xlarge", "instances": 24},
				doc{"instanceType": "ml.p4d.24xlarge", "instances": 30},
			}},
			doc{"name": "search-research", "capacity": []any{
				doc{"instanceType": "ml.p5.48xlarge", "instances": 16},
				doc{"instanceType": "ml.p4d.24xlarge", "instances": 30},
			}},
		},
	}
}

// set assigns v at a dotted path such as "teams.0.capacity.1.instances",
// creating mappings on the way. It fails the test on a path that does not fit
// the document.
func set(t testing.TB, d doc, path string, v any) {
	t.Helper()
	keys := strings.Split(path, ".")
	var cur any = d
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case doc:
			if last {
				c[k] = v
				return
			}
			next, ok := c[k]
			if !ok {
				next = doc{}
				c[k] = next
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(c) {
				t.Fatalf("set %s: %q is not an index of a list of %d", path, k, len(c))
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			t.Fatalf("set %s: %q is under a %T", path, k, cur)
		}
	}
}

// render turns a document into YAML text.
func render(t testing.TB, d doc) []byte {
	t.Helper()
	b, err := yaml.Marshal(d)
	if err != nil {
		t.Fatalf("render document: %v", err)
	}
	return b
}

// problemsOf returns the problems of a *ValidationError, failing the test
// on any other outcome.
func problemsOf(t testing.TB, err error) Problems {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want a *ValidationError")
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %T %v, want a *ValidationError", err, err)
	}
	return ve.Problems
}

// fields lists the Field of every problem, in order.
func fields(ps Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Field
	}
	return out
}

// mustParse parses text that must be a valid platform.
func mustParse(t testing.TB, data []byte) *Platform {
	t.Helper()
	p, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v\nfile:\n%s", err, data)
	}
	return p
}

// readTestdata reads a file under platform/testdata/.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }
