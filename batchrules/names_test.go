package batchrules_test

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/internal/shapetest"
)

func TestShareOfJob(t *testing.T) {
	tests := []struct {
		name, quotaShare, shareID, want string
	}{
		{"a job of a quota-share queue runs in its quota share", "vision", "", "vision"},
		{"a job of a fair-share queue runs in its share identifier", "", "vision", "vision"},
		{"the quota share wins should both be set", "vision", "search", "vision"},
		{"a job of a FIFO queue has no share", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := batchrules.ShareOfJob(tt.quotaShare, tt.shareID); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name  string
		valid func(string) bool
		in    string
		want  bool
	}{
		{"a Batch name takes letters, digits, '-' and '_'", batchrules.ValidName, "bert-base_2", true},
		{"a Batch name has at most 128 characters", batchrules.ValidName, strings.Repeat("a", 128), true},
		{"a Batch name of 129 characters is refused", batchrules.ValidName, strings.Repeat("a", 129), false},
		{"an empty Batch name is refused", batchrules.ValidName, "", false},
		{"a Batch name has no dot", batchrules.ValidName, "bert.base", false},
		{"a share identifier takes letters, digits and '_'", batchrules.ValidShareIdentifier, "search_ranking", true},
		{"a share identifier has no hyphen", batchrules.ValidShareIdentifier, "search-ranking", false},
		{"a share identifier has at most 255 characters", batchrules.ValidShareIdentifier, strings.Repeat("a", 256), false},
		{"an instance type is ml.FAMILY.SIZE", batchrules.ValidInstanceType, "ml.p5.48xlarge", true},
		{"an EC2 instance type is no training instance type", batchrules.ValidInstanceType, "p5.48xlarge", false},
		{"an instance type has at most 64 characters (trainq's bound; SageMaker's are far shorter)", batchrules.ValidInstanceType, "ml.p5." + strings.Repeat("x", 59), false},
		{"an instance type is lowercase", batchrules.ValidInstanceType, "ml.P5.48xlarge", false},
		{"a job id is a job reference", batchrules.ValidJobRef, "4f2a9c1e-0000-4000-8000-000000000001", true},
		{"a job ARN is a job reference", batchrules.ValidJobRef, "arn:aws:batch:us-east-1:123456789012:service-job/4f2a9c1e", true},
		{"a job reference has no space", batchrules.ValidJobRef, "job 1", false},
		{"a job reference has at most 1000 characters", batchrules.ValidJobRef, strings.Repeat("a", 1001), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.valid(tt.in); got != tt.want {
				t.Errorf("valid(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestRunnableSince(t *testing.T) {
	at := func(ms int64) *int64 { return &ms }
	tests := []struct {
		name      string
		before    int64
		moments   []*int64
		want      int64
		wantFound bool
	}{
		{"a job never run became runnable when created", 500, []*int64{at(100)}, 100, true},
		{"a retried job became runnable when its last attempt stopped", 500, []*int64{at(100), at(200), at(300)}, 300, true},
		{"a stop after the moment asked about does not count", 250, []*int64{at(100), at(200), at(300)}, 200, true},
		{"a moment Batch left out is skipped", 500, []*int64{nil, at(200)}, 200, true},
		{"a stop exactly at the moment counts", 300, []*int64{at(100), at(300)}, 300, true},
		{"nothing known before the moment says nothing", 50, []*int64{at(100)}, 0, false},
		{"no moment at all says nothing", 500, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := batchrules.RunnableSince(tt.before, tt.moments...)
			if got != tt.want || found != tt.wantFound {
				t.Errorf("RunnableSince(%d) = %d, %v; want %d, %v", tt.before, got, found, tt.want, tt.wantFound)
			}
		})
	}
}

// TestNamesAreTheirExpressions: each name check is the regular expression
// (and length bound) that AWS documents for it, matched without the
// regexp package. The expressions are the reference: for random strings
// of the characters that matter (the allowed ones, their neighbours, '.',
// ':' and '/', a space, a non-ASCII letter, a NUL) and lengths up to past
// each bound, check and expression agree.
func TestNamesAreTheirExpressions(t *testing.T) {
	for _, c := range []struct {
		name  string
		valid func(string) bool
		expr  string
		max   int
	}{
		{"ValidName", batchrules.ValidName, `^[a-zA-Z0-9_-]+$`, batchrules.MaxNameLength},
		{"ValidShareIdentifier", batchrules.ValidShareIdentifier, `^[a-zA-Z0-9_]+$`, batchrules.MaxShareIdentifierLength},
		{"ValidInstanceType", batchrules.ValidInstanceType, `^ml\.[a-z0-9]+\.[a-z0-9]+$`, 64},
		{"ValidJobRef", batchrules.ValidJobRef, `^[a-zA-Z0-9:/_.-]+$`, batchrules.MaxJobRefLength},
		{"ValidJobID", batchrules.ValidJobID, `^[a-zA-Z0-9_.-]+$`, batchrules.MaxJobIDLength},
	} {
		shapetest.Agree(t, c.name, c.valid, c.expr, c.max, rand.New(rand.NewPCG(1, uint64(c.max))), randomName)
	}
}

// randomName is a random string for TestNamesAreTheirExpressions: half
// of them start as an instance type does; half are of allowed-looking
// characters and dots only, the others have one of the odd characters in
// ten; most are short, a quarter about max long.
func randomName(r *rand.Rand, max int) string {
	odd := []rune("AZ_-:/ \x00é`{@[")
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteString("ml.")
	}
	n, clean := r.IntN(12), r.IntN(2) == 0
	if r.IntN(4) == 0 {
		n = max - 4 + r.IntN(8)
	}
	for b.Len() < n {
		switch k := r.IntN(20); {
		case k == 0:
			b.WriteByte('.')
		case k < 3 && !clean:
			b.WriteRune(odd[r.IntN(len(odd))])
		default:
			b.WriteByte("az09"[r.IntN(4)])
		}
	}
	return b.String()
}

// TestRoleARNIsItsExpression: ValidRoleARN is the regular expression of
// a role ARN and the length bound of its path and name, for strings made
// from role ARNs by random edits (characters inserted, removed or
// replaced by ones that matter: ':', '/', letters, digits, IAM's
// punctuation and others).
func TestRoleARNIsItsExpression(t *testing.T) {
	re := regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+$`)
	seeds := []string{
		"arn:aws:iam::123456789012:role/trainer",
		"arn:aws-us-gov:iam::123456789012:role/path/to/A_b+c=d,e.f@g-h",
		"arn:aws:iam::123456789012:role/" + strings.Repeat("r", batchrules.MaxRolePathAndNameLength-2),
	}
	r := rand.New(rand.NewPCG(3, 4))
	matched := 0
	for range 20000 {
		s := shapetest.Edited(r, seeds[r.IntN(len(seeds))], ":/az09AZ_+=,.@- *é\x00")
		want := re.MatchString(s) && len(s[strings.Index(s, ":role/")+len(":role/"):]) <= batchrules.MaxRolePathAndNameLength
		if got := batchrules.ValidRoleARN(s); got != want {
			t.Errorf("ValidRoleARN(%q) = %v, want %v", s, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 100 || matched > 19900 {
		t.Errorf("%d of 20000 strings match; the test needs both answers", matched)
	}
}
