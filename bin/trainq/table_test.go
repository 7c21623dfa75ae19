package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSimulateTableColumnsLineUp runs the built binary on examples/jobs.csv
// with the default platform, a copy of it named second.yaml, and FIFO, and
// checks that every row of the table — whole-run figures, classes and teams
// alike — puts its name at the left edge and ends each figure in its run's
// column.
//
// The columns, by hand: the longest row name is "search-research jobs
// done/failed", 32 characters (the default platform's teams are
// search-ranking and search-research). Each run's column is as wide as its
// header, which is wider than any of its figures (at most "167.5 inst-h",
// 12): "default (quota)" 15, "second (quota)" 14, "fifo (fifo)" 11. With
// two spaces between columns they end at 32+2+15 = 49, 49+2+14 = 65 and
// 65+2+11 = 78.
func TestSimulateTableColumnsLineUp(t *testing.T) {
	b, err := os.ReadFile("../../platform/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(t.TempDir(), "second.yaml")
	if err := os.WriteFile(second, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := trainq(t, "simulate", "--trace", "examples/jobs.csv", "--platform", "platform/default.yaml", "--platform", second, "--no-progress")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	// A cell is a run of words with single spaces; cells are at least two
	// spaces apart.
	cell := regexp.MustCompile(`\S+( \S+)*`)
	ends := func(line string) (first int, out []int) {
		first = -1
		for _, m := range cell.FindAllStringIndex(line, -1) {
			if first < 0 {
				first = utf8.RuneCountInString(line[:m[0]])
			}
			out = append(out, utf8.RuneCountInString(line[:m[1]]))
		}
		return first, out
	}
	want := []int{49, 65, 78}
	if _, got := ends(lines[1]); !slices.Equal(got, want) {
		t.Fatalf("header %q: columns end at %v, want %v", lines[1], got, want)
	}
	rows, blocks := 0, 0
	for i, line := range lines[2:] {
		if line == "" {
			blocks++
			if blocks == 3 {
				break // the runs', the classes' and the teams' blocks
			}
			continue
		}
		first, got := ends(line)
		if first != 0 || len(got) != 4 || !slices.Equal(got[1:], want) {
			t.Errorf("line %d %q: starts at %d, figures end at %v; want a name at 0 and figures ending at %v", i+3, line, first, got, want)
		}
		rows++
	}
	// 13 whole-run rows and 2 per instance type (2 types), 8 per class (3)
	// and 9 per team (2): 17 + 24 + 18.
	if rows != 59 {
		t.Errorf("%d table rows, want 59:\n%s", rows, r.stdout)
	}
}
