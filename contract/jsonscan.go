package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// JSON as trainq reads it from callers and from AWS: member names are
// case-sensitive (encoding/json matches them regardless of case, so that
// "STATUS" would fill a field named status), a name given twice in one
// object is refused rather than letting the last one win, and nesting is
// bounded far below encoding/json's 10,000 levels, with a message that says
// so instead of "not JSON".

// MaxRequestDepth bounds how deeply a request may nest: the request is
// level 1, trainingJob level 2, and SageMaker's deepest CreateTrainingJob
// member is 6 levels below the payload.
const MaxRequestDepth = 32

// Member is one member of a JSON object: its name, decoded, and its value
// as the object spells it.
type Member struct {
	Name  string
	Value json.RawMessage
}

// ErrNotObject is SplitObject's error for a document that is no JSON object.
var ErrNotObject = errors.New("not a JSON object")

// SplitObject returns the members of the JSON object data in their order,
// repeated names included. Values are delimited, not validated: json.Unmarshal
// of a member's value reports what is wrong with it, so that one bad member
// does not make the others unreadable, however deeply it nests. It fails
// when data is not an object or its members cannot be delimited.
func SplitObject(data []byte) ([]Member, error) {
	s := &scanner{data: data}
	s.ws()
	if !s.is('{') {
		return nil, ErrNotObject
	}
	s.pos++
	var out []Member
	s.ws()
	if s.is('}') {
		s.pos++
		return out, s.end()
	}
	for {
		s.ws()
		name, err := s.str()
		if err != nil {
			return nil, err
		}
		s.ws()
		if !s.is(':') {
			return nil, s.errorf("want ':' after member %q", Cut(name, MaxShownChars))
		}
		s.pos++
		s.ws()
		start := s.pos
		if err := s.skip(); err != nil {
			return nil, err
		}
		out = append(out, Member{Name: name, Value: json.RawMessage(data[start:s.pos])})
		s.ws()
		switch {
		case s.is(','):
			s.pos++
		case s.is('}'):
			s.pos++
			return out, s.end()
		default:
			return nil, s.errorf("want ',' or '}' after member %q", Cut(name, MaxShownChars))
		}
	}
}

// JSONProblem is where a document breaks trainq's JSON rules: Path names the
// place (dotted members, [i] for list items; "" for the document itself) and
// What says what is wrong.
type JSONProblem struct {
	Path, What string
	// Text is set when the problem is a string that is not valid Unicode
	// text (What says where): encoding/json would silently put U+FFFD in
	// its place.
	Text bool
}

// CheckJSON returns the first place where data nests more than maxDepth
// levels deep (an object or a list is a level), an object repeats a member
// name, or a string (a name or a value) is not valid Unicode text: bytes
// that are not UTF-8, or a \u escape of a lone surrogate. Else nil. It stops without a problem at the first syntax error:
// json.Unmarshal reports those.
func CheckJSON(data []byte, maxDepth int) *JSONProblem {
	s := &scanner{data: data, maxDepth: maxDepth}
	p, _ := s.check("", 0)
	return p
}

type scanner struct {
	data     []byte
	pos      int
	maxDepth int
}

func (s *scanner) is(c byte) bool { return s.pos < len(s.data) && s.data[s.pos] == c }

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) end() error {
	s.ws()
	if s.pos != len(s.data) {
		return s.errorf("text after the end of the object")
	}
	return nil
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("JSON at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
}

// str reads a string and returns it decoded.
func (s *scanner) str() (string, error) {
	if !s.is('"') {
		return "", s.errorf("want a string")
	}
	start := s.pos
	s.pos++
	escaped := false
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		s.pos++
		switch {
		case c == '\\':
			s.pos++
			escaped = true
		case c == '"':
			raw := s.data[start:s.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return "", s.errorf("bad string: %v", err)
			}
			return v, nil
		}
	}
	return "", s.errorf("unterminated string")
}

