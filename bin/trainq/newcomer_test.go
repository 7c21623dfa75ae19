package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tests of this file run the built binary for what a newcomer meets
// first: installing it, mistyped commands and flags, help, defaults from the
// environment and the config file, and AWS credentials or a region missing.

// TestGoInstallFromACheckout: `go install ./bin/trainq`, as the README says
// for a checkout (the module is not published), puts a working trainq in
// GOBIN.
func TestGoInstallFromACheckout(t *testing.T) {
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./bin/trainq")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./bin/trainq: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "trainq"), "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "trainq ") {
		t.Errorf("the installed trainq version: %q (%v)", out, err)
	}
}

// TestMistypedCommandsAndFlagsAreSuggested, as git and kubectl do.
func TestMistypedCommandsAndFlagsAreSuggested(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sumbit"}, `unknown command "sumbit"; did you mean "submit"?`},
		{[]string{"simualte"}, `did you mean "simulate"?`},
		{[]string{"stauts"}, `did you mean "status"?`},
		{[]string{"submit", "--clas", "research"}, "flag provided but not defined: --clas; did you mean --class?"},
		{[]string{"simulate", "--trcae", "x.csv"}, "did you mean --trace?"},
	}
	for _, tt := range tests {
		r := trainq(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("trainq %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
		}
	}
	// Nothing near enough: no suggestion rather than a wild one.
	if r := trainq(t, "deploy"); strings.Contains(r.stderr, "did you mean") {
		t.Errorf("trainq deploy suggests: %q", r.stderr)
	}
}

// TestHelpSpellsFlagsWithTwoDashes as the docs and examples do.
func TestHelpSpellsFlagsWithTwoDashes(t *testing.T) {
	for _, cmd := range [][]string{{"submit"}, {"status"}, {"queue"}, {"simulate"}, {"trace", "generate"}, {"validate"}, {"config"}} {
		r := trainq(t, append(cmd, "--help")...)
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
				t.Errorf("trainq %s --help: %q has one dash", strings.Join(cmd, " "), line)
			}
		}
		if !strings.Contains(r.stdout, "  --") {
			t.Errorf("trainq %s --help lists no --flag:\n%s", strings.Join(cmd, " "), r.stdout)
		}
	}
	if r := trainq(t, "submit", "--help"); !strings.Contains(r.stdout, "  --class string\n") {
		t.Errorf("submit --help does not show --class:\n%s", r.stdout)
	}
}

