package test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/batchrules"
	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/submit"
)

// TestGrantsReachTheFunctionsAccessTable: GrantSubmit and GrantOperate,
// made after the submitter exists, land in the function's own environment
// (contract.EnvGrants) — the place the function reads who may act for what —
// and the function's settings loader reads them back: the granted pipeline
// may act for its pair only, the operator for everything, a role granted
// nothing for nothing.
func TestGrantsReachTheFunctionsAccessTable(t *testing.T) {
	var sub tq.Submitter
	tpl := synthStack(t, func(stack awscdk.Stack) {
		q := teamQueue(stack, "a", "b")
		sub = tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t), PlatformProps: tq.PlatformProps{PlatformName: "vision"}})
		principal := awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil)
		sub.GrantSubmit(awsiam.NewRole(stack, jsii.String("Pipeline"), &awsiam.RoleProps{AssumedBy: principal}), "research", "a")
		sub.GrantOperate(awsiam.NewRole(stack, jsii.String("Oncall"), &awsiam.RoleProps{AssumedBy: principal}))
		awsiam.NewRole(stack, jsii.String("Stranger"), &awsiam.RoleProps{AssumedBy: principal})
	})
	path := filepath.Join(t.TempDir(), "grants.template.json")
	if err := os.WriteFile(path, []byte(mustJSON(tpl.ToJSON())), 0o644); err != nil {
		t.Fatal(err)
	}
	d := deploy(t, path)
	var env map[string]any
	for id := range d.res {
		if d.typeOf(id) == "AWS::Lambda::Function" {
			if e, ok := d.resolve(get(d.props(id), "Environment.Variables")).(map[string]any); ok && e[contract.EnvGrants] != nil {
				env = e
			}
		}
	}
	if env == nil {
		t.Fatalf("no function has %s", contract.EnvGrants)
	}
	settings := map[string]string{contract.EnvPlatformFile: "", "AWS_REGION": "us-east-1"}
	for k, v := range env {
		if s, ok := v.(string); ok {
			settings[k] = s
		}
	}
	// The platform file is not there (the code is a placeholder): only the
	// grants are read here.
	s, err := submit.LoadSettings(func(k string) string { return settings[k] }, "/nonexistent/bootstrap")
	if len(s.Submitters) != 1 || len(s.Operators) != 1 {
		t.Fatalf("the function reads %d submitters and %d operators from %s (%v), want 1 and 1", len(s.Submitters), len(s.Operators), settings[contract.EnvGrants], err)
	}
	p := sub.Platform()
	access := p.NewAccess(s.Submitters, s.Operators)
	roleKey := func(logicalPrefix string) batchrules.RoleKey {
		k, ok := batchrules.RoleKeyOf(d.roleARN(t, logicalPrefix))
		if !ok {
			t.Fatalf("%s: not a role ARN", logicalPrefix)
		}
		return k
	}
	pipeline, oncall, stranger := access.Of(roleKey("Pipeline")), access.Of(roleKey("Oncall")), access.Of(roleKey("Stranger"))
	if !pipeline.May("research", "a") || pipeline.May("research", "b") || pipeline.May("production", "a") || pipeline.Operator {
		t.Errorf("the pipeline's grant %+v, want (research, a) only", pipeline.Pairs())
	}
	if !oncall.May("production", "b") || !oncall.Operator {
		t.Errorf("the operator's grant %+v, want every pair", oncall)
	}
	if stranger.May("research", "a") {
		t.Error("a role granted nothing may act for (research, a)")
	}
}
