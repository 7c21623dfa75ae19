package platform

import (
	"math"
	"strconv"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
)

// The bundle decoder.
//
// Every function reads the platform.json the constructs bundle with it at
// init, and ParseJSON's way there (a scan of the keys, encoding/json into
// a map for checkShape, then into Platform, whose per-type caches
// encoding/json builds by reflection on first use) cost most of a
// millisecond of each cold start. A bundle is (*Platform).JSON() of a
// valid platform, so loadJSON first tries a decoder generated from the
// Platform type (bundle_gen.go, written by gen_bundle.go: one function per
// Go type, no reflection) over a small scanner of JSON's bytes. The
// decoder answers only when it is sure ParseJSON would give the same
// platform: on anything unusual — a key it does not know or meets twice,
// a value of another JSON type, a number that is not a whole number
// within ±2^53 where an integer goes, a whole number written with a
// fraction or an exponent, a 0 in a zero:"refuse" field, null inside a
// list or a mapping, a string that is not valid UTF-8 or holds a lone
// surrogate, anything after the object — it gives up, and ParseJSON reads
// the document and reports its problems as always. A platform that fails
// Validate is read again by ParseJSON too, so that every error is
// ParseJSON's own.

//go:generate go run gen_bundle.go

// decodeBundle is the generated decoder of a Platform (bundle_gen.go sets
// it). A package without bundle_gen.go still compiles, with every document
// read by ParseJSON, so that gen_bundle.go, which imports this package,
// can always be run.
var decodeBundle func(s *bundleScan, p *Platform) bool

// bundleDecodes counts the documents loadJSON read by the generated
// decoder, so that the tests can tell it from ParseJSON.
var bundleDecodes atomic.Int64

// loadJSON is ParseJSON, by the generated decoder when it answers.
func loadJSON(data []byte) (*Platform, error) {
	if decodeBundle != nil {
		s := bundleScan{data: data}
		var p Platform
		if decodeBundle(&s, &p) && s.end() {
			p.ApplyDefaults()
			if p.Validate() == nil {
				bundleDecodes.Add(1)
				return &p, nil
			}
		}
	}
	return ParseJSON(data)
}

// bundleScan reads JSON values from data at i for the generated decoder.
// Each method skips the white space before what it reads and returns false
// where the document is not what it reads, leaving i anywhere: the decoder
// then gives up the document.
type bundleScan struct {
	data []byte
	i    int
	buf  []byte // a string's bytes once its escapes are replaced
}