// skip moves past one value without recursion, whatever its depth.
func (s *scanner) skip() error {
	depth := 0
	for {
		s.ws()
		if s.pos >= len(s.data) {
			return s.errorf("unexpected end")
		}
		switch c := s.data[s.pos]; c {
		case '"':
			if _, err := s.str(); err != nil {
				return err
			}
		case '{', '[':
			depth++
			s.pos++
			continue
		case '}', ']':
			if depth == 0 {
				return s.errorf("unexpected %q", c)
			}
			depth--
			s.pos++
		case ',', ':':
			if depth == 0 {
				return s.errorf("unexpected %q", c)
			}
			s.pos++
			continue
		default:
			start := s.pos
			for s.pos < len(s.data) && !isDelim(s.data[s.pos]) {
				s.pos++
			}
			if start == s.pos {
				return s.errorf("unexpected %q", c)
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

var errSyntax = errors.New("syntax")

// check walks one value at depth (the levels around it) and returns the
// first problem, or errSyntax to stop silently.
func (s *scanner) check(path string, depth int) (*JSONProblem, error) {
	s.ws()
	if s.pos >= len(s.data) {
		return nil, errSyntax
	}
	switch s.data[s.pos] {
	case '{':
		if depth+1 > s.maxDepth {
			return &JSONProblem{Path: path, What: fmt.Sprintf("JSON nested more than %d levels deep", s.maxDepth)}, nil
		}
		s.pos++
		seen := map[string]bool{}
		s.ws()
		if s.is('}') {
			s.pos++
			return nil, nil
		}
		for {
			s.ws()
			nameAt := s.pos
			name, err := s.str()
			if err != nil {
				return nil, errSyntax
			}
			field := joinPath(path, name)
			if why := textProblem(s.data[nameAt:s.pos]); why != "" {
				return &JSONProblem{Path: field, What: "a member name that is " + why, Text: true}, nil
			}
			if seen[name] {
				return &JSONProblem{Path: field, What: fmt.Sprintf("member %q given twice", Cut(name, MaxShownChars))}, nil
			}
			seen[name] = true
			s.ws()
			if !s.is(':') {
				return nil, errSyntax
			}
			s.pos++
			if p, err := s.check(field, depth+1); p != nil || err != nil {
				return p, err
			}
			s.ws()
			switch {
			case s.is(','):
				s.pos++
			case s.is('}'):
				s.pos++
				return nil, nil
			default:
				return nil, errSyntax
			}
		}
	case '[':
		if depth+1 > s.maxDepth {
			return &JSONProblem{Path: path, What: fmt.Sprintf("JSON nested more than %d levels deep", s.maxDepth)}, nil
		}
		s.pos++
		s.ws()
		if s.is(']') {
			s.pos++
			return nil, nil
		}
		for i := 0; ; i++ {
			if p, err := s.check(path+"["+strconv.Itoa(i)+"]", depth+1); p != nil || err != nil {
				return p, err
			}
			s.ws()
			switch {
			case s.is(','):
				s.pos++
			case s.is(']'):
				s.pos++
				return nil, nil
			default:
				return nil, errSyntax
			}
		}
	}
	at := s.pos
	if err := s.skip(); err != nil {
		return nil, errSyntax
	}
	if s.data[at] == '"' {
		if why := textProblem(s.data[at:s.pos]); why != "" {
			return &JSONProblem{Path: path, What: "a string that is " + why, Text: true}, nil
		}
	}
	return nil, nil
}

// textProblem says why the JSON string raw (quotes included) is not valid
// Unicode text, or returns "": bytes that are not UTF-8, or a \u escape of
// a surrogate that is not the first of a pair followed by the second.
func textProblem(raw []byte) string {
	for i := 1; i < len(raw)-1; {
		c := raw[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				return fmt.Sprintf("not valid UTF-8 (byte 0x%02x at character %d)", c, utf8.RuneCount(raw[1:i])+1)
			}
			i += n
			continue
		}
		if i+1 < len(raw) && raw[i+1] != 'u' {
			i += 2
			continue
		}
		r1, ok := hex4(raw, i+2)
		if !ok {
			return ""
		}
		switch {
		case r1 >= 0xD800 && r1 < 0xDC00:
			r2, ok := rune(0), false
			if i+11 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				r2, ok = hex4(raw, i+8)
			}
			if !ok || r2 < 0xDC00 || r2 > 0xDFFF {
				return fmt.Sprintf("not valid Unicode (a lone surrogate \\u%04X)", r1)
			}
			i += 12
		case r1 >= 0xDC00 && r1 <= 0xDFFF:
			return fmt.Sprintf("not valid Unicode (a lone surrogate \\u%04X)", r1)
		default:
			i += 6
		}
	}
	return ""
}

// hex4 reads the four hex digits at raw[i:].
func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(v), err == nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
