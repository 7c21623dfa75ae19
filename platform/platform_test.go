package platform

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// bandsPlatform has classes of unusual widths: 1000 wide, 10 wide, a single
// priority, and bands at both ends of Batch's 0–9999 range.
const bandsPlatform = `
pools: [{instanceType: ml.p5.48xlarge, instances: 4}]
teams: [{name: solo, capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]}]
classes:
  - {name: top, priority: {min: 9000, max: 9999}}
  - {name: narrow, priority: {min: 4000, max: 4009}}
  - {name: single, priority: {min: 3000, max: 3000}}
  - {name: bottom, priority: {min: 0, max: 98}}
  - {name: wide, priority: {min: 99, max: 2999}}
`

// TestClassForPriorityRoundTrips: every request priority of every class maps
// into the class's band, and back to the same class.
func TestClassForPriorityRoundTrips(t *testing.T) {
	platforms := map[string]*Platform{
		"the default":                  Default(),
		"unusual band widths":          mustParse(t, []byte(bandsPlatform)),
		"the fair-share test platform": mustParse(t, readTestdata(t, "fairshare.yaml")),
	}
	for name, p := range platforms {
		t.Run(name, func(t *testing.T) {
			for _, c := range p.Classes {
				prev := -1
				for rp := 0; rp <= RequestPriorityMax; rp++ {
					sp := c.SchedulingPriority(rp)
					if !c.Priority.Contains(sp) {
						t.Fatalf("%s: request priority %d maps to %d, outside the band %d-%d", c.Name, rp, sp, c.Priority.Min, c.Priority.Max)
					}
					if sp < prev {
						t.Fatalf("%s: request priority %d maps to %d, below %d for %d", c.Name, rp, sp, prev, rp-1)
					}
					prev = sp
					back, ok := p.ClassForPriority(sp)
					if !ok || back.Name != c.Name {
						t.Fatalf("%s: ClassForPriority(%d) = %q, %v; want %q", c.Name, sp, back.Name, ok, c.Name)
					}
				}
				// The ends of the request range reach the ends of the band.
				if lo, hi := c.SchedulingPriority(0), c.SchedulingPriority(RequestPriorityMax); lo != c.Priority.Min || hi != c.Priority.Max {
					t.Errorf("%s: request priorities 0 and %d map to %d and %d, want %d and %d",
						c.Name, RequestPriorityMax, lo, hi, c.Priority.Min, c.Priority.Max)
				}
				// Out-of-range requests are clamped to the band.
				if lo, hi := c.SchedulingPriority(-7), c.SchedulingPriority(150); lo != c.Priority.Min || hi != c.Priority.Max {
					t.Errorf("%s: request priorities -7 and 150 map to %d and %d, want the band ends %d and %d",
						c.Name, lo, hi, c.Priority.Min, c.Priority.Max)
				}
			}
		})
	}
}

// TestSchedulingPriorityOfTheDefaultBands: the default bands are 100 wide
// (max − min = 99 = RequestPriorityMax), so request priority p maps to
// min + p × 99 / 99 = min + p.
func TestSchedulingPriorityOfTheDefaultBands(t *testing.T) {
	p := Default()
	cases := []struct {
		name  string
		class string
		rp    int
		want  int
	}{
		{"production at the default priority 50 runs at 900 + 50", "production", DefaultRequestPriority, 950},
		{"production at 0 runs at its band's bottom", "production", 0, 900},
		{"production at 99 runs at its band's top", "production", 99, 999},
		{"research at 17 runs at 500 + 17", "research", 17, 517},
		{"sweep at 99 runs at 100 + 99", "sweep", 99, 199},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := p.Class(tc.class)
			if got := c.SchedulingPriority(tc.rp); got != tc.want {
				t.Errorf("SchedulingPriority(%d) = %d, want %d", tc.rp, got, tc.want)
			}
		})
	}
	// In a band 10 wide (4000-4009: max − min = 9), p maps to
	// 4000 + p × 9 / 99, rounded down: 10 → 4000 + 90/99 = 4000, 11 → 4001, 99 → 4009.
	narrow, _ := mustParse(t, []byte(bandsPlatform)).Class("narrow")
	for rp, want := range map[int]int{10: 4000, 11: 4001, 50: 4004, 99: 4009} {
		if got := narrow.SchedulingPriority(rp); got != want {
			t.Errorf("narrow band: SchedulingPriority(%d) = %d, want %d", rp, got, want)
		}
	}
}

