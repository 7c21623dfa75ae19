package door

//go:generate python3 gen_sagemaker_model.py

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trainq/trainq/contract"
)

// The training job payload is checked against SageMaker's own model of
// CreateTrainingJobRequest (smModel, generated from botocore's published
// service model by gen_sagemaker_model.py): member names, required members,
// types, enums, string lengths (in characters), list and map sizes, number
// ranges and patterns, at every level. A payload SageMaker would refuse when
// Batch starts the job is refused when it is submitted.

// smKind is a shape's type.
type smKind uint8

const (
	smStructure smKind = iota
	smList
	smMap
	smString
	smInteger
	smLong
	smBoolean
	smFloat
)

// smShape is one shape of the model. Min and Max bound a string's length, a
// list's or map's size, or a number's value, when set.
type smShape struct {
	Name    string
	Kind    smKind
	Members []smMember
	// Elem is a list's member or a map's value; Key a map's key.
	Elem, Key int
	Min, Max  *int64
	Enum      []string
	// Pattern must match the whole value (Go syntax); NotSuffix is a
	// suffix the value must not end with (a Java look-behind RE2 lacks).
	Pattern   string
	NotSuffix string
}

// smMember is a member of a structure: its name, its shape (an index of
// smModel) and whether SageMaker requires it.
type smMember struct {
	Name     string
	Shape    int
	Required bool
}

// valueKind names a decoded JSON value for a message.
func valueKind(v any) string { return contract.ValueKind(v) }

// maxPayloadProblems bounds the problems one payload can yield.
const maxPayloadProblems = 50

// smPatterns holds each pattern compiled on first use: most payloads use
// a handful of the model's patterns, and compiling all of them would cost
// every cold start.
var smPatterns sync.Map // pattern → *regexp.Regexp

func smPattern(p string) *regexp.Regexp {
	if re, ok := smPatterns.Load(p); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`\A(?:` + p + `)\z`)
	smPatterns.Store(p, re)
	return re
}

// checkSageMaker adds a problem (under path, such as "trainingJob") for
// every way v, a payload decoded with json.Number, breaks SageMaker's
// CreateTrainingJobRequest. Problems whose field skip says was already
// reported are left out.
func checkSageMaker(ps *contract.Problems, path string, v any, skip map[string]bool) {
	c := smChecker{ps: ps, skip: skip}
	c.check(path, v, 0)
}

type smChecker struct {
	ps   *contract.Problems
	skip map[string]bool
	n    int
}

func (c *smChecker) add(field string, value any, s *smShape, format string, args ...any) {
	if c.n >= maxPayloadProblems || c.skipped(field) {
		return
	}
	c.n++
	c.ps.Addf(field, value, format+" (SageMaker's "+s.Name+")", args...)
}

// skipped reports whether field, or a member it is inside of, was reported.
func (c *smChecker) skipped(field string) bool {
	for f := field; f != ""; {
		if c.skip[f] {
			return true
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			return false
		}
		f = f[:i]
	}
	return false
}

