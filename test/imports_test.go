package test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// buildTimeOnly are the module path prefixes that run-time code must never
// import: the CDK, jsii and constructs.
var buildTimeOnly = []string{
	"github.com/aws/aws-cdk-go/",
	"github.com/aws/jsii-runtime-go",
	"github.com/aws/constructs-go/",
	"github.com/cdklabs/",
}

// buildTimePackages are trainq's own packages that may import them.
var buildTimePackages = []string{
	"github.com/trainq/trainq/constructs",
	"github.com/trainq/trainq/stacks",
	"github.com/trainq/trainq/bin/cdk",
	"github.com/trainq/trainq/test",
	"github.com/trainq/trainq/bench/synth",
}

func TestRunTimePackagesNeverImportTheCDK(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Deps", "github.com/trainq/trainq/...")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	runTime := 0
	for dec.More() {
		var pkg struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&pkg); err != nil {
			t.Fatal(err)
		}
		if isBuildTime(pkg.ImportPath) {
			continue
		}
		runTime++
		for _, d := range pkg.Deps {
			for _, banned := range buildTimeOnly {
				if strings.HasPrefix(d, banned) {
					t.Errorf("run-time package %s depends on %s", pkg.ImportPath, d)
				}
			}
		}
	}
	// platform and metrics at the least, and the functions' mains.
	if runTime < 2 {
		t.Errorf("only %d run-time packages listed; the check is not looking at the module", runTime)
	}
}

func isBuildTime(path string) bool {
	for _, p := range buildTimePackages {
		if path == p || strings.HasPrefix(path, p+"/") && p != "github.com/trainq/trainq/test" {
			return true
		}
	}
	return false
}
