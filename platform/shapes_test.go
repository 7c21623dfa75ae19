package platform

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trainq/trainq/internal/shapetest"
)

// TestNameShapesAreTheirExpressions: the platform's name checks, matched
// without the regexp package, are the regular expressions (and length
// bounds) they stand for. The expressions are the reference: for random
// strings of the characters that matter (allowed ones, their neighbours in
// ASCII, a space, a non-ASCII letter, a NUL) and lengths up to past each
// bound, check and expression agree.
func TestNameShapesAreTheirExpressions(t *testing.T) {
	for _, c := range []struct {
		name  string
		valid func(string) bool
		expr  string
		max   int
	}{
		{"name", namePattern.MatchString, `^[a-zA-Z][a-zA-Z0-9-]*$`, 32},
		{"class", classPattern.MatchString, `^[a-zA-Z][a-zA-Z0-9_-]*$`, 64},
		{"budget name", budgetNamePattern.MatchString, `^[A-Za-z0-9_-]+$`, 64},
	} {
		shapetest.Agree(t, c.name, c.valid, c.expr, c.max, rand.New(rand.NewPCG(2, uint64(len(c.expr)))), randomShape)
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

// TestShapesAreTheirExpressions: each ID and ARN shape of shapes.go is the
// regular expression in its comment. The expressions are the reference:
// for strings made from valid and nearly valid examples by random edits
// (characters inserted, removed or replaced by ones that matter), shape
// and expression agree, and both answers occur.
func TestShapesAreTheirExpressions(t *testing.T) {
	const uuid = "1234abcd-12ab-34cd-56ef-1234567890ab"
	for _, c := range []struct {
		name  string
		valid func(string) bool
		expr  string
		seeds []string
		chars string
	}{
		{"subnet ID", ValidSubnetID, `^subnet-[0-9a-f]{8}([0-9a-f]{9})?$`,
			[]string{"subnet-0a1b2c3d", "subnet-0a1b2c3d4e5f60718"}, "0af-gsubnet"},
		{"security group ID", ValidSecurityGroupID, `^sg-[0-9a-f]{8}([0-9a-f]{9})?$`,
			[]string{"sg-01234567", "sg-0123456789abcdef0"}, "0af-gsA"},
		{"KMS key ARN", validKMSKeyARN, `^arn:aws[a-z-]*:kms:([a-z]+-){2,3}[0-9]+:[0-9]{12}:key/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})$`,
			[]string{"arn:aws:kms:us-east-1:123456789012:key/" + uuid, "arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/mrk-1234abcd12ab34cd56ef1234567890ab",
				"arn:aws:kms:a-b-c-1:123456789012:key/" + uuid, "arn:aws:kms:a-b-c-d-1:123456789012:key/" + uuid},
			"0af-:/gzAk"},
		{"KMS alias ARN", kmsAliasARN, `^arn:aws[a-z-]*:kms:[^:]*:[^:]*:alias/`,
			[]string{"arn:aws:kms:us-east-1:123456789012:alias/training", "arn:aws-cn:kms:::alias/"}, "0a-:/sA"},
		{"SNS topic ARN", validTopicARN, `^arn:aws[a-z-]*:sns:[a-z]+(-[a-z]+)+-[0-9]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}$`,
			[]string{"arn:aws:sns:us-east-1:123456789012:oncall-pages", "arn:aws:sns:ap-south-east-x-2:123456789012:" + strings.Repeat("T", 255)},
			"0aZ_-:/ ."},
		{"ECR repository", ecrRepositoryShape, `^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$`,
			[]string{"ml/trainer", "a.b_c-d/e/f9", "ranking/trainer"}, "a0._-/A "},
		{"IP address shape", ipAddressShape, `^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$`,
			[]string{"192.168.5.4", "1.2.3.4"}, "09.a"},
	} {
		// No length bound beyond the expression's own.
		shapetest.Agree(t, c.name, c.valid, c.expr, math.MaxInt, rand.New(rand.NewPCG(4, uint64(len(c.expr)))),
			func(r *rand.Rand, _ int) string {
				return shapetest.Edited(r, c.seeds[r.IntN(len(c.seeds))], c.chars+"\x00é")
			})
	}
}

// TestLogRetentionDaysAscend: the retentions validation looks up by binary
// search are in ascending order, each once, and validation accepts each
// of them and nothing between.
func TestLogRetentionDaysAscend(t *testing.T) {
	days := LogRetentionDays()
	for i := 1; i < len(days); i++ {
		if days[i] <= days[i-1] {
			t.Fatalf("LogRetentionDays() = %v: not ascending at %d", days, days[i])
		}
	}
	n := 0
	for d := -1; d <= days[len(days)-1]+1; d++ {
		if validRetention(d) {
			if n >= len(days) || days[n] != d {
				t.Fatalf("validRetention(%d) is true; the retentions are %v", d, days)
			}
			n++
		}
	}
	if n != len(days) {
		t.Errorf("validRetention accepts %d of the %d retentions", n, len(days))
	}
}
