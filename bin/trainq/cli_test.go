package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bin is the trainq binary, built once for this test binary by TestMain.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "trainq-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "trainq")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("go build ./bin/trainq: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// trainq runs the built binary with args from the repository's root, with
// no AWS: a command that tried to reach it would fail, not hang.
func trainq(t *testing.T, args ...string) result {
	t.Helper()
	return trainqWith(t, []string{"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1"}, args...)
}

// TestHelpGoesToStdoutAndExitsZero: every command and subcommand answers
// --help and -h with its usage on stdout, nothing on stderr, exit 0, and
// never Go's raw "Usage of …".
func TestHelpGoesToStdoutAndExitsZero(t *testing.T) {
	for _, cmd := range [][]string{{}, {"submit"}, {"status"}, {"cancel"}, {"reprioritize"}, {"queue"}, {"simulate"}, {"trace"},
		{"trace", "generate"}, {"trace", "convert"}, {"validate"}, {"version"}} {
		for _, h := range []string{"--help", "-h"} {
			args := append(append([]string{}, cmd...), h)
			r := trainq(t, args...)
			name := strings.Join(args, " ")
			if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Usage") {
				t.Errorf("trainq %s: exit %d, stderr %q, stdout %q: want usage on stdout, nothing on stderr, exit 0", name, r.code, r.stderr, r.stdout)
			}
			if strings.Contains(r.stdout, "Usage of") || !strings.HasSuffix(r.stdout, "\n") {
				t.Errorf("trainq %s: want trainq's own usage ending in a newline, got:\n%s", name, r.stdout)
			}
		}
	}
}

// TestUsageErrorsExitTwoFailuresOne, each with one "trainq <command>: "
// prefix.
func TestUsageErrorsExitTwoFailuresOne(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		prefix string
		want   string
	}{
		{"no command", nil, 2, "", "Usage:"},
		{"an unknown command", []string{"deploy"}, 2, "trainq: ", `unknown command "deploy"`},
		{"an unknown flag", []string{"submit", "--bogus"}, 2, "trainq submit: ", "flag provided but not defined: --bogus"},
		{"submit without --class", []string{"submit", "--team", "t"}, 2, "trainq submit: ", "--class is required"},
		{"status without a job id", []string{"status", "--unqualified"}, 2, "trainq status: ", "exactly one JOB_ID"},
		{"an --output outside its set", []string{"status", "--unqualified", "--output", "yaml", "job-1"}, 2, "trainq status: ", `--output: got "yaml"`},
		{"simulate without --trace", []string{"simulate"}, 2, "trainq simulate: ", "--trace"},
		{"trace without a subcommand", []string{"trace"}, 2, "trainq trace: ", "want generate, convert or export"},
		{"trace generate without --out", []string{"trace", "generate"}, 2, "trainq trace generate: ", "--out"},
		{"validate without a file", []string{"validate"}, 2, "trainq validate: ", "no platform file"},
		{"version with an argument", []string{"version", "extra"}, 2, "trainq version: ", "unexpected arguments"},
		{"an invalid platform file fails", []string{"validate", "test/testdata/bad-platform.yaml"}, 1, "trainq validate: ", "1 of 1 platform files are invalid"},
		{"a missing trace fails", []string{"simulate", "--trace", "nonexistent.csv"}, 1, "trainq simulate: ", "nonexistent.csv"},
		{"a bad trace row fails with its line", []string{"trace", "convert", "--format", "philly", "--in", "nonexistent.csv", "--out", "-"}, 1, "trainq trace convert: ", "nonexistent.csv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := trainq(t, tt.args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if !strings.HasPrefix(r.stderr, tt.prefix) || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q, want it to start with %q and mention %q", r.stderr, tt.prefix, tt.want)
			}
			if tt.prefix != "" && strings.Count(r.stderr, strings.TrimSuffix(tt.prefix, ": ")+":") != 1 {
				t.Errorf("stderr %q repeats its prefix %q", r.stderr, tt.prefix)
			}
			if tt.code == 2 && tt.prefix != "" && !strings.Contains(r.stderr, "--help' for usage") {
				t.Errorf("a usage error does not point to --help: %q", r.stderr)
			}
		})
	}
}

func TestVersionComesFromTheBuildInfo(t *testing.T) {
	r := trainq(t, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "trainq ") || !strings.Contains(r.stdout, runtime.Version()) {
		t.Errorf("trainq version: exit %d, %q: want trainq's version and %s", r.code, r.stdout, runtime.Version())
	}
	r = trainq(t, "version", "--output", "json")
	var v buildVersion
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Module != "github.com/trainq/trainq" || v.Version == "" || v.GoVersion != runtime.Version() {
		t.Errorf("trainq version --output json: %q (%v)", r.stdout, err)
	}
}

