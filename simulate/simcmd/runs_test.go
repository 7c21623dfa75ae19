package simcmd_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/simulate/simcmd"
)

// fixture writes a 300-job generated trace and two platforms: current.yaml
// (the embedded default) and proposed.yaml (the same with borrowing off:
// borrowLimitPercent 0 for both teams).
func fixture(t *testing.T) (dir, traceFile, current, proposed string) {
	t.Helper()
	dir = t.TempDir()
	traceFile = filepath.Join(dir, "jobs.csv")
	var out, errOut bytes.Buffer
	if err := simcmd.Trace([]string{"generate", "--seed", "5", "--jobs", "300", "--load", "0.9", "--out", traceFile}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	current = filepath.Join(dir, "current.yaml")
	proposed = filepath.Join(dir, "proposed.yaml")
	y := platform.DefaultYAML()
	if err := os.WriteFile(current, y, 0o644); err != nil {
		t.Fatal(err)
	}
	noBorrow := strings.ReplaceAll(string(y), "borrowLimitPercent: 100", "borrowLimitPercent: 0")
	if noBorrow == string(y) {
		t.Fatal("the default platform no longer sets borrowLimitPercent: 100; adapt the fixture")
	}
	if err := os.WriteFile(proposed, []byte(noBorrow), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, traceFile, current, proposed
}

// TestSeveralPlatformsSideBySide runs two platforms and FIFO in one run and
// checks the JSON runs, the table's columns and the per-job CSV: one row per
// job and run, 300 × 3.
func TestSeveralPlatformsSideBySide(t *testing.T) {
	dir, tr, current, proposed := fixture(t)
	jobsFile := filepath.Join(dir, "out.csv")
	var js, errOut bytes.Buffer
	if err := simcmd.Simulate([]string{"--trace", tr, "--platform", current, "--platform", proposed, "--output", "json",
		"--jobs", jobsFile, "--no-progress"}, &js, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep simulate.Report
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range rep.Runs {
		labels = append(labels, r.Label+"/"+r.Policy)
		if r.Jobs != 300 || r.Completed+r.Failed != 300 {
			t.Errorf("run %s: %d jobs, %d completed + %d failed; want 300 each way", r.Label, r.Jobs, r.Completed, r.Failed)
		}
	}
	if diff := cmp.Diff([]string{"current/quota", "proposed/quota", "fifo/fifo"}, labels); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	// Without borrowing a team never holds more than its quota: search-ranking
	// 24 × p5, 30 × p4d (the default platform).
	if got := rep.Runs[1].Teams[0].PeakInstancesByType; got["ml.p5.48xlarge"] > 24 || got["ml.p4d.24xlarge"] > 30 {
		t.Errorf("proposed (no borrowing): search-ranking peaks %v, over its quota of 24 × p5, 30 × p4d", got)
	}

	f, err := os.Open(jobsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(simulate.JobsHeader, rows[0]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	perRun := map[string]map[string]int{}
	for _, row := range rows[1:] {
		if perRun[row[1]] == nil {
			perRun[row[1]] = map[string]int{}
		}
		perRun[row[1]][row[0]]++
	}
	for _, label := range []string{"current", "proposed", "fifo"} {
		ids := perRun[label]
		if len(ids) != 300 {
			t.Errorf("run %s: %d distinct jobs in the CSV, want 300", label, len(ids))
		}
		for id, n := range ids {
			if n != 1 {
				t.Errorf("run %s: job %s has %d rows, want 1", label, id, n)
			}
		}
	}

	var table bytes.Buffer
	if err := simcmd.Simulate([]string{"--trace", tr, "--platform", current, "--platform", proposed, "--no-progress"}, &table, &errOut); err != nil {
		t.Fatal(err)
	}
	header := strings.Split(table.String(), "\n")[1]
	for _, col := range []string{"current (quota)", "proposed (quota)", "fifo (fifo)"} {
		if !strings.Contains(header, col) {
			t.Errorf("table header %q lacks the column %q", header, col)
		}
	}
}

func TestPlatformLabelsMustDiffer(t *testing.T) {
	dir, tr, current, _ := fixture(t)
	other := filepath.Join(dir, "sub", "current.yml")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, platform.DefaultYAML(), 0o644)
	var out, errOut bytes.Buffer
	err := simcmd.Simulate([]string{"--trace", tr, "--platform", current, "--platform", other}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), `its label "current" is taken by --platform `+current) {
		t.Errorf("error %v, want one naming the label and the other file", err)
	}
}

// TestExampleTraceIsReproducible: examples/jobs.csv is what docs/simulate.md
// says it is, `trainq trace generate --seed 42 --jobs 1500 --load 0.9` on the
// embedded default platform, byte for byte.
func TestExampleTraceIsReproducible(t *testing.T) {
	out := filepath.Join(t.TempDir(), "jobs.csv")
	var so, se bytes.Buffer
	if err := simcmd.Trace([]string{"generate", "--seed", "42", "--jobs", "1500", "--load", "0.9", "--out", out}, &so, &se); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want, err := os.ReadFile("../../examples/jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("generate --seed 42 --jobs 1500 --load 0.9 no longer gives examples/jobs.csv")
	}
}

// TestRerouteOffAndOn: the command line compares re-routing off and on by
// two platform files (examples/reroute; TestRerouteExample has the
// arithmetic): the JSON names both runs with their settings and the moves,
// and the table ends with the settings and the route.
func TestRerouteOffAndOn(t *testing.T) {
	args := []string{"--trace", "../../examples/reroute/jobs.csv", "--platform", "../../examples/reroute/reroute-off.yaml",
		"--platform", "../../examples/reroute/reroute-on.yaml", "--no-progress"}
	var js, errOut bytes.Buffer
	if err := simcmd.Simulate(append(args, "--output", "json"), &js, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	var rep simulate.Report
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	type run struct {
		Label          string
		Moves, P95     int64
		Rerouting, Off bool
	}
	var got []run
	for _, r := range rep.Runs {
		got = append(got, run{r.Label, int64(r.Moves), r.Classes[1].Wait.P95, r.Settings.Rerouting != nil, r.Settings.Classes[1].Reroute == nil})
	}
	want := []run{{"reroute-off", 0, 10800, false, true}, {"reroute-on", 8, 4500, true, false}, {"fifo", 0, 10800, false, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if rep.Schema != "trainq.simulate/v3" {
		t.Errorf("schema %q", rep.Schema)
	}
	var table bytes.Buffer
	if err := simcmd.Simulate(args, &table, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"reroute-off: re-routing off; checkpoints off\n",
		"reroute-on: research moved ml.p5.48xlarge → ml.p4d.24xlarge: 8\n",
	} {
		if !strings.Contains(table.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, table.String())
		}
	}
}