// space skips JSON's white space and returns the byte after it, 0 at the
// end of the data (a 0 byte is no JSON token either).
func (s *bundleScan) space() byte {
	for ; s.i < len(s.data); s.i++ {
		switch c := s.data[s.i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// end reports whether nothing but white space is left.
func (s *bundleScan) end() bool { return s.space() == 0 && s.i == len(s.data) }

// open reads the '{' or '[' that starts an object or a list.
func (s *bundleScan) open(c byte) bool {
	if s.space() != c {
		return false
	}
	s.i++
	return true
}

// member reads the comma before an object's next member, its key and the
// colon after it; more is false at the '}' that ends the object, which is
// read. The key is valid until the scan's next string.
func (s *bundleScan) member(first bool) (key []byte, more, ok bool) {
	c := s.space()
	switch {
	case c == '}':
		s.i++
		return nil, false, true
	case !first && c != ',':
		return nil, false, false
	case !first:
		s.i++
	}
	if key, ok = s.text(); !ok || s.space() != ':' {
		return nil, false, false
	}
	s.i++
	return key, true, true
}

// element reads the comma before a list's next element; more is false at
// the ']' that ends the list, which is read.
func (s *bundleScan) element(first bool) (more, ok bool) {
	c := s.space()
	switch {
	case c == ']':
		s.i++
		return false, true
	case first:
		return true, true
	case c != ',':
		return false, false
	}
	s.i++
	return true, true
}

// once reports whether the field of bit has not been read yet in this
// object, and marks it read.
func once(seen *uint64, bit uint64) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// null reads a null, if that is what comes next.
func (s *bundleScan) null() bool { return s.literal("null") }

func (s *bundleScan) literal(w string) bool {
	if s.space() == w[0] && len(s.data)-s.i >= len(w) && string(s.data[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// boolean reads true or false.
func (s *bundleScan) boolean() (v, ok bool) {
	if s.literal("true") {
		return true, true
	}
	return false, s.literal("false")
}

// str reads a string.
func (s *bundleScan) str() (string, bool) {
	b, ok := s.text()
	return string(b), ok
}

// text reads a string and returns its bytes, valid until the next string
// read: a slice of data, or of buf when it has escapes. A string that is
// not valid UTF-8, or whose escapes give a lone surrogate, is refused:
// encoding/json would replace those with U+FFFD.
func (s *bundleScan) text() ([]byte, bool) {
	if s.space() != '"' {
		return nil, false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.data); j++ {
		switch c := s.data[j]; {
		case c == '"':
			s.i = j + 1
			b := s.data[start:j]
			return b, ascii || utf8.Valid(b)
		case c == '\\':
			return s.unescape(start, j)
		case c < ' ':
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// unescape reads the rest of the string that starts at start, whose first
// escape is at j, into buf.
func (s *bundleScan) unescape(start, j int) ([]byte, bool) {
	d := s.data
	b := append(s.buf[:0], d[start:j]...)
	for j < len(d) {
		c := d[j]
		switch {
		case c == '"':
			s.i, s.buf = j+1, b
			return b, utf8.Valid(b)
		case c < ' ':
			return nil, false
		case c != '\\':
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(d) {
			return nil, false
		}
		switch e := d[j+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(d, j+2)
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				lo, ok := hex4(d, j+8)
				if r >= 0xdc00 || !ok || d[j+6] != '\\' || d[j+7] != 'u' {
					return nil, false
				}
				if r = utf16.DecodeRune(r, lo); r == utf8.RuneError {
					return nil, false
				}
				j += 6
			}
			b = utf8.AppendRune(b, r)
			j += 4
		default:
			return nil, false
		}
		j += 2
	}
	return nil, false
}

// hex4 reads the four hexadecimal digits of a \u escape at d[i:].
func hex4(d []byte, i int) (rune, bool) {
	if i < 0 || i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a JSON number: its text, and whether it has a fraction or
// an exponent.
func (s *bundleScan) number() (text []byte, fraction, ok bool) {
	d := s.data
	if c := s.space(); c != '-' && (c < '0' || c > '9') {
		return nil, false, false
	}
	start, j := s.i, s.i
	if d[j] == '-' {
		j++
	}
	digits := func() bool {
		k := j
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		return j > k
	}
	if j < len(d) && d[j] == '0' {
		j++
	} else if !digits() {
		return nil, false, false
	}
	if j < len(d) && d[j] == '.' {
		j++
		if !digits() {
			return nil, false, false
		}
		fraction = true
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		if !digits() {
			return nil, false, false
		}
		fraction = true
	}
	s.i = j
	return d[start:j], fraction, true
}

// maxExact bounds the integers read: up to 2^53 a float64 holds every
// integer, as checkShape, which reads numbers as float64, needs.
const maxExact = 1 << 53

// integer reads a whole number written without a fraction or an exponent,
// within ±2^53 and the range of an int of the given bits.
func (s *bundleScan) integer(bits int) (int64, bool) {
	text, fraction, ok := s.number()
	if !ok || fraction {
		return 0, false
	}
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	var n int64
	for _, c := range text {
		if n = n*10 + int64(c-'0'); n > maxExact {
			return 0, false
		}
	}
	if neg {
		n = -n
	}
	if bits < 64 && (n < -1<<(bits-1) || n >= 1<<(bits-1)) {
		return 0, false
	}
	return n, true
}

// float reads a number. A whole number written with a fraction or an
// exponent (1.0, 1e3) is refused, as ParseJSON leaves it to the YAML path.
func (s *bundleScan) float() (float64, bool) {
	text, fraction, ok := s.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil || fraction && f == math.Trunc(f) {
		return 0, false
	}
	return f, true
}
