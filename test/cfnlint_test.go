package test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cfnLintFinding is one finding of cfn-lint's JSON output.
type cfnLintFinding struct {
	Level    string `json:"Level"`
	Message  string `json:"Message"`
	Location struct {
		Path []any `json:"Path"`
	} `json:"Location"`
	Rule struct {
		ID string `json:"Id"`
	} `json:"Rule"`
}

// cfnLintKnownGaps are findings where cfn-lint's bundled schemas are older
// than the CloudFormation registry: each exactly one rule on one resource
// type and property, with the reason.
var cfnLintKnownGaps = []struct {
	rule, resourceType, property, reason string
}{
	{"E3002", "AWS::CloudWatch::Dashboard", "Tags",
		"the registry schema of AWS::CloudWatch::Dashboard has Tags (vendored in testdata/cfn-schemas and checked by TestTemplatesMatchRegistrySchemas); cfn-lint 1.51's bundled schema predates it"},
}

// cfnLint runs AWS's CloudFormation linter on a template and reports every
// error as a test failure. Warnings are logged.
func cfnLint(t *testing.T, name string, templateJSON []byte) {
	t.Helper()
	if _, err := exec.LookPath("cfn-lint"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cfn-lint is not on PATH; the machine images ship it (AWS's CloudFormation linter)")
		}
		t.Skip("cfn-lint is not on PATH")
	}
	path := filepath.Join(t.TempDir(), name+".template.json")
	if err := os.WriteFile(path, templateJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Resources map[string]struct {
			Type string `json:"Type"`
		} `json:"Resources"`
	}
	if err := json.Unmarshal(templateJSON, &tpl); err != nil {
		t.Fatalf("parse template %s: %v", name, err)
	}
	out, err := exec.Command("cfn-lint", "--format", "json", path).Output()
	if err != nil && len(out) == 0 {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("cfn-lint %s: %v\n%s", name, err, ee.Stderr)
		}
		t.Fatalf("cfn-lint %s: %v", name, err)
	}
	var findings []cfnLintFinding
	if err := json.Unmarshal(out, &findings); err != nil {
		t.Fatalf("cfn-lint %s: unreadable output (%v): %s", name, err, out)
	}
	warnings := 0
	for _, f := range findings {
		where := make([]string, len(f.Location.Path))
		for i, p := range f.Location.Path {
			where[i] = strings.TrimSpace(strings.Trim(mustJSON(p), `"`))
		}
		if f.Level != "Error" {
			warnings++
			t.Logf("cfn-lint %s %s: %s at %s", f.Level, f.Rule.ID, f.Message, strings.Join(where, "/"))
			continue
		}
		if knownGap(f, where, tpl.Resources) {
			continue
		}
		t.Errorf("cfn-lint %s: %s at %s: %s", name, f.Rule.ID, strings.Join(where, "/"), f.Message)
	}
	t.Logf("cfn-lint %s: %d findings, %d warnings", name, len(findings), warnings)
}

func knownGap(f cfnLintFinding, where []string, resources map[string]struct {
	Type string `json:"Type"`
}) bool {
	if len(where) < 4 || where[0] != "Resources" || where[2] != "Properties" {
		return false
	}
	for _, g := range cfnLintKnownGaps {
		if f.Rule.ID == g.rule && resources[where[1]].Type == g.resourceType && where[3] == g.property && len(where) == 4 {
			return true
		}
	}
	return false
}

func TestCfnLintFindsNoErrorInAnyPlatformTemplate(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform, examplePlatform, "testdata/nomonitor.yaml"} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			data, err := os.ReadFile(s.path)
			if err != nil {
				t.Fatal(err)
			}
			cfnLint(t, strings.NewReplacer("/", "-", ".", "-").Replace(describe(file)), data)
		})
	}
}
