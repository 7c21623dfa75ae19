package platform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// The bundle decoder's promise (bundle.go): loadJSON gives exactly
// ParseJSON's platform or error, and reads a function's bundle — the JSON
// of a valid platform — without ParseJSON. ParseJSON is the reference of
// every test here: no expected platform is written down.

// bundleSeeds are the platforms the tests make bundles of, by name: the
// default, every platform under testdata/, the documented example and the
// example with a team in subnets of its own: every field is set in one of
// them (TestSeedsSetEveryField).
func bundleSeeds(t testing.TB) map[string]*Platform {
	t.Helper()
	seeds := map[string]*Platform{"default": Default()}
	files, _ := filepath.Glob("testdata/*.*")
	for _, name := range append(files, filepath.Join("..", "docs", "trainq.example.yaml")) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seeds[filepath.Base(name)] = p
	}
	// The example's first team in subnets of its own, the one field the
	// files leave out.
	var own Platform
	if err := json.Unmarshal(seeds["trainq.example.yaml"].JSON(), &own); err != nil {
		t.Fatal(err)
	}
	own.Teams[0].Training.VPC = &TrainingVPC{
		Subnets:        []string{"subnet-0f1e2d3c4b5a69788"},
		SecurityGroups: []string{"sg-0fedcba9876543210", "sg-01234567"},
	}
	if err := own.Validate(); err != nil {
		t.Fatalf("the example with a team's own VPC: %v", err)
	}
	seeds["team VPC"] = &own
	return seeds
}

// load is loadJSON's answer for data, and whether the generated decoder
// gave it.
func load(data []byte) (p *Platform, decoded bool, err error) {
	before := bundleDecodes.Load()
	p, err = loadJSON(data)
	return p, bundleDecodes.Load() != before, err
}

// agree fails the test unless loadJSON gives ParseJSON's platform or
// error for data, and reports whether the decoder read it and whether
// ParseJSON accepts it. When the decoder gives up, loadJSON's answer is
// ParseJSON's own (and TestLoadJSONFileErrorsAreParseJSONs holds its
// error so): only the decoder's answers are compared, which halves the
// time of the tests that try thousands of documents.
func agree(t testing.TB, what string, data []byte) (bool, bool) {
	t.Helper()
	got, decoded, err := load(data)
	if !decoded {
		return false, err == nil
	}
	want, wantErr := ParseJSON(data)
	if wantErr != nil {
		t.Errorf("%s: the decoder read a document ParseJSON refuses:\n%v\ndocument: %.2000s", what, wantErr, data)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the decoder's platform is not ParseJSON's (-ParseJSON +decoder):\n%s\ndocument: %.2000s",
			what, cmp.Diff(want, got), data)
	}
	return true, true
}

// TestLoadJSONFileReadsEveryBundleByTheDecoder: the bundle of each seed
// platform (its JSON, as the constructs write it next to each function) is
// read by the generated decoder and gives ParseJSON's platform, and so does
// each seed file that is JSON, as written.
func TestLoadJSONFileReadsEveryBundleByTheDecoder(t *testing.T) {
	dir := t.TempDir()
	for name, p := range bundleSeeds(t) {
		data := p.JSON()
		want, err := ParseJSON(data)
		if err != nil {
			t.Fatalf("%s: ParseJSON of its bundle: %v", name, err)
		}
		path := filepath.Join(dir, name+".platform.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		before := bundleDecodes.Load()
		got, err := LoadJSONFile(path)
		if err != nil {
			t.Fatalf("%s: LoadJSONFile: %v", name, err)
		}
		if bundleDecodes.Load() != before+1 {
			t.Errorf("%s: the bundle was read by ParseJSON, not by the generated decoder", name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: LoadJSONFile is not ParseJSON (-ParseJSON +LoadJSONFile):\n%s", name, diff)
		}
	}
	files, _ := filepath.Glob("testdata/*.json")
	for _, name := range files {
		if decoded, _ := agree(t, name, readTestdata(t, filepath.Base(name))); !decoded {
			t.Errorf("%s, as written (indented): read by ParseJSON, not by the generated decoder", name)
		}
	}
}

// TestLoadJSONFileErrorsAreParseJSONs: a file the decoder gives up gets
// ParseJSON's error under LoadJSONFile's heading.
func TestLoadJSONFileErrorsAreParseJSONs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "platform.json")
	data := bytes.Replace(Default().JSON(), []byte(`"instances":40`), []byte(`"instances":0`), 1)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, want := ParseJSON(data)
	_, err := LoadJSONFile(path)
	if want == nil || fmt.Sprint(err) != fmt.Sprintf("platform file %s: %v", path, want) {
		t.Errorf("LoadJSONFile: %v\nwant ParseJSON's error: %v", err, want)
	}
}

