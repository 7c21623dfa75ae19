package platformfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/trainq/trainq/platform"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDefaultYAMLIsTheDefault(t *testing.T) {
	if diff := cmp.Diff(Default(), mustParse(t, DefaultYAML())); diff != "" {
		t.Errorf("Parse(DefaultYAML()) differs from Default() (-Default +parsed):\n%s", diff)
	}
	// Callers get copies: changing one must not change the next.
	b := DefaultYAML()
	copy(b, bytes.Repeat([]byte("x"), len(b)))
	if !strings.Contains(string(DefaultYAML()), "search-ranking") {
		t.Error("changing the bytes DefaultYAML returned changed the embedded default")
	}
	p := Default()
	p.Teams[0].Name = "changed"
	p.Classes[0].Priority.Min = 0
	if Default().Teams[0].Name == "changed" || Default().Classes[0].Priority.Min == 0 {
		t.Error("changing a platform Default returned changed the next Default")
	}
}

// TestManyMistakesAreListedAtOnce parses a file with fifteen mistakes, each
// marked by a comment in the file, and expects every one of them, in a fixed
// order: unknown keys first (keys in alphabetical order, depth first), then
// the checks in the order of the file's sections.
func TestManyMistakesAreListedAtOnce(t *testing.T) {
	data := readTestdata(t, "bad/many-mistakes.yaml")
	want := []string{
		"scheduling.preemption",
		"trainig",
		"name",
		"pools[0].instanceType",
		"scheduling.shareDecaySeconds",
		"scheduling.computeReservation",
		"classes[1].priority",
		"classes[2].retries",
		"teams[0].name",
		"teams[1].weight",
		"teams[2].capacity",
		"monitoring.alarmEmails[0]",
		"monitoring.logRetentionDays",
		"submission.submitters[0].roleArn",
		"submission.submitters[0].classes[1]",
		"submission.submitters[0].teams",
	}
	_, err := Parse(data)
	ps := problemsOf(t, err)
	if diff := cmp.Diff(want, fields(ps)); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s\nerror:\n%v", diff, err)
	}
	for _, p := range ps {
		if p.Field == "" || p.Value == "" || p.Allowed == "" {
			t.Errorf("problem %+v lacks a field, value or allowed range", p)
		}
	}
	// 16 mistakes: a heading and one "  - field: got …, want …" line each.
	lines := strings.Split(err.Error(), "\n")
	if lines[0] != "invalid platform (16 problems):" || len(lines) != 17 {
		t.Errorf("error text has heading %q and %d lines, want \"invalid platform (16 problems):\" and 17:\n%v", lines[0], len(lines), err)
	}
	for i, p := range ps {
		// An unknown key is shown with its line: scheduling.preemption is
		// on line 13 of the file, trainig on line 40.
		if p.Field == "scheduling.preemption" || p.Field == "trainig" {
			p.Value += map[string]string{"scheduling.preemption": " at line 13", "trainig": " at line 40"}[p.Field]
		}
		if i+1 < len(lines) && lines[i+1] != "  - "+p.Field+": got "+p.Value+", want "+p.Allowed {
			t.Errorf("line %d = %q, want the field, value and allowed range of problem %d", i+1, lines[i+1], i)
		}
	}
	// The same file gives the same list every time.
	for range 20 {
		_, again := Parse(data)
		if diff := cmp.Diff(ps, problemsOf(t, again)); diff != "" {
			t.Fatalf("a second parse listed different problems (-first +again):\n%s", diff)
		}
	}
}

