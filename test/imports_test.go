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

// layers says which of trainq's packages each package may import (its own
// non-test imports): arrows run one way, from the functions, the CLI and the
// constructs to the contract, AWS Batch's rules, the platform and the
// metrics; never from a function's package to another's, never from the
// constructs to a function's package. docs/architecture.md draws it.
var layers = map[string][]string{
	"batchrules":             {},
	"batchrules/batchsdk":    {"batchrules"},
	"metrics":                {},
	"awsenv":                 {},
	"cli":                    {},
	"plan":                   {},
	"platform":               {"batchrules"},
	"platform/platformfile":  {"platform"},
	"contract":               {"platform", "batchrules"},
	"door":                   {"contract", "platform", "batchrules"},
	"trace":                  {"platform", "batchrules"},
	"moveplan":               {"platform", "batchrules"},
	"alarms":                 {"platform", "metrics"},
	"simulate":               {"platform", "batchrules", "trace", "metrics", "contract", "moveplan", "alarms", "budget", "showback"},
	"simulate/simcmd":        {"cli", "platform", "batchrules", "simulate", "trace", "platform/platformfile"},
	"submit":                 {"contract", "door", "batchrules", "batchrules/batchsdk", "platform", "metrics", "ledger", "showback", "budget"},
	"observe":                {"contract", "batchrules", "platform", "metrics", "ledger"},
	"ledger":                 {"contract", "batchrules", "platform", "showback", "trace", "ledger/dynamo"},
	"ledger/dynamo":          {},
	"showback":               {},
	"reconcile":              {"contract", "batchrules", "batchrules/batchsdk", "platform", "ledger", "observe"},
	"budget":                 {"platform", "showback"},
	"poll":                   {"contract", "batchrules", "batchrules/batchsdk", "platform", "metrics", "ledger", "budget", "showback"},
	"reroute":                {"contract", "door", "batchrules", "batchrules/batchsdk", "platform", "metrics", "moveplan"},
	"client":                 {"cli", "contract", "door", "batchrules", "platform", "simulate", "trace", "platform/platformfile"},
	"constructs/lambdabuild": {},
	"constructs":             {"constructs/lambdabuild", "contract", "batchrules", "platform", "metrics", "ledger", "alarms"},
	"stacks":                 {"constructs", "contract", "batchrules", "platform", "metrics", "ledger", "platform/platformfile"},
	"bin/cdk":                {"stacks"},
	"bin/submitter":          {"submit", "awsenv", "ledger", "contract", "platform"},
	"bin/observer":           {"observe", "awsenv", "ledger", "contract", "platform"},
	"bin/poller":             {"poll", "awsenv", "reconcile", "ledger", "contract", "platform"},
	"bin/rerouter":           {"reroute", "awsenv", "contract", "platform"},
	"bin/trainq":             {"cli", "client", "simulate/simcmd", "contract", "platform", "plan", "platform/platformfile"},
}

// testSupport are packages only tests and benchmarks may import.
var testSupport = []string{"internal/", "metrics/emftest", "test/"}

func TestPackagesImportOnlyTheirLayers(t *testing.T) {
	const module = "github.com/trainq/trainq/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		product := !strings.HasPrefix(pkg, "bench/") && !strings.HasPrefix(pkg, "test") && !strings.HasPrefix(pkg, "internal/") &&
			pkg != "metrics/emftest" && !strings.HasPrefix(pkg, "examples/")
		allowed, layered := layers[pkg]
		seen[pkg] = layered
		if product && !layered {
			t.Errorf("package %s has no layer in the import test (and docs/architecture.md): say what it may import", pkg)
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if product {
				for _, s := range testSupport {
					if strings.HasPrefix(dep, s) || dep == strings.TrimSuffix(s, "/") {
						t.Errorf("product package %s imports test support %s", pkg, dep)
					}
				}
			}
			if layered && !containsString(allowed, dep) {
				t.Errorf("%s imports %s; its layer allows %v", pkg, dep, allowed)
			}
		}
	}
	for pkg := range layers {
		if _, ok := seen[pkg]; !ok {
			t.Errorf("layer for %s, which is not a package of the module", pkg)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