// TestSeedsSetEveryField: every field of every type under Platform is set
// (not its zero value) in at least one seed platform, so that the tests
// that read the seeds' bundles read every field.
func TestSeedsSetEveryField(t *testing.T) {
	set := map[string]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if !v.Field(i).IsZero() {
					set[fieldKey(v.Type(), v.Type().Field(i))] = true
				}
				walk(v.Field(i))
			}
		}
	}
	for _, p := range bundleSeeds(t) {
		walk(reflect.ValueOf(p))
	}
	walkTypes(reflect.TypeOf(Platform{}), func(owner reflect.Type, f reflect.StructField) {
		if !set[fieldKey(owner, f)] {
			t.Errorf("no seed platform sets %s", fieldKey(owner, f))
		}
	})
}

// TestTheDecoderReadsWhatEncodingJSONReads: for platforms whose every
// field holds a random value of its type (strings with quotes, escapes,
// HTML characters, U+2028 and characters outside the BMP; numbers of
// every size; nil, empty and full lists, mappings and pointers), not
// necessarily valid ones, the generated decoder reads the JSON that
// encoding/json writes, compact and indented, and gives the Platform that
// json.Unmarshal gives.
func TestTheDecoderReadsWhatEncodingJSONReads(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var p Platform
		randomFill(r, reflect.ValueOf(&p).Elem(), false)
		compact, err := json.Marshal(&p)
		if err != nil {
			t.Fatal(err)
		}
		indented, _ := json.MarshalIndent(&p, "", "  ")
		for _, data := range [][]byte{compact, indented} {
			var want, got Platform
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			s := bundleScan{data: data}
			if !decodeBundle(&s, &got) || !s.end() {
				t.Fatalf("platform %d: the decoder gave up at byte %d of\n%s", i, s.i, data)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("platform %d: the decoder is not json.Unmarshal (-Unmarshal +decoder):\n%s\ndocument:\n%s", i, diff, data)
			}
		}
	}
}

// randomFill sets v to a random value of its type; refuse says the field
// refuses an explicit 0, which it then never holds.
func randomFill(r *rand.Rand, v reflect.Value, refuse bool) {
	switch v.Kind() {
	case reflect.String:
		const alphabet = "ab-_.:/09 \"\\<>&\t\n\x01\u00e9\u20ac\u2028\U0001F600"
		runes := []rune(alphabet)
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteRune(runes[r.IntN(len(runes))])
		}
		v.SetString(b.String())
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int32, reflect.Int64:
		bits := min(v.Type().Bits()-1, 53)
		n := r.Int64N(int64(1) << r.IntN(bits+1))
		if r.IntN(2) == 0 {
			n = -n
		}
		if n == 0 && refuse {
			n = 1
		}
		v.SetInt(n)
	case reflect.Float64:
		f := float64(r.IntN(1000))
		switch r.IntN(3) {
		case 0:
			f = r.Float64() * float64(int64(1)<<r.IntN(60))
		case 1:
			f = -r.Float64() / float64(int64(1)<<r.IntN(20))
		}
		if f == 0 && refuse {
			f = 0.5
		}
		v.SetFloat(f)
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		randomFill(r, v.Elem(), refuse)
	case reflect.Slice:
		n := r.IntN(4) - 1
		if n < 0 {
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			randomFill(r, v.Index(i), false)
		}
	case reflect.Map:
		n := r.IntN(4) - 1
		if n < 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		for range n {
			k := reflect.New(v.Type().Key()).Elem()
			randomFill(r, k, false)
			e := reflect.New(v.Type().Elem()).Elem()
			randomFill(r, e, false)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			randomFill(r, v.Field(i), f.Tag.Get(zeroTag) == zeroRefuse)
		}
	default:
		panic(fmt.Sprintf("randomFill: a %s", v.Kind()))
	}
}

