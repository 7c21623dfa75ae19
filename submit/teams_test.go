package submit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/submit"
)

// Two teams, alpha and beta, with roles of their own; two pipelines may
// submit research, one for each team (test/testdata/teams.yaml is the same
// platform for the IAM evaluator).
const teamsPlatform = `
pools:
  - {instanceType: ml.p5.48xlarge, instances: 8}
teams:
  - name: alpha
    capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]
  - name: beta
    capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]
submission:
  submitters:
    - {roleArn: "arn:aws:iam::123456789012:role/alpha-pipeline", classes: [research], teams: [alpha]}
    - {roleArn: "arn:aws:iam::123456789012:role/beta-pipeline", classes: [research], teams: [beta]}
`

const (
	alphaRole = "arn:aws:iam::123456789012:role/trainq-sagemaker-alpha"
	betaRole  = "arn:aws:iam::123456789012:role/trainq-sagemaker-beta"
)

func teamsHandler(t *testing.T, fake *batchtest.Server) *submit.Handler {
	t.Helper()
	p, err := platformfile.Parse([]byte(teamsPlatform))
	if err != nil {
		t.Fatal(err)
	}
	return newHandlerWith(t, p, fake, fastPolicy, func(cfg *submit.Config) {
		cfg.ExecutionRoleARN = ""
		cfg.ExecutionRoleARNs = map[string]string{"alpha": alphaRole, "beta": betaRole}
	})
}

