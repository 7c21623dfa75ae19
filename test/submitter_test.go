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

	tq "github.com/trainq/trainq/constructs"
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
			tq.EnvJobQueue:         getAtt(queueID, "JobQueueArn"),
			tq.EnvExecutionRoleArn: getAtt(execRole, "Arn"),
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
	// One alias per class, named as the class, on the function.
	var aliases []string
	for _, id := range s.template.ofType("AWS::Lambda::Alias") {
		p := s.template.Resources[id].Properties
		if jsonEqual(p["FunctionName"], ref(fnID)) {
			aliases = append(aliases, p["Name"].(string))
		}
	}
	sort.Strings(aliases)
	want := s.platform.ClassNames()
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
	got, err := os.ReadFile(filepath.Join(dir, tq.PlatformFileName))
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

func TestSubmitterRoleIsLimitedToThePlatformQueue(t *testing.T) {
	s := synth(t, "")
	queueID, _ := s.template.one(t, "AWS::Batch::JobQueue")
	for _, st := range s.template.statements() {
		for _, a := range strs(st.body["Action"]) {
			if a == "*" || strings.HasSuffix(a, ":*") {
				t.Errorf("%s grants %s", st.where, a)
			}
			if a == "batch:SubmitServiceJob" || a == "batch:GetJobQueueSnapshot" {
				if !jsonEqual(st.body["Resource"], getAtt(queueID, "JobQueueArn")) {
					t.Errorf("%s: %s on %v, want the platform queue only", st.where, a, st.body["Resource"])
				}
			}
		}
	}
}

func TestSubmittersGetOnlyTheirClassesAliases(t *testing.T) {
	s := synth(t, fairSharePlatform)
	sub := s.platform.Submission.Submitters[0]
	// The role is in the stack's account, so the grant is an identity policy
	// on the imported role, naming each granted alias.
	var granted []string
	for _, st := range s.template.statements() {
		if !contains(strs(st.body["Action"]), "lambda:InvokeFunction") {
			continue
		}
		for _, r := range asList(st.body["Resource"]) {
			granted = append(granted, mustJSON(r))
		}
	}
	aliasIDs := map[string]string{}
	for _, id := range s.template.ofType("AWS::Lambda::Alias") {
		aliasIDs[s.template.Resources[id].Properties["Name"].(string)] = id
	}
	joined := strings.Join(granted, " ")
	for _, class := range s.platform.ClassNames() {
		has := strings.Contains(joined, `"Ref":"`+aliasIDs[class]+`"`)
		if has != contains(sub.Classes, class) {
			t.Errorf("class %s: granted %v, want %v (submitter classes %v)", class, has, contains(sub.Classes, class), sub.Classes)
		}
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