// TestRandomPlatformsLoadAsByParseJSON: platforms made from the seeds by
// changing one to three values anywhere (a string to another of the
// seeds' strings, a number up, down or to a bound, a flag flipped, a
// pointer, list entry or mapping entry dropped or a list entry repeated)
// give, through loadJSON, ParseJSON's platform or error; each one
// ParseJSON accepts is read by the decoder.
func TestRandomPlatformsLoadAsByParseJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	seeds := bundleSeeds(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range seeds {
			if !yield(n) {
				return
			}
		}
	})
	var strs []string
	for _, p := range seeds {
		for _, c := range changes(reflect.ValueOf(p).Elem()) {
			if c.str != "" {
				strs = append(strs, c.str)
			}
		}
	}
	slices.Sort(strs)
	valid, total := 0, 600
	for range total {
		name := names[r.IntN(len(names))]
		var p Platform
		if err := json.Unmarshal(seeds[name].JSON(), &p); err != nil {
			t.Fatal(err)
		}
		var did []string
		for range 1 + r.IntN(3) {
			cs := changes(reflect.ValueOf(&p).Elem())
			c := cs[r.IntN(len(cs))]
			did = append(did, c.path)
			c.apply(r, strs)
		}
		data := p.JSON()
		what := fmt.Sprintf("%s changed at %v", name, did)
		decoded, ok := agree(t, what, data)
		if ok {
			valid++
			if !decoded {
				t.Errorf("%s: valid, but read by ParseJSON, not by the generated decoder", what)
			}
		}
	}
	// A test of valid platforms needs valid platforms: at least one in
	// five changed platforms stays valid.
	if valid < total/5 {
		t.Errorf("only %d of %d changed platforms are valid", valid, total)
	}
	t.Logf("%d of %d changed platforms valid", valid, total)
}

// change is one way to change a platform at path; str is the string it
// holds, for a string.
type change struct {
	path  string
	str   string
	apply func(r *rand.Rand, strs []string)
}

// changes lists a change of every value under v (a settable struct).
func changes(v reflect.Value) []change {
	var out []change
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			out = append(out, change{path, v.String(), func(r *rand.Rand, strs []string) {
				v.SetString(strs[r.IntN(len(strs))])
			}})
		case reflect.Bool:
			out = append(out, change{path, "", func(*rand.Rand, []string) { v.SetBool(!v.Bool()) }})
		case reflect.Int:
			out = append(out, change{path, "", func(r *rand.Rand, _ []string) {
				n := v.Int()
				v.SetInt([]int64{n + 1, n - 1, n * 2, n / 2, 1, 60, 600, 3600, 86400, r.Int64N(1000)}[r.IntN(10)])
			}})
		case reflect.Float64:
			out = append(out, change{path, "", func(r *rand.Rand, _ []string) {
				f := v.Float()
				v.SetFloat([]float64{f * 2, f / 2, f + 0.5, 0.25, 1, float64(r.IntN(100))}[r.IntN(6)])
			}})
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			out = append(out, change{path, "", func(*rand.Rand, []string) { v.SetZero() }})
			walk(v.Elem(), path)
		case reflect.Slice:
			for i := range v.Len() {
				out = append(out, change{fmt.Sprintf("%s[%d] dropped", path, i), "", func(*rand.Rand, []string) {
					v.Set(reflect.AppendSlice(v.Slice(0, i), v.Slice(i+1, v.Len())))
				}}, change{fmt.Sprintf("%s[%d] repeated", path, i), "", func(*rand.Rand, []string) {
					v.Set(reflect.Append(v, v.Index(i)))
				}})
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				out = append(out, change{path + "." + k.String() + " dropped", "", func(*rand.Rand, []string) {
					v.SetMapIndex(k, reflect.Value{})
				}})
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), join(path, v.Type().Field(i).Name))
			}
		}
	}
	walk(v, "")
	return out
}

