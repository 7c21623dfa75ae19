package main

import (
	"encoding/csv"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// teamCounts counts the rows of a trace or jobs CSV per value of column
// team, and per value of column by when by is not "" — read with
// encoding/csv, apart from the simulator.
func teamCounts(t *testing.T, file, by string) map[string]map[string]int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	team, group := slices.Index(rows[0], "team"), slices.Index(rows[0], by)
	if team < 0 || (by != "" && group < 0) {
		t.Fatalf("%s: header %v has no team or %q column", file, rows[0], by)
	}
	out := map[string]map[string]int{}
	for _, row := range rows[1:] {
		g := ""
		if group >= 0 {
			g = row[group]
		}
		if out[g] == nil {
			out[g] = map[string]int{}
		}
		out[g][row[team]]++
	}
	return out
}

// TestSimulateComparesQuotaAndFairShareOnOneTrace runs the built binary on
// examples/jobs.csv with the default platform (quota shares search-ranking
// and search-research) and its fair-share variant (examples/fairshare: a
// fair-share identifier has no '-', so the teams are search_ranking and
// search_research). In every run, each team has as many jobs as the trace
// has rows of it, counted from the CSV here; the per-job CSV names the
// trace's team; the table and the report put each team on one row named as
// the first run's platform names it, with the other spelling beside it.
func TestSimulateComparesQuotaAndFairShareOnOneTrace(t *testing.T) {
	want := teamCounts(t, "../../examples/jobs.csv", "")[""]
	if got := slices.Sorted(maps.Keys(want)); !slices.Equal(got, []string{"search-ranking", "search-research"}) {
		t.Fatalf("examples/jobs.csv has teams %v, want search-ranking and search-research (the test relies on their '-')", got)
	}
	dir := t.TempDir()
	jobsFile := filepath.Join(dir, "jobs.csv")
	args := []string{"simulate", "--trace", "examples/jobs.csv", "--platform", "platform/default.yaml",
		"--platform", "examples/fairshare/fairshare.yaml", "--no-progress"}
	r := trainq(t, append(args, "--output", "json", "--jobs", jobsFile, "--report", dir)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Runs []struct {
			Label, Policy string
			Teams         []struct {
				Name, TraceName string
				Jobs            int
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	// The platform's names of the teams, per run: the default's (and FIFO's,
	// on the first platform's teams) are the trace's; the fair-share run's
	// have '_'.
	names := map[string][]string{
		"default":   {"search-ranking", "search-research"},
		"fairshare": {"search_ranking", "search_research"},
		"fifo":      {"search-ranking", "search-research"},
	}
	if len(rep.Runs) != 3 {
		t.Fatalf("%d runs, want default, fairshare and fifo", len(rep.Runs))
	}
	for _, run := range rep.Runs {
		var got []string
		for _, tm := range run.Teams {
			got = append(got, tm.Name)
			traceName := tm.Name
			if tm.TraceName != "" {
				traceName = tm.TraceName
			}
			if strings.ReplaceAll(traceName, "-", "_") != strings.ReplaceAll(tm.Name, "-", "_") {
				t.Errorf("run %s: team %s stands for the trace's %q", run.Label, tm.Name, traceName)
			}
			if tm.Jobs != want[traceName] {
				t.Errorf("run %s: team %s (the trace's %s) has %d jobs, want the trace's %d", run.Label, tm.Name, traceName, tm.Jobs, want[traceName])
			}
		}
		if !slices.Equal(got, names[run.Label]) {
			t.Errorf("run %s (%s): teams %v, want %v", run.Label, run.Policy, got, names[run.Label])
		}
	}
	perRun := teamCounts(t, jobsFile, "policy")
	for _, run := range []string{"default", "fairshare", "fifo"} {
		if !maps.Equal(perRun[run], want) {
			t.Errorf("--jobs: run %s has jobs per team %v, want the trace's %v", run, perRun[run], want)
		}
	}

	// The table: one row per team and figure, named as the first run names
	// the team, the fair-share run's figures in its column, and a row with
	// each run's name of the team.
	r = trainq(t, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, tm := range []struct{ row, fair string }{{"search-ranking", "search_ranking"}, {"search-research", "search_research"}} {
		named := regexp.MustCompile(`(?m)^` + tm.row + ` named +` + tm.row + ` +` + tm.fair + ` +` + tm.row + `$`)
		if !named.MatchString(r.stdout) {
			t.Errorf("table: no row %q naming the team %s, %s, %s:\n%s", tm.row+" named", tm.row, tm.fair, tm.row, r.stdout)
		}
		n := want[tm.row]
		done := regexp.MustCompile(`(?m)^` + tm.row + ` jobs done/failed +(\d+)/0 +(\d+)/0 +(\d+)/0$`)
		m := done.FindStringSubmatch(r.stdout)
		if m == nil {
			t.Errorf("table: no row %q with three runs' figures:\n%s", tm.row+" jobs done/failed", r.stdout)
			continue
		}
		for i, c := range m[1:] {
			if c != strconv.Itoa(n) {
				t.Errorf("table: %s jobs done in run %d: %s, want %d", tm.row, i+1, c, n)
			}
		}
		if strings.Contains(r.stdout, tm.fair+" jobs") {
			t.Errorf("table: a row of its own for %s:\n%s", tm.fair, r.stdout)
		}
	}

	// The report: the same rows, and a note of the other spelling.
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	for _, s := range []string{"<td>search-ranking jobs done/failed</td>", "<td>search-ranking named</td><td>search-ranking</td><td>search_ranking</td><td>search-ranking</td>",
		"search-ranking is search_ranking in fairshare; search-research is search_research in fairshare"} {
		if !strings.Contains(page, s) {
			t.Errorf("report.html has no %q", s)
		}
	}
	if strings.Contains(page, "<td>search_ranking jobs") {
		t.Error("report.html has a row of its own for search_ranking")
	}
}

// TestSimulateRefusesATeamItCannotMatch: a trace's team that two teams of
// the platform match once '-' and '_' are read alike is refused with its
// line and both names; so is a second spelling of a team that one platform
// team would stand for, which would merge two of the trace's teams.
func TestSimulateRefusesATeamItCannotMatch(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../platform/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Two quota shares whose names differ only in where '-' and '_' stand.
	twins := strings.NewReplacer("name: search-ranking", "name: ads-ranking_v2", "name: search-research", "name: ads_ranking-v2").Replace(string(b))
	platformFile := filepath.Join(dir, "twins.yaml")
	if err := os.WriteFile(platformFile, []byte(twins), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, rows string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte("submit_s,duration_s,instances,instance_type,class,team\n"+rows), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Line 2 is exact; line 3's ads_ranking_v2 is both teams' name read alike.
	ambiguous := write("ambiguous.csv", "0,60,1,ml.p5.48xlarge,research,ads-ranking_v2\n10,60,1,ml.p5.48xlarge,research,ads_ranking_v2\n")
	r := trainq(t, "simulate", "--trace", ambiguous, "--platform", platformFile, "--no-progress")
	for _, s := range []string{"line 3", `column team: got "ads_ranking_v2"`, `"ads-ranking_v2" and "ads_ranking-v2"`, "'-' and '_'"} {
		if r.code != 1 || !strings.Contains(r.stderr, s) {
			t.Errorf("ambiguous team: exit %d, stderr %q: want exit 1 and %q", r.code, r.stderr, s)
		}
	}
	// search-ranking (line 2) and search_ranking (line 3) would both be the
	// fair-share platform's search_ranking.
	twoSpellings := write("two.csv", "0,60,1,ml.p5.48xlarge,research,search-ranking\n10,60,1,ml.p5.48xlarge,research,search_ranking\n")
	r = trainq(t, "simulate", "--trace", twoSpellings, "--platform", "examples/fairshare/fairshare.yaml", "--no-progress")
	for _, s := range []string{"line 3", `got "search_ranking", want "search-ranking" as line 2 spells it`, "team search_ranking"} {
		if r.code != 1 || !strings.Contains(r.stderr, s) {
			t.Errorf("two spellings of one team: exit %d, stderr %q: want exit 1 and %q", r.code, r.stderr, s)
		}
	}
}
