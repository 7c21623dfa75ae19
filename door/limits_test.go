package door

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// TestDocumentedLimitsAreTheCodes reads the request's limits from
// docs/submission.md and requires each to be the one the door enforces.
func TestDocumentedLimitsAreTheCodes(t *testing.T) {
	b, err := os.ReadFile("../docs/submission.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	row := func(field string) string {
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(line, "| `"+field+"` |") {
				return line
			}
		}
		t.Errorf("docs/submission.md has no row of the request's field %s", field)
		return ""
	}
	for _, c := range []struct {
		where, pattern string
		code           int
	}{
		{row("tags"), `≤ (\d+) tags`, contract.MaxCallerTags},
		{row("jobName"), `1–(\d+) letters`, contract.MaxJobNameLength},
		{row("idempotencyKey"), `≤ (\d+) characters`, contract.MaxIdempotencyKeyLength},
		{row("priority"), `\| 0–(\d+), placed`, platform.RequestPriorityMax},
		{row("trainingJob"), `≤ (\d+) KiB once trainq has filled it in`, batchrules.MaxServiceRequestPayloadBytes / 1024},
		{doc, `at most (\d+) KiB\s+\(`, contract.MaxRequestBytes / 1024},
		{doc, `\((\d+),(\d+) bytes, ` + "`contract.MaxRequestBytes`", contract.MaxRequestBytes},
		{doc, `may nest at most (\d+) levels`, contract.MaxRequestDepth},
	} {
		m := regexp.MustCompile(c.pattern).FindStringSubmatch(c.where)
		if m == nil {
			t.Errorf("docs/submission.md: no %q", c.pattern)
			continue
		}
		if got := strings.Join(m[1:], ""); got != fmt.Sprint(c.code) {
			t.Errorf("docs/submission.md says %s (%q), the code %d", got, m[0], c.code)
		}
	}
}
