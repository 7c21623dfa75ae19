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

// The decisions themselves are asked of an IAM evaluator in
// permissions_test.go; the tests here hold properties of every statement.

func TestPassRoleIsNeverWildcardAndOnlyToSageMaker(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform, examplePlatform} {
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

func TestNoStatementGrantsAWholeService(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform, examplePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			for _, st := range synth(t, file).template.statements() {
				for _, a := range strs(st.body["Action"]) {
					if a == "*" || strings.HasSuffix(a, ":*") {
						t.Errorf("%s grants %s", st.where, a)
					}
				}
			}
		})
	}
}

func TestStackEditsNoRoleItDoesNotOwn(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform, examplePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			tpl := synth(t, file).template
			owned := map[string]bool{}
			for _, id := range tpl.ofType("AWS::IAM::Role") {
				owned[id] = true
			}
			for _, typ := range []string{"AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"} {
				for _, id := range tpl.ofType(typ) {
					for _, r := range asList(tpl.Resources[id].Properties["Roles"]) {
						if ref, _ := get(r, "Ref").(string); !owned[ref] {
							t.Errorf("%s attaches a policy to %v, a role the stack did not create: grant it through resource policies", id, r)
						}
					}
				}
			}
		})
	}
}