// TestMutatedBundlesLoadAsByParseJSON: each seed's bundle, changed in the
// ways a hand-edited or damaged file is — each value replaced by one of
// another JSON type, 0, -0, null, a fraction, a whole number with a
// fraction or an exponent, numbers past 2^53 and past int64, a string with
// a lone surrogate, invalid UTF-8 or a control character (null, 0 and a
// string each time, one of the others in turn); each key deleted, given
// twice, written in another case, next to an unknown key; each string
// written with escapes; the document cut at many bytes or followed by
// more — gives, through loadJSON, ParseJSON's platform or
// error. The rewrites that change nothing (escapes, white space) are read
// by the decoder.
func TestMutatedBundlesLoadAsByParseJSON(t *testing.T) {
	seeds := bundleSeeds(t)
	r := rand.New(rand.NewPCG(5, 6))
	replacements := []string{
		`"7"`, `7`, `-7`, `0.5`, `1.0`, `1e3`, `1e400`, `9007199254740992`, `9007199254740993`,
		`-9223372036854775809`, `123456789012345678901234567890`, `true`, `false`, `{}`, `[]`, `[null]`,
		`{"":1}`, `-0`, `"\ud800"`, `"\udc00\ud800"`, "\"\xff\"", "\"a\x01\"", `"\x"`, `"\u00e9\ud83d\ude00"`, `"a\/b"`,
	}
	total, decoded, done := 0, 0, map[string]bool{}
	try := func(what string, data []byte) bool {
		total++
		d, _ := agree(t, what, data)
		if d {
			decoded++
		}
		return d
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range seeds {
			if !yield(n) {
				return
			}
		}
	}) {
		doc := seeds[name].JSON()
		if done[string(doc)] {
			continue // testdata/quota.json is testdata/quota.yaml
		}
		done[string(doc)] = true
		edit := func(from, to int, with string) []byte {
			return slices.Concat(doc[:from], []byte(with), doc[to:])
		}
		for _, m := range members(doc) {
			key, value := string(doc[m.key:m.colon]), string(doc[m.colon+1:m.end])
			at := fmt.Sprintf("%s: %s", name, key)
			for _, with := range []string{`null`, `0`, `"x"`} {
				try(at+" = "+with, edit(m.colon+1, m.end, with))
			}
			with := replacements[r.IntN(len(replacements))]
			try(at+" = "+with, edit(m.colon+1, m.end, with))
			if value[0] == '"' {
				if !try(at+" written with escapes", edit(m.colon+1, m.end, escaped(value))) {
					t.Errorf("%s written with escapes: read by ParseJSON, not by the generated decoder", at)
				}
			}
			if value[0] == '-' || value[0] >= '0' && value[0] <= '9' {
				try(at+" as a string", edit(m.colon+1, m.end, `"`+value+`"`))
			}
			if m.comma == 0 && doc[m.key-1] == ',' {
				try(at+" deleted", edit(m.key-1, m.end, ""))
			} else {
				try(at+" deleted", edit(m.key, m.end+m.comma, ""))
			}
			try(at+" given twice", edit(m.end, m.end, ","+key+":"+value))
			try(at+" in capitals", edit(m.key, m.colon, strings.ToUpper(key)))
			try(at+" next to an unknown key", edit(m.key, m.key, `"zz":1,`))
			if !try(at+" with white space", edit(m.colon+1, m.colon+1, " \n\t\r")) {
				t.Errorf("%s with white space: read by ParseJSON, not by the generated decoder", at)
			}
		}
		// Every byte of the default's bundle, every seventh of the others'.
		stride := 7
		if name == "default" {
			stride = 1
		}
		for n := 0; n < len(doc); n += stride {
			try(fmt.Sprintf("%s cut at byte %d", name, n), doc[:n])
		}
		for _, tail := range []string{" \n", " x", "{}", ",", "\x00"} {
			try(fmt.Sprintf("%s followed by %q", name, tail), append(slices.Clone(doc), tail...))
		}
	}
	t.Logf("%d mutated documents, %d read by the decoder", total, decoded)
}

