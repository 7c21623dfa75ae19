package simulate_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// TestTeamsWithoutJobsShareARowAcrossSpellings: a trace of search-research
// jobs only, against the default platform and its fair-share variant. The
// fair-share run's search_ranking has no job, so no trace name ties it to
// the default's search-ranking; it still joins that team's row, the one
// row whose name is the same once '-' and '_' are read alike, and the
// table has no row of its own for it.
func TestTeamsWithoutJobsShareARowAcrossSpellings(t *testing.T) {
	fair, err := platformfile.LoadFile("../examples/fairshare/fairshare.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep := &simulate.Report{Schema: simulate.Schema, Trace: "research.csv"}
	for _, p := range []*platform.Platform{platform.Default(), fair} {
		// Two jobs of search-research, 1 h each.
		src := &simulate.SliceSource{Jobs: []trace.Job{
			{ID: "a", Duration: 3600, Instances: 1, InstanceType: "ml.p5.48xlarge", Class: "research", Team: "search-research", Priority: trace.NoPriority, Line: 2},
			{ID: "b", Submit: 60, Duration: 3600, Instances: 1, InstanceType: "ml.p5.48xlarge", Class: "research", Team: "search-research", Priority: trace.NoPriority, Line: 3},
		}}
		res, err := simulate.Run(p, src, simulate.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res.Label = string(p.Scheduling.Mode)
		rep.Runs = append(rep.Runs, res)
	}
	var out bytes.Buffer
	if err := simulate.WriteTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, row := range []string{
		`search-ranking named +search-ranking +search_ranking`,
		`search-ranking jobs done/failed +0/0 +0/0`,
		`search-research named +search-research +search_research`,
		`search-research jobs done/failed +2/0 +2/0`,
	} {
		if !regexp.MustCompile(`(?m)^` + row + `$`).MatchString(table) {
			t.Errorf("no row %q in\n%s", row, table)
		}
	}
	if strings.Contains(table, "search_ranking jobs") || strings.Contains(table, "search_research jobs") {
		t.Errorf("a fair-share team has a row of its own:\n%s", table)
	}
}
