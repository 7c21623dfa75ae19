package test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateLogicalIDs = flag.Bool("update-logical-ids", false, "rewrite testdata/logical-ids from the synthesized templates")

// currentVersion matches the hash CDK appends to a function version's
// logical id: it changes with the code, by design (a new version).
var currentVersion = regexp.MustCompile(`(CurrentVersion)[0-9A-Fa-f]{8,}\b`)

// TestPlatformStackKeepsItsLogicalIDs holds the logical id and type of every
// resource of the platform stack equal to the released ones: construct ids
// are public API, and a changed logical id replaces the resource in users'
// accounts (a new alarm topic whose e-mail subscribers must confirm again, a
// function or alarm whose fixed name collides with the old one). Change the
// list only on purpose, saying so in the commit (-update-logical-ids).
func TestPlatformStackKeepsItsLogicalIDs(t *testing.T) {
	for _, c := range []struct{ file, golden string }{
		{"", "default.txt"}, {fairSharePlatform, "fairshare.txt"}, {noMonitorPlatform, "nomonitor.txt"},
		// The example platform reroutes: the re-router's ids.
		{examplePlatform, "example.txt"},
	} {
		t.Run(describe(c.file), func(t *testing.T) {
			s := synth(t, c.file)
			var got []string
			for id, r := range s.template.Resources {
				got = append(got, currentVersion.ReplaceAllString(id, "${1}HASH")+" "+r.Type)
			}
			sort.Strings(got)
			path := filepath.Join("testdata", "logical-ids", c.golden)
			if *updateLogicalIDs {
				if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSpace(string(data)), "\n")
			// A released id that is gone replaces (or deletes) a resource;
			// a new id only adds one.
			now := map[string]bool{}
			for _, id := range got {
				now[id] = true
			}
			var gone []string
			for _, id := range want {
				if !now[id] {
					gone = append(gone, id)
				}
			}
			if len(gone) > 0 {
				t.Errorf("released logical ids are gone; each replaces or deletes a resource on deploy:\n%s\n(all ids, -released +now):\n%s",
					strings.Join(gone, "\n"), cmp.Diff(want, got))
			}
		})
	}
}