// TestYAMLSyntaxErrorIsAParseError: text that is not YAML at all is a parse
// error, not a list of problems.
func TestYAMLSyntaxErrorIsAParseError(t *testing.T) {
	_, err := Parse([]byte("pools: [\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "parse platform:") {
		t.Errorf("got %v, want an error starting with \"parse platform:\"", err)
	}
}

// TestJSONRoundTrip: the JSON bundled with the functions parses back to the
// same platform.
func TestJSONRoundTrip(t *testing.T) {
	cases := map[string][]byte{
		"the default":        DefaultYAML(),
		"testdata/fairshare": readTestdata(t, "fairshare.yaml"),
		"testdata/quota":     readTestdata(t, "quota.yaml"),
		"the documented example": func() []byte {
			b, err := os.ReadFile(filepath.Join("..", "..", "docs", "trainq.example.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}(),
		// Failure alarms turned off must stay off: the empty list must not
		// turn back into the default [production] on the way.
		"failure alarms turned off": func() []byte {
			d := quotaDoc()
			set(t, d, "monitoring.failureAlarmClasses", []any{})
			return render(t, d)
		}(),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			p := mustParse(t, data)
			back := mustParse(t, p.JSON())
			// An empty list and no list are the same list; a list that
			// turns into a different one is not.
			if diff := cmp.Diff(p, back, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("platform after JSON and back (-before +after):\n%s", diff)
			}
		})
	}
}

// TestYAMLAndJSONAreEquivalent: the same platform written in JSON and in
// YAML parses to the same value, and the same mistakes give the same
// problems.
func TestYAMLAndJSONAreEquivalent(t *testing.T) {
	fromYAML := mustParse(t, readTestdata(t, "quota.yaml"))
	fromJSON := mustParse(t, readTestdata(t, "quota.json"))
	if diff := cmp.Diff(fromYAML, fromJSON); diff != "" {
		t.Errorf("quota.yaml and quota.json differ (-yaml +json):\n%s", diff)
	}

	badYAML := `
pools:
  - instanceType: ml.p5.48xlarge
    instances: "forty"
teams: [{name: x, capacity: [{instanceType: ml.p5.48xlarge, instances: 1}], colour: red}]
`
	badJSON := `{"pools": [{"instanceType": "ml.p5.48xlarge", "instances": "forty"}],
 "teams": [{"name": "x", "capacity": [{"instanceType": "ml.p5.48xlarge", "instances": 1}], "colour": "red"}]}`
	_, errYAML := Parse([]byte(badYAML))
	_, errJSON := Parse([]byte(badJSON))
	want := []string{"pools[0].instances", "teams[0].colour"}
	if diff := cmp.Diff(want, fields(problemsOf(t, errYAML))); diff != "" {
		t.Errorf("YAML problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(problemsOf(t, errYAML), problemsOf(t, errJSON)); diff != "" {
		t.Errorf("problems differ (-yaml +json):\n%s", diff)
	}
}

func TestLoadFile(t *testing.T) {
	p, err := LoadFile(filepath.Join("..", "testdata", "fairshare.yaml"))
	if err != nil || p.Scheduling.Mode != ModeFairShare {
		t.Fatalf("LoadFile(fairshare.yaml) = mode %v, %v; want a fair-share platform", p, err)
	}

	bad := filepath.Join("..", "testdata", "bad", "many-mistakes.yaml")
	_, err = LoadFile(bad)
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), bad) {
		t.Errorf("LoadFile(bad file) = %v; want a *ValidationError naming %s", err, bad)
	}

	missing := filepath.Join(t.TempDir(), "trainq.yaml")
	_, err = LoadFile(missing)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("LoadFile(missing) = %v; want a not-exist error naming %s", err, missing)
	}
}

func TestLoadFileOrDefault(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "trainq.yaml")
	tests := []struct {
		name     string
		path     string
		wantMode Mode   // the platform's mode (the default is quota, the fixture fairshare)
		wantErr  string // what the error names, "" for none
	}{
		{"no path is the embedded default platform", "", ModeQuota, ""},
		{"a path is the file", filepath.Join("..", "testdata", "fairshare.yaml"), ModeFairShare, ""},
		{"a missing file is an error naming it, never the default", missing, "", missing},
		{"an invalid file is an error naming it", filepath.Join("..", "testdata", "bad", "many-mistakes.yaml"), "", "many-mistakes.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := LoadFileOrDefault(tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadFileOrDefault(%q) = %v, %v; want an error naming %s", tt.path, p, err, tt.wantErr)
				}
				return
			}
			if err != nil || p.Scheduling.Mode != tt.wantMode {
				t.Fatalf("LoadFileOrDefault(%q) = %v, %v; want a %s platform", tt.path, p, err, tt.wantMode)
			}
		})
	}
}
