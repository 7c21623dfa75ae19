package test

import (
	"fmt"
	"strings"
	"testing"
)

// statement is one IAM statement found in a template, with where it is.
type statement struct {
	where string
	body  map[string]any
}

// statements returns every identity-policy statement of the template.
func (tpl template) statements() []statement {
	var out []statement
	add := func(where string, doc any) {
		for i, st := range asList(get(doc, "Statement")) {
			out = append(out, statement{fmt.Sprintf("%s statement %d", where, i), st.(map[string]any)})
		}
	}
	for _, id := range tpl.ofType("AWS::IAM::Policy") {
		add(id, tpl.Resources[id].Properties["PolicyDocument"])
	}
	for _, id := range tpl.ofType("AWS::IAM::Role") {
		for i, p := range asList(tpl.Resources[id].Properties["Policies"]) {
			add(fmt.Sprintf("%s inline policy %d", id, i), get(p, "PolicyDocument"))
		}
	}
	return out
}

func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	default:
		return []any{x}
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range asList(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func TestPassRoleIsNeverWildcardAndOnlyToSageMaker(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			found := 0
			for _, st := range s.template.statements() {
				actions := strs(st.body["Action"])
				for _, a := range actions {
					if a != "iam:PassRole" && a != "iam:*" && a != "*" {
						continue
					}
					found++
					for _, r := range asList(st.body["Resource"]) {
						if r == "*" || (isString(r) && strings.Contains(r.(string), "*")) {
							t.Errorf("%s: %s on %v: want the execution role's ARN only", st.where, a, r)
						}
					}
					if got := get(st.body, "Condition.StringEquals.iam:PassedToService"); got != "sagemaker.amazonaws.com" {
						t.Errorf("%s: %s condition iam:PassedToService = %v, want sagemaker.amazonaws.com", st.where, a, got)
					}
				}
			}
			if found == 0 {
				t.Errorf("no statement passes the execution role: the submitter could not submit")
			}
		})
	}
}

func isString(v any) bool { _, ok := v.(string); return ok }

func TestExecutionRoleIsAssumedOnlyBySageMakerOfThisAccount(t *testing.T) {
	s := synth(t, "")
	for _, id := range s.template.ofType("AWS::IAM::Role") {
		doc := s.template.Resources[id].Properties["AssumeRolePolicyDocument"]
		for _, st := range asList(get(doc, "Statement")) {
			if get(st, "Principal.Service") != "sagemaker.amazonaws.com" {
				continue
			}
			if got := get(st, "Condition.StringEquals.aws:SourceAccount"); got != "123456789012" {
				t.Errorf("%s trusts SageMaker with aws:SourceAccount = %v, want the stack's account 123456789012", id, got)
			}
			return
		}
	}
	t.Errorf("no role is assumable by sagemaker.amazonaws.com: jobs would have no execution role")
}

func TestExecutionRoleReachesOnlyDeclaredData(t *testing.T) {
	s := synth(t, fairSharePlatform)
	var s3Resources []string
	for _, st := range s.template.statements() {
		for _, a := range strs(st.body["Action"]) {
			if strings.HasPrefix(a, "s3:") {
				for _, r := range asList(st.body["Resource"]) {
					s3Resources = append(s3Resources, fmt.Sprint(r))
				}
			}
			if a == "*" || a == "s3:*" {
				t.Errorf("%s grants %s", st.where, a)
			}
		}
	}
	joined := strings.Join(s3Resources, "\n")
	// The platform declares read on example-datasets/images/ and write on
	// example-models/research/; the stack adds its artifacts bucket.
	for _, want := range []string{"example-datasets/images/*", "example-models/research/*"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no S3 grant on %s; grants:\n%s", want, joined)
		}
	}
	for _, r := range s3Resources {
		if r == "*" || strings.HasSuffix(r, ":::*") {
			t.Errorf("S3 grant on every bucket: %s", r)
		}
	}
	var ecr []string
	for _, st := range s.template.statements() {
		for _, a := range strs(st.body["Action"]) {
			if a == "ecr:BatchGetImage" {
				ecr = append(ecr, fmt.Sprint(st.body["Resource"]))
			}
		}
	}
	if len(ecr) != 1 || !strings.Contains(ecr[0], "repository/ml/trainer") {
		t.Errorf("ecr:BatchGetImage on %v, want the declared repository ml/trainer only", ecr)
	}
}
