package test

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
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
	checks := map[string]any{
		"Runtime":       "provided.al2023",
		"Architectures": []any{"arm64"},
		"Handler":       "bootstrap",
	}
	// The queue, and each team's own execution role (a JSON object).
	vars, _ := get(fn.Properties, "Environment.Variables").(map[string]any)
	if diff := cmp.Diff(getAtt(queueID, "JobQueueArn"), vars[contract.EnvJobQueue]); diff != "" {
		t.Errorf("%s (-want +got):\n%s", contract.EnvJobQueue, diff)
	}
	allowed := map[string]bool{contract.EnvJobQueue: true, contract.EnvExecutionRoleARNs: true, contract.EnvCheckpointBucket: true, contract.EnvGrants: true, contract.EnvLedgerTable: true}
	for k := range vars {
		if !allowed[k] {
			t.Errorf("environment has %s; want only %v", k, allowed)
		}
	}
	for _, k := range []string{contract.EnvJobQueue, contract.EnvExecutionRoleARNs, contract.EnvCheckpointBucket, contract.EnvGrants} {
		if vars[k] == nil {
			t.Errorf("environment %v lacks %s", vars, k)
		}
	}
	// The default platform grants no one: the function's access table holds
	// nothing beyond the bundled file's (empty) submission section.
	var grants contract.Grants
	if v, ok := vars[contract.EnvGrants].(string); !ok || json.Unmarshal([]byte(v), &grants) != nil || len(grants.Submitters)+len(grants.Operators) != 0 {
		t.Errorf("%s = %v, want an empty table", contract.EnvGrants, vars[contract.EnvGrants])
	}
	// Checkpoints go under the teams' prefixes of the artifacts bucket.
	var artifacts string
	for _, id := range s.template.ofType("AWS::S3::Bucket") {
		if strings.HasPrefix(id, "Artifacts") {
			artifacts = id
		}
	}
	if diff := cmp.Diff(ref(artifacts), vars[contract.EnvCheckpointBucket]); diff != "" {
		t.Errorf("%s (-want +got):\n%s", contract.EnvCheckpointBucket, diff)
	}
	d := deploy(t, s.path)
	var roles map[string]string
	if err := json.Unmarshal([]byte(fmt.Sprint(d.resolve(vars[contract.EnvExecutionRoleARNs]))), &roles); err != nil {
		t.Fatalf("%s: %v", contract.EnvExecutionRoleARNs, err)
	}
	wantRoles := map[string]string{}
	for _, team := range s.platform.TeamNames() {
		wantRoles[team] = d.teamRoleARN(t, team)
	}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("%s (-want +got):\n%s", contract.EnvExecutionRoleARNs, diff)
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
