package test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCDKAppRefusesABadPlatformFileListingEveryProblem(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cdk-app")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/trainq/trainq/bin/cdk").CombinedOutput(); err != nil {
		t.Fatalf("build the CDK app: %v\n%s", err, out)
	}
	file, err := filepath.Abs("testdata/bad-platform.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, _ := json.Marshal(map[string]string{"platform": file})
	outdir := filepath.Join(dir, "cdk.out")
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "CDK_OUTDIR="+outdir, "CDK_CONTEXT_JSON="+string(ctx))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Fatalf("exit code %d (%v), want 1\n%s", code, err, stderr.String())
	}
	// The four mistakes of the file, each by its field.
	for _, field := range []string{
		"pools[0].instanceType",
		"teams[0].capacity[0].instanceType",
		"teams[0].borrowLimitPercent",
		"monitoring.utilizationTargetPercent",
	} {
		if !strings.Contains(stderr.String(), field) {
			t.Errorf("stderr does not name %s:\n%s", field, stderr.String())
		}
	}
	templates, _ := filepath.Glob(filepath.Join(outdir, "*.template.json"))
	if len(templates) != 0 {
		t.Errorf("a template was synthesized from an invalid platform: %v", templates)
	}
}