// member is an object's member in a compact JSON document: its key (in
// quotes) from key to colon, its value from colon+1 to end; comma is 1 when
// a comma follows it.
type member struct{ key, colon, end, comma int }

// members lists every member of every object of a compact JSON document
// (as json.Marshal writes one).
func members(d []byte) []member {
	var out []member
	var value func(i int) int
	str := func(i int) int {
		for i++; d[i] != '"'; i++ {
			if d[i] == '\\' {
				i++
			}
		}
		return i + 1
	}
	value = func(i int) int {
		switch d[i] {
		case '{':
			i++
			for d[i] != '}' {
				m := member{key: i}
				m.colon = str(i)
				m.end = value(m.colon + 1)
				i = m.end
				if d[i] == ',' {
					m.comma = 1
					i++
				}
				out = append(out, m)
			}
			return i + 1
		case '[':
			i++
			for d[i] != ']' {
				if i = value(i); d[i] == ',' {
					i++
				}
			}
			return i + 1
		case '"':
			return str(i)
		}
		for i < len(d) && !strings.ContainsRune(",}]", rune(d[i])) {
			i++
		}
		return i
	}
	value(0)
	return out
}

// escaped writes a JSON string (quoted) with every character as a \u
// escape (a pair of them outside the BMP).
func escaped(quoted string) string {
	s, err := strconv.Unquote(quoted)
	if err != nil {
		// JSON escapes Go's Unquote does not know (\/): keep it as is.
		return quoted
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04X`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	b.WriteByte('"')
	return b.String()
}

// FuzzFastDecodeAgreesWithParseJSON: for any document, loadJSON gives
// ParseJSON's platform or error.
func FuzzFastDecodeAgreesWithParseJSON(f *testing.F) {
	for _, p := range bundleSeeds(f) {
		f.Add(p.JSON())
		indented, _ := json.MarshalIndent(p, "", " ")
		f.Add(indented)
	}
	for _, s := range []string{
		`{}`, `{"name":"a","name":"b"}`, `{"pools":[null]}`, `{"monitoring":{"maxWaitSeconds":{"a":null}}}`,
		`{"ledger":{"retentionDays":-0}}`, `{"teams":[{"name":"\ud83d\ude00"}]}`, `{"name":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, "fuzzed document", data)
	})
}

// TestBundleDecoderIsGenerated: bundle_gen.go is what gen_bundle.go
// writes from today's Platform type, so that a field added to a type under
// Platform is read by the decoder (or the generator says why it cannot).
func TestBundleDecoderIsGenerated(t *testing.T) {
	out := filepath.Join(t.TempDir(), "bundle_gen.go")
	cmd := exec.Command("go", "run", "gen_bundle.go", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen_bundle.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("bundle_gen.go")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("platform/bundle_gen.go is not what gen_bundle.go writes from the Platform type (%v): run go generate ./platform", err)
	}
}

