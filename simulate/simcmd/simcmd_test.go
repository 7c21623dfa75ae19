package simcmd_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trainq/trainq/simulate/simcmd"
)

// TestSameInputsSameBytes simulates the shipped example trace on two
// platforms and FIFO twice and requires byte-identical output each time: the
// table, the JSON, the per-job CSV and the HTML report. The simulator reads
// no clock and breaks every tie by a documented key.
func TestSameInputsSameBytes(t *testing.T) {
	_, _, current, proposed := fixture(t)
	outputs := func(dir string) map[string][]byte {
		got := map[string][]byte{}
		for _, format := range []string{"json", "table"} {
			var out, errOut bytes.Buffer
			args := []string{"--trace", "../../examples/jobs.csv", "--platform", current, "--platform", proposed, "--output", format, "--no-progress"}
			if format == "json" {
				args = append(args, "--jobs", filepath.Join(dir, "jobs.csv"), "--report", dir)
			}
			if err := simcmd.Simulate(args, &out, &errOut); err != nil {
				t.Fatalf("simulate: %v\n%s", err, errOut.String())
			}
			got[format] = out.Bytes()
		}
		for _, f := range []string{"jobs.csv", "report.html", "report.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			got[f] = b
		}
		return got
	}
	first, second := outputs(t.TempDir()), outputs(t.TempDir())
	for name, b := range first {
		if len(b) == 0 || !bytes.Equal(b, second[name]) {
			t.Errorf("%s: %d bytes, then %d: want the same bytes twice", name, len(b), len(second[name]))
		}
	}
	if !bytes.Equal(first["json"], first["report.json"]) {
		t.Error("report.json differs from --output json")
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("submit_s,duration_s,instances,instance_type,class,team\n0,10,1,ml.p5.48xlarge,sweep,search-ranking\n5,10,1,ml.p5.48xlarge,urgent,search-ranking\n"), 0o644)
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"help returns flag.ErrHelp", []string{"--help"}, "flag: help requested"},
		{"a trace is required", []string{}, "--trace"},
		{"an unknown class names its line", []string{"--trace", bad}, "line 3: column class: got \"urgent\""},
		{"output must be table or json", []string{"--trace", bad, "--output", "xml"}, "want table or json"},
		{"a missing platform file is named, never replaced by the default", []string{"--trace", bad, "--platform", filepath.Join(dir, "trainq.yaml")}, filepath.Join(dir, "trainq.yaml")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := simcmd.Simulate(tc.args, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want it to contain %q", err, tc.wantErr)
			}
			if tc.name == "help returns flag.ErrHelp" && (!errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "Usage") || errOut.Len() > 0) {
				t.Errorf("help: err %v, stdout %q, stderr %q: want usage on stdout only", err, out.String(), errOut.String())
			}
		})
	}
	t.Run("generate then simulate writes a table and a report", func(t *testing.T) {
		jobs := filepath.Join(dir, "jobs.csv")
		var out, errOut bytes.Buffer
		if err := simcmd.Trace([]string{"generate", "--seed", "3", "--jobs", "200", "--out", jobs}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		rep := filepath.Join(dir, "report")
		if err := simcmd.Simulate([]string{"--trace", jobs, "--report", rep}, &out, &errOut); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "production") || !strings.Contains(out.String(), "fifo") {
			t.Errorf("table lacks classes or the FIFO column:\n%s", out.String())
		}
		for _, f := range []string{"report.html", "report.json"} {
			b, err := os.ReadFile(filepath.Join(rep, f))
			if err != nil || len(b) < 100 {
				t.Errorf("report file %s: %v (%d bytes)", f, err, len(b))
			}
		}
	})
}

func TestTraceCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no subcommand", nil, "want generate, convert or export"},
		{"help returns flag.ErrHelp", []string{"--help"}, "flag: help requested"},
		{"an unknown format is named before any file is opened", []string{"convert", "--format", "slurm", "--in", "missing.csv", "--out", "-"}, `--format: got "slurm", want one of chronus, philly, gavel, alibaba`},
		{"generate needs an output", []string{"generate", "--jobs", "10"}, "--out"},
		{"generate needs at least one job", []string{"generate", "--jobs", "0", "--out", "-"}, "jobs: got 0, want at least 1"},
		{"convert names the missing flags", []string{"convert", "--format", "philly"}, "missing --in, --out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := simcmd.Trace(tc.args, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestConvertPublicTraces converts the public traces beside the repository
// (../shared/traces); users do not have them, so it skips without them.
func TestConvertPublicTraces(t *testing.T) {
	for _, tc := range []struct{ format, file string }{
		{"philly", "philly_chronus_mix1.csv"},
		{"gavel", "philly_vc_gavel_seed0.csv"},
		{"alibaba", "alibaba_v2023_openb_pods.csv"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			in := filepath.Join("..", "..", "..", "shared", "traces", tc.file)
			if _, err := os.Stat(in); err != nil {
				t.Skipf("public trace %s not present (it lives in ../shared/traces beside the repo): %v", in, err)
			}
			out := filepath.Join(t.TempDir(), "out.csv")
			var so, se bytes.Buffer
			if err := simcmd.Trace([]string{"convert", "--format", tc.format, "--in", in, "--out", out}, &so, &se); err != nil {
				t.Fatalf("convert: %v", err)
			}
			if !strings.Contains(se.String(), "converted") {
				t.Errorf("stderr %q lacks the conversion summary", se.String())
			}
			if testing.Short() {
				return
			}
			var js bytes.Buffer
			if err := simcmd.Simulate([]string{"--trace", out, "--output", "json"}, &js, &se); err != nil {
				t.Fatalf("simulate converted trace: %v", err)
			}
		})
	}
}