// TestClassForPriorityNeverReturnsTheWrongClass tries every Batch scheduling
// priority: the class returned holds it, and none is returned in gaps.
func TestClassForPriorityNeverReturnsTheWrongClass(t *testing.T) {
	for name, p := range map[string]*Platform{"the default": Default(), "unusual band widths": mustParse(t, []byte(bandsPlatform))} {
		t.Run(name, func(t *testing.T) {
			for sp := 0; sp <= MaxSchedulingPriority; sp++ {
				c, ok := p.ClassForPriority(sp)
				if ok && !c.Priority.Contains(sp) {
					t.Fatalf("ClassForPriority(%d) = %s, whose band %d-%d does not hold it", sp, c.Name, c.Priority.Min, c.Priority.Max)
				}
				if !ok {
					for _, o := range p.Classes {
						if o.Priority.Contains(sp) {
							t.Fatalf("ClassForPriority(%d) found nothing, but %s's band holds it", sp, o.Name)
						}
					}
				}
			}
		})
	}
	// Between the default bands there are gaps: sweep ends at 199, research
	// starts at 500, and nothing lies above production's 999.
	p := Default()
	for _, sp := range []int{0, 99, 200, 499, 600, 899, 1000, 9999} {
		if c, ok := p.ClassForPriority(sp); ok {
			t.Errorf("ClassForPriority(%d) = %s, want no class (a gap between the default bands)", sp, c.Name)
		}
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
			b, err := os.ReadFile(filepath.Join("..", "docs", "trainq.example.yaml"))
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
	p, err := LoadFile(filepath.Join("testdata", "fairshare.yaml"))
	if err != nil || p.Scheduling.Mode != ModeFairShare {
		t.Fatalf("LoadFile(fairshare.yaml) = mode %v, %v; want a fair-share platform", p, err)
	}

	bad := filepath.Join("testdata", "bad", "many-mistakes.yaml")
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

// TestFairshareFixture pins testdata/fairshare.yaml, which other packages'
// tests use.
func TestFairshareFixture(t *testing.T) {
	p := mustParse(t, readTestdata(t, "fairshare.yaml"))
	if p.Scheduling.Mode != ModeFairShare || *p.Scheduling.ShareDecaySeconds != 7200 || *p.Scheduling.ComputeReservation != 10 {
		t.Errorf("scheduling = %+v, want fairshare, decay 7200 s, reservation 10", p.Scheduling)
	}
	if diff := cmp.Diff([]Pool{{"ml.p5.48xlarge", 16}, {"ml.p4d.24xlarge", 32}}, p.Pools); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
	var weights []float64
	shareID := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	for _, team := range p.Teams {
		weights = append(weights, team.Weight)
		if !shareID.MatchString(team.Name) {
			t.Errorf("team %q: want letters, digits and '_' only", team.Name)
		}
	}
	if diff := cmp.Diff([]float64{0.5, 1, 2}, weights); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(defaultClassesWant(), p.Classes); diff != "" {
		t.Errorf("classes are not the defaults (-want +got):\n%s", diff)
	}
	if len(p.Monitoring.AlarmEmails) == 0 {
		t.Error("no monitoring.alarmEmails entry")
	}
	if len(p.Submission.Submitters) != 1 ||
		!strings.HasPrefix(p.Submission.Submitters[0].RoleARN, "arn:aws:iam::123456789012:role/") ||
		!cmp.Equal([]string{"research", "sweep"}, p.Submission.Submitters[0].Classes) {
		t.Errorf("submitters = %+v, want one role of account 123456789012 for [research sweep]", p.Submission.Submitters)
	}
}

// TestDocumentedExampleIsValid: docs/trainq.example.yaml is a complete,
// valid platform file that sets every field.
func TestDocumentedExampleIsValid(t *testing.T) {
	path := filepath.Join("..", "docs", "trainq.example.yaml")
	p, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range jsonFieldNames(reflect.TypeOf(Platform{})) {
		if !regexp.MustCompile(`(?m)^[\s#-]*` + regexp.QuoteMeta(name) + `:`).Match(data) {
			t.Errorf("docs/trainq.example.yaml does not show the field %q", name)
		}
	}
	if p.Scheduling.Mode != ModeQuota {
		t.Errorf("example mode = %q, want quota (the default and the reference setup)", p.Scheduling.Mode)
	}
	// Tests of other packages rely on these example values.
	wantTraining := Training{
		S3Read:           []string{"s3://ml-datasets/search/"},
		S3Write:          []string{"s3://ml-checkpoints/search/"},
		ECRRepositories:  []string{"ml/trainer"},
		AWSManagedImages: ptr(true),
		VPC: &TrainingVPC{
			Subnets:        []string{"subnet-0a1b2c3d4e5f60718", "subnet-1a2b3c4d5e6f70819"},
			SecurityGroups: []string{"sg-0123456789abcdef0"},
		},
		KMSKeys: []string{"arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
	}
	if diff := cmp.Diff(wantTraining, p.Training); diff != "" {
		t.Errorf("example training section (-want +got):\n%s", diff)
	}
	// Its header's promise: the reference setup plus the optional examples.
	// Without alarm e-mails, submitters and training access it is the
	// embedded default.
	p.Monitoring.AlarmEmails = nil
	p.Submission.Submitters = nil
	p.Training = Training{AWSManagedImages: ptr(true)}
	if diff := cmp.Diff(Default(), p); diff != "" {
		t.Errorf("example without its optional examples differs from the embedded default (-default +example):\n%s", diff)
	}
}

// TestReferenceDocumentsEveryField: docs/platform.md names every field of
// the platform file and every limit.
func TestReferenceDocumentsEveryField(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "platform.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, name := range jsonFieldNames(reflect.TypeOf(Platform{})) {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/platform.md does not document `%s`", name)
		}
	}
	for _, limit := range []string{"20", "0.0001", "999.9999", "604800", "0–99", "0–9999", "0–1000", "2419200", "1–16", "1–5", "1024"} {
		if !strings.Contains(doc, limit) {
			t.Errorf("docs/platform.md does not state the limit %s", limit)
		}
	}
}

// jsonFieldNames lists the JSON names of t's fields, recursively.
func jsonFieldNames(t reflect.Type) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for name, f := range jsonFields(t) {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
			walk(f.Type)
		}
	}
	walk(t)
	return out
}

// TestReferenceErrorExampleIsReal: the first error example of
// docs/platform.md is what Parse says about the YAML shown above it.
func TestReferenceErrorExampleIsReal(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "platform.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```.*?```\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/platform.md has no ```yaml block followed by an output block")
	}
	_, perr := Parse(m[1])
	if perr == nil {
		t.Fatal("the documented bad file parses without error")
	}
	want := strings.TrimPrefix(strings.TrimSpace(string(m[2])), "platform file trainq.yaml: ")
	if diff := cmp.Diff(want, perr.Error()); diff != "" {
		t.Errorf("documented output (-docs +Parse):\n%s", diff)
	}
}
