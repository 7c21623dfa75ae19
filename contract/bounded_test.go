package contract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
)

func TestCutKeepsWholeCharacters(t *testing.T) {
	tests := []struct {
		name string
		s    string
		max  int
		want string
	}{
		{"a short string is kept", "abc", 3, "abc"},
		{"a long one ends in an ellipsis, max characters in all", "abcdef", 4, "abc…"},
		{"characters, not bytes, are counted", strings.Repeat("é", 5), 5, strings.Repeat("é", 5)},
		{"a two-byte character is never split", strings.Repeat("é", 6), 5, strings.Repeat("é", 4) + "…"},
		{"a four-byte character is never split", "a😀😀😀", 3, "a😀…"},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", 10, "a\uFFFDb"},
		{"a max below 1 is 1", "abc", 0, "…"},
		{"the empty string stays empty", "", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := contract.Cut(tt.s, tt.max)
			if got != tt.want {
				t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Cut(%q, %d) = %q is not valid UTF-8", tt.s, tt.max, got)
			}
		})
	}
}

// FuzzCut: whatever the input, the result is valid UTF-8 of at most max
// characters, a prefix of the (valid) input, or the input itself.
func FuzzCut(f *testing.F) {
	f.Add("héllo wörld", 5)
	f.Add("\xff\xfe\xfd", 2)
	f.Add(strings.Repeat("😀", 10), 3)
	f.Fuzz(func(t *testing.T, s string, max int) {
		max = max%2000 + 1
		if max < 1 {
			max = -max + 1
		}
		got := contract.Cut(s, max)
		if !utf8.ValidString(got) {
			t.Fatalf("Cut(%q, %d) = %q: not valid UTF-8", s, max, got)
		}
		if n := utf8.RuneCountInString(got); n > max {
			t.Fatalf("Cut(%q, %d) = %q: %d characters", s, max, got, n)
		}
		valid := strings.ToValidUTF8(s, "\uFFFD")
		if got != valid && !strings.HasPrefix(valid, strings.TrimSuffix(got, contract.Ellipsis)) {
			t.Fatalf("Cut(%q, %d) = %q: not a prefix of the input", s, max, got)
		}
	})
}

func TestReportIsBounded(t *testing.T) {
	var ps contract.Problems
	for i := 0; i < 40; i++ {
		ps.Add(strings.Repeat("f", 1000), strings.Repeat("é", 1000), strings.Repeat("a", 5000))
	}
	msg := contract.Report("invalid request", ps)
	if !strings.HasPrefix(msg, "invalid request (40 problems, the first 25 shown):") {
		t.Errorf("heading: %q", msg[:80])
	}
	if !strings.HasSuffix(msg, "… and 15 more") {
		t.Errorf("no count of the problems not shown at the end: %q", msg[len(msg)-40:])
	}
	// 25 lines of at most 256 + 256 + 1024 characters and their words.
	if n := utf8.RuneCountInString(msg); n > 25*(256+256+1024+20)+200 {
		t.Errorf("message of %d characters", n)
	}
	one := contract.Report("invalid request", ps[:1])
	if !strings.HasPrefix(one, "invalid request (1 problem):\n  - ") {
		t.Errorf("one problem: %q", one[:40])
	}
}

func TestBoundedLogCutsEveryString(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(contract.BoundedLog(slog.NewJSONHandler(&buf, nil)))
	huge := strings.Repeat("x", 300_000)
	n := int32(7)
	log.With("with", huge).Warn(huge, "s", huge, "err", errors.New(huge), "n", 3, "p", &n, "nilp", (*int32)(nil),
		slog.Group("g", "inner", huge))
	line := buf.Bytes()
	if len(line) > 10*1024 {
		t.Fatalf("log line of %d bytes for 300 kB strings", len(line))
	}
	var got map[string]any
	if err := json.Unmarshal(line, &got); err != nil {
		t.Fatal(err)
	}
	cut := strings.Repeat("x", contract.MaxLoggedChars-1) + contract.Ellipsis
	want := map[string]any{"msg": cut, "with": cut, "s": cut, "err": cut, "n": 3.0, "p": "7", "nilp": "<nil>", "g": map[string]any{"inner": cut}}
	delete(got, "time")
	delete(got, "level")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log line (-want +got):\n%s", diff)
	}
}