// teamRequest is submit-minimal.json for team and class ("" leaves them
// out), with key as its idempotency key and extra members.
func teamRequest(t *testing.T, team, class, key string, extra map[string]any) []byte {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(fixture(t, "submit-minimal.json"), &req); err != nil {
		t.Fatal(err)
	}
	delete(req, "team")
	delete(req, "class")
	for k, v := range map[string]string{"team": team, "class": class, "idempotencyKey": key} {
		if v != "" {
			req[k] = v
		}
	}
	for k, v := range extra {
		req[k] = v
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAnAliasSubmitsForItsTeamOnly(t *testing.T) {
	tests := []struct {
		name, alias, team, class string
		extra                    map[string]any
		wantType                 string
		wantFields               []string
		// wantRole is the execution role of the job created.
		wantRole string
	}{
		{name: "(research, alpha) submits for alpha, as alpha's execution role", alias: "research-alpha", team: "alpha", wantRole: alphaRole},
		{name: "the team comes from the alias when the request names none", alias: "research-alpha", wantRole: alphaRole},
		{name: "(research, alpha) is Forbidden for team beta", alias: "research-alpha", team: "beta", wantType: "Forbidden", wantFields: []string{"team"}},
		{name: "(research, alpha) is Forbidden for a production job", alias: "research-alpha", class: "production", wantType: "Forbidden", wantFields: []string{"class"}},
		{name: "(research, alpha) may not run its job as beta's execution role", alias: "research-alpha",
			extra:    map[string]any{"trainingJob": map[string]any{"RoleArn": betaRole, "OutputDataConfig": map[string]any{"S3OutputPath": "s3://a/b/"}}},
			wantType: "Forbidden", wantFields: []string{"trainingJob.RoleArn"}},
		{name: "an operator submits for beta, as beta's execution role", team: "beta", class: "research", wantRole: betaRole},
		{name: "an alias of a team that does not exist is Forbidden", alias: "research-gamma", wantType: "Forbidden", wantFields: []string{"caller"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := teamsHandler(t, fake)
			_, ferr := invoke(t, invocation(tt.alias, "req-1"), h, teamRequest(t, tt.team, tt.class, "", tt.extra))
			gotType := ""
			if ferr != nil {
				gotType = ferr.Type
			}
			if gotType != tt.wantType {
				t.Fatalf("errorType %q, want %q (%+v)", gotType, tt.wantType, ferr)
			}
			if ferr != nil {
				for _, f := range tt.wantFields {
					if !strings.Contains(ferr.Message, f+":") {
						t.Errorf("message does not name %s:\n%s", f, ferr.Message)
					}
				}
				if n := len(fake.Calls("SubmitServiceJob")); n != 0 {
					t.Errorf("%d SubmitServiceJob calls, want none", n)
				}
				return
			}
			var payload struct{ RoleArn string }
			if err := json.Unmarshal([]byte(submitted(t, fake)[0].ServiceRequestPayload), &payload); err != nil {
				t.Fatal(err)
			}
			if payload.RoleArn != tt.wantRole {
				t.Errorf("RoleArn %q, want %q", payload.RoleArn, tt.wantRole)
			}
		})
	}
}

// TestAnAliasManagesJobsOfItsClassAndTeamOnly: (research, alpha) may not
// describe, cancel or re-prioritize a beta job nor a production job; it
// may its own, and the job then says who did it.
func TestAnAliasManagesJobsOfItsClassAndTeamOnly(t *testing.T) {
	tests := []struct {
		name, team, class, action string
		wantType                  string
	}{
		{"(research, alpha) may not cancel a beta job", "beta", "research", `"action":"cancel"`, "Forbidden"},
		{"(research, alpha) may not re-prioritize a beta job", "beta", "research", `"action":"reprioritize","priority":1`, "Forbidden"},
		{"(research, alpha) may not describe a beta job", "beta", "research", `"action":"describe"`, "Forbidden"},
		{"(research, alpha) may not cancel a production job of alpha", "alpha", "production", `"action":"cancel"`, "Forbidden"},
		{"(research, alpha) may not re-prioritize a production job of alpha", "alpha", "production", `"action":"reprioritize","priority":1`, "Forbidden"},
		{"(research, alpha) cancels its own job", "alpha", "research", `"action":"cancel"`, ""},
		{"(research, alpha) re-prioritizes its own job", "alpha", "research", `"action":"reprioritize","priority":1`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := teamsHandler(t, fake)
			sub, ferr := invoke(t, invocation("", "req-1"), h, teamRequest(t, tt.team, tt.class, "", nil))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			_, ferr = invoke(t, invocation("research-alpha", "req-2"), h, []byte(fmt.Sprintf(`{%s,"jobId":%q}`, tt.action, sub.JobID)))
			gotType := ""
			if ferr != nil {
				gotType = ferr.Type
			}
			if gotType != tt.wantType {
				t.Fatalf("errorType %q, want %q (%+v)", gotType, tt.wantType, ferr)
			}
			job := fake.Jobs()[0]
			if tt.wantType != "" {
				if job.Terminated || len(fake.Calls("UpdateServiceJob")) > 0 {
					t.Errorf("the job was changed: terminated %v, %d updates", job.Terminated, len(fake.Calls("UpdateServiceJob")))
				}
				return
			}
			switch {
			case strings.Contains(tt.action, "cancel"):
				if want := "trainq: cancelled by role pipeline-research-alpha: through trainq"; job.StatusReason != want {
					t.Errorf("status reason %q, want %q", job.StatusReason, want)
				}
			default:
				if got := job.Request.Tags[contract.TagReprioritizedBy]; got != "role pipeline-research-alpha" {
					t.Errorf("tag %s = %q, want %q", contract.TagReprioritizedBy, got, "role pipeline-research-alpha")
				}
			}
		})
	}
}

// TestAKeyIsScopedToClassAndTeam: a key reused across classes or teams
// creates a second job and never answers with the first.
func TestAKeyIsScopedToClassAndTeam(t *testing.T) {
	tests := []struct {
		name                   string
		firstAlias, firstClass string
		thenAlias, thenTeam    string
		thenClass              string
	}{
		{name: "the same key in research then production of alpha", firstAlias: "research-alpha", thenClass: "production", thenTeam: "alpha"},
		{name: "the same key in research of alpha then of beta", firstAlias: "research-alpha", thenAlias: "research-beta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := teamsHandler(t, fake)
			first, ferr := invoke(t, invocation(tt.firstAlias, "req-1"), h, teamRequest(t, "", "", "nightly-1", nil))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			then, ferr := invoke(t, invocation(tt.thenAlias, "req-2"), h, teamRequest(t, tt.thenTeam, tt.thenClass, "nightly-1", nil))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			if then.Existing || then.JobID == first.JobID || then.JobName == first.JobName {
				t.Errorf("second submission answered %+v, want a new job (the first is %s, %s)", then, first.JobID, first.JobName)
			}
			if n := len(fake.Jobs()); n != 2 {
				t.Errorf("%d jobs, want 2", n)
			}
		})
	}
}

// TestARepeatFindingAJobOfAnotherScopeIsRefused: should the job a token
// finds be of another class or team (its tags say so), the repeat is a
// ValidationError naming idempotencyKey, never that job.
func TestARepeatFindingAJobOfAnotherScopeIsRefused(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := teamsHandler(t, fake)
	req := teamRequest(t, "", "", "nightly-1", nil)
	first, ferr := invoke(t, invocation("research-alpha", "req-1"), h, req)
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if _, err := batchClient(fake, fastPolicy).TagResource(context.Background(), &batch.TagResourceInput{
		ResourceArn: aws.String(first.JobARN), Tags: map[string]string{contract.TagTeam: "beta"},
	}); err != nil {
		t.Fatal(err)
	}
	_, ferr = invoke(t, invocation("research-alpha", "req-2"), h, req)
	if ferr == nil || ferr.Type != "ValidationError" || !strings.Contains(ferr.Message, "idempotencyKey:") {
		t.Fatalf("repeat answered %+v, want a ValidationError naming idempotencyKey", ferr)
	}
	if n := len(fake.Jobs()); n != 1 {
		t.Errorf("%d jobs, want 1", n)
	}
}
