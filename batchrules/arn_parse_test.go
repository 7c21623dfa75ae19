package batchrules

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The regular expressions the ARN parsers replace, as they were written:
// the reference the tests hold them to.
var (
	refBatchARN = regexp.MustCompile(`^arn:(aws[a-z-]*):batch:([a-z0-9-]+):([0-9]{12}):([a-z-]+)/(.+)$`)
)

// edgy are bytes at the edges of the classes, and others.
const edgy = "aAzZ09_-.:/+=,@ \n\t*`{[@^~\x7f\x80\xff" + "bmlrsawnhcpx"

// mutate changes s by up to three random edits: a byte replaced, inserted
// or removed, or a piece repeated.
func mutate(r *rand.Rand, s string) string {
	b := []byte(s)
	for range r.IntN(4) {
		switch i := r.IntN(len(b) + 1); r.IntN(4) {
		case 0:
			if i < len(b) {
				b[i] = edgy[r.IntN(len(edgy))]
			}
		case 1:
			b = append(b[:i], append([]byte{edgy[r.IntN(len(edgy))]}, b[i:]...)...)
		case 2:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		default:
			j := min(len(b), i+r.IntN(8))
			b = append(b[:j], append(append([]byte{}, b[i:j]...), b[j:]...)...)
		}
	}
	return string(b)
}

// TestARNsParseAsTheirExpressions compares the Batch ARN parser with its
// regular expression, parts included, over mutations of valid ARNs.
func TestARNsParseAsTheirExpressions(t *testing.T) {
	batch := []string{
		"arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training",
		"arn:aws-cn:batch:cn-north-1:123456789012:service-job/4c7599ae-0a82-49aa-ba5a-4727fcce14a8",
		"arn:aws-us-gov:batch:us-gov-west-1:123456789012:scheduling-policy/a:b/c",
	}
	r := rand.New(rand.NewPCG(13, 14))
	differ := 0
	for range 60_000 {
		s := mutate(r, batch[r.IntN(len(batch))])
		partition, region, account, resource, name, ok := batchARNParts(s)
		got := []string{partition, region, account, resource, name}
		want := make([]string, 5)
		m := refBatchARN.FindStringSubmatch(s)
		if m != nil {
			want = m[1:]
		}
		if ok != (m != nil) || strings.Join(got, "|") != strings.Join(want, "|") {
			if differ++; differ <= 5 {
				t.Errorf("batch ARN %q: %v %q, the expression %v %q", s, ok, got, m != nil, want)
			}
		}
	}
	for _, s := range batch {
		if _, _, _, _, _, ok := batchARNParts(s); !ok {
			t.Errorf("%q refused", s)
		}
	}
}

// FuzzARNsParseAsTheirExpressions is the comparison for go test -fuzz.
func FuzzARNsParseAsTheirExpressions(f *testing.F) {
	for _, s := range []string{"arn:aws:batch:us-east-1:123456789012:job-queue/q", "arn:aws-cn:batch:cn-north-1:123456789012:service-job/a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _, _, _, ok := batchARNParts(s)
		if ok != refBatchARN.MatchString(s) {
			t.Errorf("%q: the parser and its expression differ", s)
		}
	})
}
