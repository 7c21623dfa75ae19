// Package shapetest holds a check written without the regexp package to
// the regular expression it stands for: over random strings, the check and
// the expression (with its length bound) must agree, and the strings must
// reach both answers, or the comparison shows nothing.
//
// It is test support: only tests import it.
package shapetest

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// Strings is how many random strings Agree compares.
const Strings = 20000

// Agree fails t for each of Strings random strings (gen(r, max)) on which
// valid and the expression expr, bounded to max bytes, disagree, and when
// fewer than 100 strings, or all but 100, match: name names the check.
func Agree(t *testing.T, name string, valid func(string) bool, expr string, max int, r *rand.Rand, gen func(*rand.Rand, int) string) {
	t.Helper()
	re := regexp.MustCompile(expr)
	matched, differ := 0, 0
	for range Strings {
		s := gen(r, max)
		want := len(s) <= max && re.MatchString(s)
		if got := valid(s); got != want {
			if differ++; differ <= 5 {
				t.Errorf("%s %q: %v, want %v (%s, at most %d)", name, s, got, want, expr, max)
			}
		}
		if want {
			matched++
		}
	}
	if matched < 100 || matched > Strings-100 {
		t.Errorf("%s: %d of %d strings match; the test needs both answers", name, matched, Strings)
	}
}

// Edited is s with zero to three random edits, each inserting, removing
// or replacing a character by one of chars: strings near a valid example,
// where a check and its expression are most likely to part.
func Edited(r *rand.Rand, s, chars string) string {
	b, set := []rune(s), []rune(chars)
	for range r.IntN(4) {
		i := r.IntN(len(b) + 1)
		switch c := set[r.IntN(len(set))]; r.IntN(3) {
		case 0:
			b = append(b[:i], append([]rune{c}, b[i:]...)...)
		case 1:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		default:
			if i < len(b) {
				b[i] = c
			}
		}
	}
	return string(b)
}
