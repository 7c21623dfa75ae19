package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run the built app as `go run ./bin/cdk …` does, from the
// repository's root, each into its own CDK_OUTDIR.

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "trainq-cdk")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "cdk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("go build ./bin/cdk: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
	outdir         string
}

func cdk(t *testing.T, env []string, args ...string) result {
	t.Helper()
	outdir := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), "CDK_OUTDIR="+outdir, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20"), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), outdir: outdir}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func templates(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.template.json"))
	for i := range m {
		m[i] = filepath.Base(m[i])
	}
	return m
}

// TestContextFlagChoosesThePlatform: `--context platform=FILE` synthesizes
// FILE's platform (its stack is named after the file's platform name,
// "Trainq-" + name: test/testdata/teams.yaml names "trainq-teams"), and
// says which file it used.
func TestContextFlagChoosesThePlatform(t *testing.T) {
	// One synthesis (each costs seconds of a loaded machine); -c is the
	// same flag, checked below with a missing file.
	for _, args := range [][]string{{"--context", "platform=test/testdata/teams.yaml"}} {
		r := cdk(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		got := templates(t, r.outdir)
		if len(got) != 1 || got[0] != "Trainq-"+platformName(t, "../../test/testdata/teams.yaml")+".template.json" {
			t.Errorf("%v: templates %v, want the teams platform's only", args, got)
		}
		if !strings.Contains(r.stderr, "from test/testdata/teams.yaml") {
			t.Errorf("%v: stderr does not say which file was used:\n%s", args, r.stderr)
		}
	}
}

// TestAMissingOrBadPlatformFailsLoudly: never the default in its place.
func TestAMissingOrBadPlatformFailsLoudly(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  []string
		code int
		want string
	}{
		{"a missing file", []string{"--context", "platform=acme.yaml"}, nil, 1, "acme.yaml: no such file"},
		{"a missing file, with -c", []string{"-c", "platform=acme.yaml"}, nil, 1, "acme.yaml: no such file"},
		{"an invalid file", []string{"--context=platform=test/testdata/bad-platform.yaml"}, nil, 1, "invalid platform (4 problems)"},
		{"an unknown argument", []string{"--platform", "acme.yaml"}, nil, 2, `unknown argument "--platform"`},
		{"a context without a value", []string{"--context", "platform"}, nil, 2, `want KEY=VALUE`},
		{"two platforms", []string{"--context", "platform=test/testdata/teams.yaml"},
			[]string{`CDK_CONTEXT_JSON={"platform":"test/testdata/fairshare.yaml"}`}, 2, "CDK_CONTEXT_JSON names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cdk(t, tt.env, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", r.code, r.stderr, tt.code, tt.want)
			}
			if got := templates(t, r.outdir); len(got) > 0 {
				t.Errorf("synthesized %v all the same", got)
			}
		})
	}
}

// platformName reads the name: line of a platform file.
func platformName(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "name:"); ok {
			return strings.Trim(strings.TrimSpace(strings.SplitN(v, "#", 2)[0]), `"`)
		}
	}
	t.Fatalf("%s has no name", file)
	return ""
}
