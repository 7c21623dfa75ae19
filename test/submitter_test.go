package test

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
)

func TestSubmitterFunctionIsConfiguredForThePlatform(t *testing.T) {
	s := synth(t, "")
	queueID, _ := s.template.one(t, "AWS::Batch::JobQueue")
	fnID, fn := s.template.find(t, "AWS::Lambda::Function", "FunctionName", s.platform.SubmitFunctionName())
	roleIDs := s.template.ofType("AWS::IAM::Role")
	var execRole string
	for _, id := range roleIDs {
		if get(s.template.Resources[id].Properties, "AssumeRolePolicyDocument.Statement.0.Principal.Service") == "sagemaker.amazonaws.com" {
			execRole = id
		}
	}
	checks := map[string]any{
		"Runtime":       "provided.al2023",
		"Architectures": []any{"arm64"},
		"Handler":       "bootstrap",
		"Environment": map[string]any{"Variables": map[string]any{
			contract.EnvJobQueue:         getAtt(queueID, "JobQueueArn"),
			contract.EnvExecutionRoleARN: getAtt(execRole, "Arn"),
		}},
	}
	for k, want := range checks {
		if diff := cmp.Diff(want, fn.Properties[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	if get(fn.Properties, "DeadLetterConfig.TargetArn") == nil {
		t.Errorf("no dead-letter queue: failed asynchronous submissions would be lost")
	}
	// One alias per (class, team), named <class>-<team>, on the function.
	var aliases []string
	for _, id := range s.template.ofType("AWS::Lambda::Alias") {
		p := s.template.Resources[id].Properties
		if jsonEqual(p["FunctionName"], ref(fnID)) {
			aliases = append(aliases, p["Name"].(string))
		}
	}
	sort.Strings(aliases)
	var want []string
	for _, a := range s.platform.SubmitAliases() {
		want = append(want, a.Name)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, aliases); diff != "" {
		t.Errorf("aliases (-want +got):\n%s", diff)
	}
	_, cfg := s.template.one(t, "AWS::Lambda::EventInvokeConfig")
	if cfg.Properties["MaximumRetryAttempts"] != float64(2) {
		t.Errorf("asynchronous retries %v, want 2", cfg.Properties["MaximumRetryAttempts"])
	}
}

func TestSubmitterAssetBundlesTheBinaryAndThePlatform(t *testing.T) {
	s := synth(t, "")
	_, fn := s.template.find(t, "AWS::Lambda::Function", "FunctionName", s.platform.SubmitFunctionName())
	key, _ := get(fn.Properties, "Code.S3Key").(string)
	hash := strings.TrimSuffix(key, ".zip")
	dir := filepath.Join(s.outdir, "asset."+hash)
	got, err := os.ReadFile(filepath.Join(dir, contract.PlatformFileName))
	if err != nil {
		t.Fatalf("asset %s: %v", dir, err)
	}
	if !bytes.Equal(got, s.platform.JSON()) {
		t.Errorf("bundled platform.json differs from the platform:\n%s", got)
	}
	bin, err := elf.Open(filepath.Join(dir, "bootstrap"))
	if err != nil {
		t.Fatalf("bootstrap is not an ELF binary: %v", err)
	}
	defer bin.Close()
	if bin.Machine != elf.EM_AARCH64 {
		t.Errorf("bootstrap is built for %v, want arm64 (EM_AARCH64)", bin.Machine)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
