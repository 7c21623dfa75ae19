package platformfile

import (
	"testing"

	. "github.com/trainq/trainq/platform"

	"github.com/google/go-cmp/cmp"
)

// TestKeysGivenTwiceAreRefusedWithTheirLines: a key written twice in one
// mapping is refused, in YAML and in JSON, naming the key's path and both
// lines, instead of the decoder silently keeping the last value.
func TestKeysGivenTwiceAreRefusedWithTheirLines(t *testing.T) {
	const allowed = "each key once in a mapping (only the last would be kept)"
	for _, tc := range []struct {
		name, file string
		want       Problems
	}{
		{
			// teams: at lines 3 and 7 (the second list would replace the
			// first: search-ranking would be lost).
			name: "a second top-level teams list in YAML",
			file: `pools: [{instanceType: ml.p5.48xlarge, instances: 40}]
name: vision
teams:
  - name: search-ranking
    capacity: [{instanceType: ml.p5.48xlarge, instances: 24}]
scheduling: {mode: quota}
teams:
  - name: search-research
    capacity: [{instanceType: ml.p5.48xlarge, instances: 16}]
`,
			want: Problems{{Field: "teams", Value: "given twice, at lines 3 and 7", Allowed: allowed}},
		},
		{
			// instances at lines 4 and 5, inside teams[0].capacity[0].
			name: "a key twice deep inside a list in YAML",
			file: `pools: [{instanceType: ml.p5.48xlarge, instances: 40}]
teams:
  - name: a
    capacity: [{instanceType: ml.p5.48xlarge, instances: 24,
                instances: 8}]
`,
			want: Problems{{Field: "teams[0].capacity[0].instances", Value: "given twice, at lines 4 and 5", Allowed: allowed}},
		},
		{
			// JSON is YAML: "name" on lines 2 and 4.
			name: "a member twice in JSON",
			file: `{
  "name": "vision",
  "pools": [{"instanceType": "ml.p5.48xlarge", "instances": 40}],
  "name": "other",
  "teams": [{"name": "a", "capacity": [{"instanceType": "ml.p5.48xlarge", "instances": 4}]}]
}
`,
			want: Problems{{Field: "name", Value: "given twice, at lines 2 and 4", Allowed: allowed}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file))
			got := problemsOf(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	// The same file with each key once is valid: the refusal is the
	// duplicate's, not something else's.
	mustParse(t, []byte("pools: [{instanceType: ml.p5.48xlarge, instances: 40}]\nteams:\n  - name: a\n    capacity: [{instanceType: ml.p5.48xlarge, instances: 24}]\n"))
}
