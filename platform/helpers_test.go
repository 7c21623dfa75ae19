package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The tests build platform files as documents (maps and lists, as YAML
// decodes them), change one field and render the document back to YAML, so
// that every case goes through Parse exactly as a user's trainq.yaml does.

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

// fairshareDoc is a small valid fair-share file: two share identifiers.
func fairshareDoc() doc {
	return doc{
		"pools": []any{
			doc{"instanceType": "ml.p5.48xlarge", "instances": 16},
		},
		"scheduling": doc{"mode": "fairshare"},
		"teams": []any{
			doc{"name": "ranking", "weight": 1},
			doc{"name": "research", "weight": 2},
		},
	}
}

// defaultClassesDoc lists the three default classes explicitly, so that a
// case can change one of them: production 900–999, research 500–599,
// sweep 100–199.
func defaultClassesDoc() []any {
	return []any{
		doc{"name": "production", "priority": doc{"min": 900, "max": 999}},
		doc{"name": "research", "priority": doc{"min": 500, "max": 599}},
		doc{"name": "sweep", "priority": doc{"min": 100, "max": 199}},
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

// readTestdata reads a file under testdata/.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// Parse reads a YAML platform file for the package's tests as package
// platformfile reads it (which they cannot import), without its check of
// keys given twice and their lines: platformfile's tests hold those.
func Parse(data []byte) (*Platform, error) {
	if p, err := ParseJSON(data); !errors.Is(err, ErrNotJSON) {
		return p, err
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parse platform: %w", err)
	}
	return ParseDocument(Document{JSON: js})
}
