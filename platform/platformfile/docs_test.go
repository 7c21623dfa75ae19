package platformfile

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReferenceErrorExampleIsReal: the first error example of
// docs/platform.md is what Parse says about the YAML shown above it.
func TestReferenceErrorExampleIsReal(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "platform.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```.*?```\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/platform.md has no ```yaml block followed by an output block")
	}
	_, perr := Parse(m[1])
	if perr == nil {
		t.Fatal("the documented bad file parses without error")
	}
	want := strings.TrimPrefix(strings.TrimSpace(string(m[2])), "platform file trainq.yaml: ")
	if diff := cmp.Diff(want, perr.Error()); diff != "" {
		t.Errorf("documented output (-docs +Parse):\n%s", diff)
	}
}