// BenchmarkLoadBundle reads the documented example's bundle (the largest
// seed) by loadJSON, whose generated decoder reads it, and by ParseJSON,
// in the same run. Both are warm here: encoding/json's caches are built
// by the first iteration; a function's cold start pays them once, which
// docs/rerouting.md measures.
func BenchmarkLoadBundle(b *testing.B) {
	data := bundleSeeds(b)["trainq.example.yaml"].JSON()
	for _, bc := range []struct {
		name string
		load func([]byte) (*Platform, error)
	}{{"decoder", loadJSON}, {"ParseJSON", ParseJSON}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := bc.load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTheScannerReadsStringsAsEncodingJSON: a string the scanner reads is
// the string json.Unmarshal reads, for random strings of the bytes that
// matter (quotes, escapes, parts of surrogates, invalid and valid UTF-8,
// control characters); and it gives up exactly those json.Unmarshal
// refuses or would change: invalid UTF-8 and lone surrogates, which
// encoding/json replaces by U+FFFD, and control characters. A platform's
// strings mostly fail Validate when they hold such bytes, so the document
// tests above seldom reach this.
func TestTheScannerReadsStringsAsEncodingJSON(t *testing.T) {
	pieces := []string{`\`, `"`, `u`, `d8`, `3d`, `de`, `00`, `dc`, `ud800`, `\ud83d`, `\ude00`, `\u00e9`,
		"\xff", "\xc3", "\xa9", "\xed\xa0\x80", "\x01", "\t", `\n`, `\/`, `\x`, "a", "é", "😀"}
	r := rand.New(rand.NewPCG(7, 8))
	read, refused := 0, 0
	for range 20000 {
		var b strings.Builder
		b.WriteByte('"')
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteByte('"')
		lit := b.String()
		s := bundleScan{data: []byte(lit)}
		got, ok := s.str()
		var want string
		err := json.Unmarshal([]byte(lit), &want)
		// The string encoding/json reads keeps every byte and escape:
		// nothing replaced by U+FFFD that was not written as U+FFFD.
		faithful := err == nil && strings.Count(want, "\ufffd") == strings.Count(lit, "\ufffd")+strings.Count(strings.ToLower(lit), `\ufffd`)
		switch {
		case ok && !s.end():
			// A string ended early; the rest is not JSON.
		case ok && (err != nil || got != want):
			t.Errorf("%q: the scanner reads %q, json.Unmarshal %q (%v)", lit, got, want, err)
		case !ok && faithful:
			t.Errorf("%q: the scanner gives up a string json.Unmarshal reads as %q", lit, want)
		}
		if ok {
			read++
		} else {
			refused++
		}
	}
	t.Logf("%d strings read, %d given up", read, refused)
}

// TestTheScannerReadsNumbersAsEncodingJSON: the whole numbers the scanner
// reads for an int field are the ones encoding/json reads into an int64,
// within ±2^53 (past which checkShape's float64 cannot tell them apart),
// written without a fraction or an exponent; the numbers it reads for a
// float64 field are encoding/json's, but for whole numbers written with
// a fraction or an exponent, which ParseJSON leaves to the YAML path.
func TestTheScannerReadsNumbersAsEncodingJSON(t *testing.T) {
	for lit, wantInt := range map[string]bool{
		"0": true, "-0": true, "7": true, "-42": true, "9007199254740992": true, "-9007199254740992": true,
		"9007199254740993": false, "9223372036854775807": false, "1.0": false, "1e3": false, "0.5": false,
		"01": false, "-": false, "1.": false, "1e": false, "+1": false, ".5": false, "--1": false, "": false,
	} {
		s := bundleScan{data: []byte(lit)}
		n, ok := s.integer(64)
		ok = ok && s.end()
		var want int64
		err := json.Unmarshal([]byte(lit), &want)
		if ok != wantInt || ok && (err != nil || n != want) {
			t.Errorf("integer %q: %d, %v; json.Unmarshal %d, %v; want read: %v", lit, n, ok, want, err, wantInt)
		}
	}
	for lit, wantFloat := range map[string]bool{
		"0": true, "-0": true, "0.5": true, "-1.25e-3": true, "12345678.9": true, "1e-7": true, "2.5E+3": false,
		"1.0": false, "1e3": false, "1e400": false, "01.5": false, ".5": false, "1.5.": false,
	} {
		s := bundleScan{data: []byte(lit)}
		f, ok := s.float()
		ok = ok && s.end()
		var want float64
		err := json.Unmarshal([]byte(lit), &want)
		if ok != wantFloat || ok && (err != nil || f != want) {
			t.Errorf("float %q: %g, %v; json.Unmarshal %g, %v; want read: %v", lit, f, ok, want, err, wantFloat)
		}
	}
}