// writeConfig writes a config file with two profiles and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func abs(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSettingsComeFromFlagsThenEnvironmentThenProfile: each setting's
// value and origin, as trainq config shows them and as a command uses them.
func TestSettingsComeFromFlagsThenEnvironmentThenProfile(t *testing.T) {
	cfg := writeConfig(t, `profile: ranking
profiles:
  ranking:
    platform: `+abs(t, "test/testdata/teams.yaml")+`
    class: research
    team: alpha
    region: eu-west-1
    function: teams-submit
  vision:
    class: sweep
    team: search-research
`)
	env := []string{"TRAINQ_CONFIG=" + cfg}
	// The teams platform's pool is ml.p5.48xlarge only.
	b, err := os.ReadFile("../../examples/job.json")
	if err != nil {
		t.Fatal(err)
	}
	// Each team's job reads and writes its own artifacts prefix and pulls
	// AWS's image of the profile's region (eu-west-1): what the door
	// lets each team's role reach.
	// Each team runs in its own subnet and security group (teams.yaml's
	// training.vpc: alpha's end in 0a…1, beta's in 0b…1), which its job
	// must name.
	jobFor := func(team string) string {
		f := filepath.Join(t.TempDir(), team+".json")
		id := map[string]string{"alpha": "0a0a0a0a0a0a0a0a1", "beta": "0b0b0b0b0b0b0b0b1"}[team]
		j := strings.NewReplacer("ml.p4d.24xlarge", "ml.p5.48xlarge", "/search-ranking/", "/"+team+"/", ".us-east-1.", ".eu-west-1.").Replace(string(b))
		j = strings.Replace(j, "{", `{"VpcConfig": {"Subnets": ["subnet-`+id+`"], "SecurityGroupIds": ["sg-`+id+`"]},`, 1)
		if err := os.WriteFile(f, []byte(j), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	r := trainqWith(t, env, "config", "--output", "json")
	var rep struct {
		Profile, ProfileFrom string
		Profiles             []string
		Settings             []struct{ Flag, Value, From string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("trainq config --output json: %v: %q %q", err, r.stdout, r.stderr)
	}
	got := map[string]string{}
	for _, s := range rep.Settings {
		got[s.Flag] = s.Value + " from " + s.From
	}
	if rep.Profile != "ranking" || rep.ProfileFrom != "the config file's profile key" || strings.Join(rep.Profiles, ",") != "ranking,vision" ||
		got["--team"] != "alpha from profile ranking in "+cfg || got["--endpoint"] != " from " {
		t.Errorf("trainq config: profile %q from %q, profiles %v, settings %v", rep.Profile, rep.ProfileFrom, rep.Profiles, got)
	}
	// The environment beats the profile; TRAINQ_PROFILE selects another.
	r = trainqWith(t, append(env, "TRAINQ_PROFILE=vision", "TRAINQ_TEAM=search-ranking"), "config")
	for _, want := range []string{"profile      vision (from TRAINQ_PROFILE)", "--team         TRAINQ_TEAM", "search-ranking  TRAINQ_TEAM",
		"sweep           profile vision in " + cfg} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("trainq config with TRAINQ_PROFILE=vision TRAINQ_TEAM=search-ranking: want %q in\n%s", want, r.stdout)
		}
	}
	// A command takes them: the dry run invokes the profile's function
	// through the alias of its class and team, on its platform (whose
	// teams are alpha and beta: the default platform would refuse alpha).
	r = trainqWith(t, env, "submit", "--job-name", "bert", "--training-job", jobFor("alpha"), "--dry-run", "--output", "json")
	var d DryRunView
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Function != "teams-submit" || d.Qualifier != "research-alpha" {
		t.Errorf("dry run with the profile: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	// A flag beats both.
	r = trainqWith(t, env, "submit", "--team", "beta", "--job-name", "bert", "--training-job", jobFor("beta"), "--dry-run", "--output", "json")
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Qualifier != "research-beta" {
		t.Errorf("dry run with --team beta: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	// --profile beats TRAINQ_PROFILE; the vision profile names no
	// platform, so the embedded default is used and the error says so.
	r = trainqWith(t, append(env, "TRAINQ_PROFILE=ranking"), "submit", "--profile", "vision", "--team", "alpha", "--job-name", "bert",
		"--training-job", "examples/job.json", "--dry-run")
	if r.code != 1 || !strings.Contains(r.stderr, "the embedded default platform: no --platform, TRAINQ_PLATFORM or profile platform names a file") {
		t.Errorf("dry run on the default platform with an unknown team: exit %d, %q", r.code, r.stderr)
	}
}

// DryRunView is the part of submit --dry-run's JSON these tests read.
type DryRunView struct{ Function, Qualifier string }

// TestConfigMistakesAreNamed: a profile that does not exist, an unknown
// key with its line, a TRAINQ_CONFIG that does not exist.
func TestConfigMistakesAreNamed(t *testing.T) {
	cfg := writeConfig(t, "profiles:\n  ranking:\n    class: research\n    teem: alpha\n")
	r := trainqWith(t, []string{"TRAINQ_CONFIG=" + cfg}, "config")
	if r.code != 1 || !strings.Contains(r.stderr, "line 4: profiles.ranking.teem: unknown key") || !strings.Contains(r.stderr, "(team?)") {
		t.Errorf("unknown key: exit %d, %q", r.code, r.stderr)
	}
	cfg = writeConfig(t, "profiles:\n  ranking:\n    class: research\n")
	r = trainqWith(t, []string{"TRAINQ_CONFIG=" + cfg, "TRAINQ_PROFILE=vision"}, "submit", "--dry-run")
	if r.code != 1 || !strings.Contains(r.stderr, `profile "vision" (from TRAINQ_PROFILE): not in the config file `+cfg+"; its profiles: ranking") {
		t.Errorf("missing profile: exit %d, %q", r.code, r.stderr)
	}
	r = trainqWith(t, []string{"TRAINQ_CONFIG=/nonexistent/trainq.yaml"}, "config")
	if r.code != 1 || !strings.Contains(r.stderr, "TRAINQ_CONFIG=/nonexistent/trainq.yaml") {
		t.Errorf("missing TRAINQ_CONFIG: exit %d, %q", r.code, r.stderr)
	}
	// Without any file, trainq config says where it would be.
	r = trainqWith(t, []string{"XDG_CONFIG_HOME=/tmp/nowhere"}, "config")
	if r.code != 0 || !strings.Contains(r.stdout, "/tmp/nowhere/trainq/config.yaml (not found") {
		t.Errorf("no config file: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestSimulateSaysTheDefaultPlatformWasUsed: a trace whose team the
// embedded default lacks fails naming the default and why it was used.
func TestSimulateSaysTheDefaultPlatformWasUsed(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "jobs.csv")
	if err := os.WriteFile(tr, []byte("submit_s,duration_s,instances,instance_type,class,team\n0,60,1,ml.p5.48xlarge,research,alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := trainq(t, "simulate", "--trace", tr, "--no-progress")
	if r.code != 1 || !strings.Contains(r.stderr, "the embedded default platform: no --platform") || !strings.Contains(r.stderr, "alpha") {
		t.Errorf("exit %d, %q", r.code, r.stderr)
	}
	r = trainqWith(t, []string{"TRAINQ_PLATFORM=test/testdata/teams.yaml"}, "simulate", "--trace", tr, "--no-progress")
	if r.code != 0 {
		t.Errorf("with TRAINQ_PLATFORM naming a platform with team alpha: exit %d, %q", r.code, r.stderr)
	}
}

// TestMissingAWSSettingsAreToldPlainly: no region, no credentials, expired
// credentials: a sentence saying what to do, never the SDK's chain of
// errors or its IMDS warning.
func TestMissingAWSSettingsAreToldPlainly(t *testing.T) {
	raw := []string{"operation error", "IMDS", "WARN", "get identity", "failed to refresh"}
	job := []string{"status", "--class", "research", "--team", "search-ranking", "job-1"}
	withFlag := func(flag ...string) []string { return append(append(append([]string{}, job[:5]...), flag...), job[5]) }
	check := func(name string, r result, want string) {
		t.Helper()
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", name, r.code, r.stderr, want)
		}
		for _, s := range raw {
			if strings.Contains(r.stderr, s) {
				t.Errorf("%s: stderr shows the SDK's %q: %q", name, s, r.stderr)
			}
		}
	}
	check("no region", trainqWith(t, []string{"AWS_REGION=", "AWS_DEFAULT_REGION="}, job...), "no AWS region: give --region")
	// The credential chain ends at the instance metadata service, here
	// an address that refuses at once (no EC2 instance).
	check("no credentials", trainqWith(t, []string{"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_EC2_METADATA_DISABLED=false",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:1"}, job...), "no AWS credentials found")
	check("an AWS profile that does not exist", trainqWith(t, nil, withFlag("--aws-profile", "ml-dev")...),
		`AWS profile "ml-dev" (from --aws-profile) is not in your AWS config or credentials file`)
	// Lambda answers expired temporary credentials with 403
	// ExpiredTokenException (its error header names the type).
	for code, want := range map[string]string{"ExpiredTokenException": "your AWS credentials have expired",
		"UnrecognizedClientException": "AWS does not accept your credentials",
		// Lambda's throttling (HTTP 429), retried by the SDK first.
		"TooManyRequestsException": "the submission function is throttled"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Amzn-ErrorType", code)
			if code == "TooManyRequestsException" {
				w.WriteHeader(http.StatusTooManyRequests)
			} else {
				w.WriteHeader(http.StatusForbidden)
			}
			w.Write([]byte(`{"message":"The security token included in the request is expired"}`))
		}))
		check(code, trainqWith(t, []string{"AWS_ENDPOINT_URL_LAMBDA=" + srv.URL, "AWS_SESSION_TOKEN=x"}, job...), want)
		srv.Close()
	}
}

// trace is a small trace of the default platform's teams, with job ids.
const smallTrace = "job_id,submit_s,duration_s,instances,instance_type,class,team\n" +
	"a,0,3600,8,ml.p5.48xlarge,research,search-ranking\n" +
	"b,60,1800,16,ml.p5.48xlarge,sweep,search-research\n" +
	"c,120,600,4,ml.p4d.24xlarge,production,search-ranking\n"

// TestSimulateReadsTheTraceFromStdin: --trace - (and /dev/stdin) give
// what the same trace in a file gives, for every run (each run reads the
// trace again: standard input is copied once as it is read).
func TestSimulateReadsTheTraceFromStdin(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jobs.csv")
	if err := os.WriteFile(file, []byte(smallTrace), 0o600); err != nil {
		t.Fatal(err)
	}
	// A second platform, a copy of the default: one more run reading the
	// trace again.
	b, err := os.ReadFile("../../platform/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second.yaml")
	if err := os.WriteFile(second, b, 0o600); err != nil {
		t.Fatal(err)
	}
	runs := func(r result) string {
		t.Helper()
		var rep struct {
			Trace string
			Runs  json.RawMessage
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		return string(rep.Runs)
	}
	args := []string{"simulate", "--platform", "platform/default.yaml", "--platform", second, "--output", "json", "--no-progress"}
	want := runs(trainq(t, append(args, "--trace", file)...))
	for _, arg := range []string{"-", "/dev/stdin"} {
		r, _ := trainqIn(t, strings.NewReader(smallTrace), nil, append(args, "--trace", arg)...)
		if got := runs(r); got != want {
			t.Errorf("--trace %s: runs differ from the file's:\n%s\nwant\n%s", arg, got, want)
		}
	}
}

// TestSimulateRefusesHostileTraces: a 100 MiB line is refused with its line
// number by a process whose peak memory stays under 64 MiB, with a message
// under 4 KiB; a job id given twice is refused with both lines.
func TestSimulateRefusesHostileTraces(t *testing.T) {
	head := "job_id,submit_s,duration_s,instances,instance_type,class,team\na,0,60,1,ml.p5.48xlarge,research,search-ranking\n"
	huge := io.MultiReader(strings.NewReader(head), io.LimitReader(repeat('x'), 100<<20), strings.NewReader(",0,60,1,ml.p5.48xlarge,research,search-ranking\n"))
	r, rss := trainqIn(t, huge, nil, "simulate", "--trace", "-", "--no-progress")
	if r.code != 1 || !strings.Contains(r.stderr, "line 3: a line of at most 64 KiB") {
		t.Errorf("a 100 MiB line: exit %d, %q", r.code, r.stderr)
	}
	if len(r.stderr) >= 4<<10 {
		t.Errorf("a 100 MiB line: the message is %d bytes, want under 4 KiB", len(r.stderr))
	}
	if rss == 0 || rss > 64<<20 {
		t.Errorf("a 100 MiB line: peak resident memory %d MiB, want at most 64 MiB", rss>>20)
	}
	t.Logf("a 100 MiB line refused with a peak of %.1f MiB resident", float64(rss)/(1<<20))

	dup := smallTrace + "a,200,60,1,ml.p5.48xlarge,research,search-ranking\n"
	r, _ = trainqIn(t, strings.NewReader(dup), nil, "simulate", "--trace", "-", "--no-progress")
	if r.code != 1 || !strings.Contains(r.stderr, `line 5: column job_id: got "a", want a job id of its own (line 2 has it already)`) {
		t.Errorf("a job id twice: exit %d, %q", r.code, r.stderr)
	}
}

type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}