func (c *smChecker) check(path string, v any, shape int) {
	s := &smModel[shape]
	switch s.Kind {
	case smStructure:
		m, ok := v.(map[string]any)
		if !ok {
			c.add(path, contract.Shown(valueKind(v)), s, "an object")
			return
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			mem, ok := s.member(k)
			if !ok {
				c.add(path+"."+k, contract.Shown("an unknown member"), s, "%s", s.unknown(k, shape == 0))
				continue
			}
			c.check(path+"."+k, m[k], mem.Shape)
		}
		for _, mem := range s.Members {
			if _, ok := m[mem.Name]; mem.Required && !ok {
				c.required(path+"."+mem.Name, s, smModel[mem.Shape].want())
			}
		}
	case smList:
		l, ok := v.([]any)
		if !ok {
			c.add(path, contract.Shown(valueKind(v)), s, "a list")
			return
		}
		c.size(path, len(l), s, "items")
		for i, item := range l {
			c.check(fmt.Sprintf("%s[%d]", path, i), item, s.Elem)
		}
	case smMap:
		m, ok := v.(map[string]any)
		if !ok {
			c.add(path, contract.Shown(valueKind(v)), s, "%s", s.want())
			return
		}
		c.size(path, len(m), s, "entries")
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c.check(path+" (key "+contract.Show(contract.Cut(k, contract.MaxShownChars))+")", k, s.Key)
			c.check(path+"."+k, m[k], s.Elem)
		}
	case smString:
		str, ok := v.(string)
		if !ok {
			c.add(path, contract.Shown(valueKind(v)), s, "a string")
			return
		}
		n := utf8.RuneCountInString(str)
		if (s.Min != nil && int64(n) < *s.Min) || (s.Max != nil && int64(n) > *s.Max) {
			c.add(path, contract.Shown(fmt.Sprintf("%d characters", n)), s, "%s characters", s.bounds())
			return
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			c.add(path, str, s, "one of %s", strings.Join(s.Enum, ", "))
			return
		}
		if s.Pattern != "" && (!smPattern(s.Pattern).MatchString(str) || (s.NotSuffix != "" && strings.HasSuffix(str, s.NotSuffix))) {
			allowed := "a value matching " + s.Pattern
			if s.NotSuffix != "" {
				allowed += ", not ending in " + s.NotSuffix
			}
			c.add(path, str, s, "%s", allowed)
		}
	case smInteger, smLong:
		i, ok := wholeNumber(v)
		if !ok {
			c.add(path, contract.Shown(numberKind(v)), s, "an integer written with digits only")
			return
		}
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if s.Kind == smInteger {
			lo, hi = math.MinInt32, math.MaxInt32
		}
		if s.Min != nil {
			lo = max(lo, *s.Min)
		}
		if s.Max != nil {
			hi = min(hi, *s.Max)
		}
		if i < lo || i > hi {
			c.add(path, i, s, "a whole number from %d to %d", lo, hi)
		}
	case smFloat:
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			c.add(path, contract.Shown(valueKind(v)), s, "a number")
			return
		}
		if (s.Min != nil && f < float64(*s.Min)) || (s.Max != nil && f > float64(*s.Max)) {
			c.add(path, f, s, "a number from %s", s.bounds())
		}
	case smBoolean:
		if _, ok := v.(bool); !ok {
			c.add(path, contract.Shown(valueKind(v)), s, "true or false")
		}
	}
}

// required reports a missing member SageMaker requires of s.
func (c *smChecker) required(field string, s *smShape, want string) {
	if c.n >= maxPayloadProblems || c.skipped(field) {
		return
	}
	c.n++
	c.ps.Addf(field, nil, "%s (SageMaker's %s requires it)", want, s.Name)
}

// size checks a list's or map's size.
func (c *smChecker) size(path string, n int, s *smShape, what string) {
	if (s.Min != nil && int64(n) < *s.Min) || (s.Max != nil && int64(n) > *s.Max) {
		c.add(path, contract.Shown(fmt.Sprintf("%d %s", n, what)), s, "%s %s", s.bounds(), what)
	}
}

func (s *smShape) member(name string) (smMember, bool) {
	for _, m := range s.Members {
		if m.Name == name {
			return m, true
		}
	}
	return smMember{}, false
}

// unknown says what is allowed instead of the unknown member name: the
// member of that name in another case, the member an SDK argument or a
// misplaced member stands for (top level: SDKMember), else every member.
func (s *smShape) unknown(name string, top bool) string {
	for _, m := range s.Members {
		if strings.EqualFold(m.Name, name) {
			return fmt.Sprintf("%s (names are case-sensitive)", m.Name)
		}
	}
	if top {
		if want, ok := SDKMember(name); ok {
			return fmt.Sprintf("no %s here: it is CreateTrainingJob's %s (docs/submission.md maps the SageMaker Python SDK's arguments to its members)", name, want)
		}
	}
	return fmt.Sprintf("one of %s (names are case-sensitive)", s.memberNames())
}

func (s *smShape) memberNames() string {
	names := make([]string, len(s.Members))
	for i, m := range s.Members {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// bounds renders Min and Max: "1 to 63", "at least 1", "at most 63".
func (s *smShape) bounds() string {
	switch {
	case s.Min != nil && s.Max != nil:
		return fmt.Sprintf("%d to %d", *s.Min, *s.Max)
	case s.Min != nil:
		return fmt.Sprintf("at least %d", *s.Min)
	case s.Max != nil:
		return fmt.Sprintf("at most %d", *s.Max)
	}
	return "any number of"
}

// want names what a value of s is, for a missing member.
func (s *smShape) want() string {
	switch s.Kind {
	case smStructure:
		return "an object"
	case smList:
		return "a list"
	case smMap:
		if smModel[s.Elem].Kind == smString {
			return "an object of string values"
		}
		return "an object of " + smModel[s.Elem].want() + " values"
	case smString:
		if len(s.Enum) > 0 {
			return "one of " + strings.Join(s.Enum, ", ")
		}
		return "a string"
	case smInteger, smLong:
		return "a whole number"
	case smFloat:
		return "a number"
	case smBoolean:
		return "true or false"
	}
	return "a value"
}
