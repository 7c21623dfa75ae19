package platform

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestNameShapesAreTheirExpressions: the platform's name checks, matched
// without the regexp package, are the regular expressions (and length
// bounds) they stand for, and the SNS topic ARN check, whose name length
// is checked in code, is the expression with the counted repetition of
// SNS's rule. The expressions are the reference: for random strings of
// the characters that matter (allowed ones, their neighbours in ASCII, a
// space, a non-ASCII letter, a NUL) and lengths up to past each bound,
// check and expression agree.
func TestNameShapesAreTheirExpressions(t *testing.T) {
	const topic = "arn:aws:sns:us-east-1:123456789012:"
	for _, c := range []struct {
		name   string
		valid  func(string) bool
		expr   string
		max    int
		prefix string
	}{
		{"name", namePattern.MatchString, `^[a-zA-Z][a-zA-Z0-9-]*$`, 32, ""},
		{"class", classPattern.MatchString, `^[a-zA-Z][a-zA-Z0-9_-]*$`, 64, ""},
		{"budget name", budgetNamePattern.MatchString, `^[A-Za-z0-9_-]+$`, 64, ""},
		{"SNS topic ARN", validTopicARN, `^arn:aws[a-z-]*:sns:[a-z]+(-[a-z]+)+-[0-9]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}$`, 1 << 20, topic},
	} {
		re := regexp.MustCompile(c.expr)
		r := rand.New(rand.NewPCG(2, uint64(len(c.expr))))
		matched := 0
		for range 20000 {
			s := c.prefix + randomShape(r, min(c.max, 256))
			if r.IntN(10) == 0 && c.prefix != "" {
				s = strings.Replace(s, ":", "::", 1+r.IntN(5)) // a prefix out of shape
			}
			want := len(s) <= c.max && re.MatchString(s)
			if got := c.valid(s); got != want {
				t.Errorf("%s %q: %v, want %v (%s, at most %d)", c.name, s, got, want, c.expr, c.max)
			}
			if want {
				matched++
			}
		}
		// The strings must reach both answers, or the test shows nothing.
		if matched < 100 || matched > 19900 {
			t.Errorf("%s: %d of 20000 strings match; the test needs both answers", c.name, matched)
		}
	}
}

// randomShape is a random string for TestNameShapesAreTheirExpressions:
// half of them of letters, digits, '-' and '_' only, the others with one
// odd character in ten; most short, a quarter about max long.
func randomShape(r *rand.Rand, max int) string {
	odd := []rune("Zz09.:/ \x00é`{@[")
	var b strings.Builder
	n, clean := r.IntN(12), r.IntN(2) == 0
	if r.IntN(4) == 0 {
		n = max - 4 + r.IntN(8)
	}
	for b.Len() < n {
		if k := r.IntN(10); k == 0 && !clean {
			b.WriteRune(odd[r.IntN(len(odd))])
		} else {
			b.WriteByte("aZ9_-"[r.IntN(5)])
		}
	}
	return b.String()
}