// TestEveryCommandHasJSONOutput: --output json is accepted by every
// command, and what it prints is JSON.
func TestEveryCommandHasJSONOutput(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "jobs.csv")
	for _, args := range [][]string{
		{"version"},
		{"validate", "platform/default.yaml"},
		{"trace", "generate", "--seed", "1", "--jobs", "50", "--out", tr},
		{"simulate", "--trace", tr, "--no-progress"},
		{"submit", "--class", "research", "--team", "search-ranking", "--job-name", "bert-base", "--training-job", "examples/job.json", "--dry-run"},
	} {
		r := trainq(t, append(args, "--output", "json")...)
		if r.code != 0 || !json.Valid([]byte(r.stdout)) {
			t.Errorf("trainq %s --output json: exit %d, stdout %q, stderr %q", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
	for _, cmd := range []string{"status", "cancel", "reprioritize", "queue"} {
		if r := trainq(t, cmd, "--help"); !strings.Contains(r.stdout, "-output") {
			t.Errorf("trainq %s --help lists no --output", cmd)
		}
	}
}

// TestValidateChecksEveryFile: an unreadable file is reported and the
// files after it are still checked.
func TestValidateChecksEveryFile(t *testing.T) {
	r := trainq(t, "validate", "--output", "json", "nonexistent.yaml", "test/testdata/bad-platform.yaml", "platform/default.yaml")
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	var rep validateReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %q", err, r.stdout)
	}
	if len(rep.Files) != 3 || rep.Invalid != 2 || rep.Files[0].OK || !strings.Contains(rep.Files[0].Error, "cannot read") ||
		len(rep.Files[1].Problems) != 4 || !rep.Files[2].OK || rep.Files[2].Platform.Teams != 2 {
		t.Errorf("report %+v: want the unreadable file, the bad one's 4 problems and the default ok", rep)
	}
	table := trainq(t, "validate", "nonexistent.yaml", "platform/default.yaml")
	if !strings.Contains(table.stdout, "nonexistent.yaml: cannot read: no such file or directory") || !strings.Contains(table.stdout, "default.yaml: ok") {
		t.Errorf("table:\n%s", table.stdout)
	}
}

// TestSubmitChecksBeforeInvoking: --dry-run checks against the platform and
// prints what it would send; a broken, snake_case or non-string training
// job is refused naming the file and line, before any invocation (the
// Lambda endpoint is unreachable: reaching it would be a different error).
func TestSubmitChecksBeforeInvoking(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := []string{"submit", "--class", "research", "--team", "search-ranking", "--job-name", "bert-base"}
	r := trainq(t, append(base, "--training-job", "examples/job.json", "--dry-run", "--idempotency-key", "k1", "--output", "json")...)
	var d struct {
		DryRun    bool
		Function  string
		Qualifier string
		Request   map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || !d.DryRun || d.Function != "trainq-submit" || d.Qualifier != "research-search-ranking" ||
		d.Request["idempotencyKey"] != "k1" || d.Request["trainingJob"] == nil {
		t.Errorf("dry run: exit %d, %q, %q (%v)", r.code, r.stdout, r.stderr, err)
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"JSON that is not JSON names the file, line and column", []string{"--training-job", write("broken.json", "{\n  \"AlgorithmSpecification\": {\"TrainingImage\": \"img\",}\n}\n")},
			[]string{"training job " + dir + "/broken.json (1 problem)", "broken.json:2:", "text that is not JSON"}},
		{"snake_case names and numbers in hyperparameters are refused with their lines",
			[]string{"--training-job", write("sdk.json", "{\n  \"HyperParameters\": {\"epochs\": 10},\n  \"resource_config\": {\"instance_count\": 2}\n}\n")},
			[]string{"(3 problems)", `sdk.json:2:23: trainingJob.HyperParameters.epochs: got 10, want a string, such as "10"`,
				`sdk.json:3:3: trainingJob.resource_config: got "resource_config", want CreateTrainingJob's ResourceConfig (docs/submission.md maps`,
				`("InstanceCount"?)`}},
		{"a member given twice is refused", []string{"--training-job", write("twice.json", `{"OutputDataConfig": {}, "OutputDataConfig": {}}`)},
			[]string{"twice.json:1:26: trainingJob.OutputDataConfig: got a member given twice"}},
		{"a missing file is named", []string{"--training-job", filepath.Join(dir, "missing.json")}, []string{"missing.json"}},
		{"dry run refuses what the platform does not allow", []string{"--training-job", "examples/job.json", "--priority", "120", "--instance-types", "ml.g5.xlarge", "--dry-run"},
			[]string{`ValidationError: invalid request (3 problems)`, "priority: got 120", `instanceTypes[0]: got "ml.g5.xlarge"`, `(checked against platform "trainq", the embedded default platform`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := trainq(t, append(append([]string{}, base...), tt.args...)...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			for _, w := range append([]string{"trainq submit: "}, tt.want...) {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "invoke") || strings.Contains(r.stderr, "MarshalJSON") {
				t.Errorf("stderr suggests an invocation or Go's JSON internals:\n%s", r.stderr)
			}
		})
	}
}
