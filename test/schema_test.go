package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// intrinsicSchema accepts a CloudFormation intrinsic function ({"Ref": …},
// {"Fn::GetAtt": …}, {"Fn::Join": …}, …) wherever a value goes.
var intrinsicSchema = map[string]any{
	"type":          "object",
	"minProperties": 1,
	"maxProperties": 1,
	"patternProperties": map[string]any{
		"^(Ref|Fn::[A-Za-z]+|Condition)$": map[string]any{},
	},
	"additionalProperties": false,
}

// allowIntrinsics rewrites a schema so that every value may also be an
// intrinsic: each subschema s becomes anyOf[s, intrinsic]. Members of
// oneOf/anyOf/allOf are rewritten inside but not wrapped themselves, so an
// intrinsic does not match several oneOf members at once.
func allowIntrinsics(s any) any {
	return map[string]any{"anyOf": []any{rewriteChildren(s), map[string]any{"$ref": "#/definitions/__Intrinsic"}}}
}

func rewriteChildren(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	for _, k := range []string{"properties", "patternProperties"} {
		if sub, ok := m[k].(map[string]any); ok {
			for name, v := range sub {
				sub[name] = allowIntrinsics(v)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if v, ok := m[k].(map[string]any); ok {
			m[k] = allowIntrinsics(v)
		}
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if arr, ok := m[k].([]any); ok {
			for i := range arr {
				arr[i] = rewriteChildren(arr[i])
			}
		}
	}
	return m
}

// javaQuantifier matches bounded repetitions above Go's limit of 1000.
var javaQuantifier = regexp.MustCompile(`\{(\d+),(\d{4,})\}`)

// patternEngine compiles the schemas' Java regular expressions with Go's
// engine: repetition bounds above 1000 become unbounded (a looser check of
// length only), and patterns Go cannot compile at all (look-arounds) are
// recorded and not enforced.
type patternEngine struct{ skipped map[string]bool }

func (e *patternEngine) compile(s string) (jsonschema.Regexp, error) {
	if re, err := regexp.Compile(s); err == nil {
		return re, nil
	}
	if re, err := regexp.Compile(javaQuantifier.ReplaceAllString(s, "{$1,}")); err == nil {
		return re, nil
	}
	e.skipped[s] = true
	return anything{s}, nil
}

type anything struct{ s string }

func (a anything) MatchString(string) bool { return true }
func (a anything) String() string          { return a.s }

// schemaFiles maps a resource type to its vendored schema file.
func schemaFile(typ string) string {
	// A custom resource type (Custom::NAME) is AWS::CloudFormation::CustomResource
	// with a name of the template's choosing (CloudFormation user guide,
	// "Custom resources").
	if strings.HasPrefix(typ, "Custom::") {
		typ = "AWS::CloudFormation::CustomResource"
	}
	return filepath.Join("testdata", "cfn-schemas", strings.ToLower(strings.ReplaceAll(typ, "::", "-"))+".json")
}

// compileResourceSchema turns a registry schema into a schema of the
// resource's Properties that accepts intrinsics.
func compileResourceSchema(engine *patternEngine, typ string) (*jsonschema.Schema, error) {
	data, err := os.ReadFile(schemaFile(typ))
	if err != nil {
		return nil, fmt.Errorf("no vendored schema for %s: %w", typ, err)
	}
	var reg map[string]any
	if err := json.Unmarshal(data, &reg); err != nil {
		return nil, fmt.Errorf("parse schema of %s: %w", typ, err)
	}
	defs, _ := reg["definitions"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	for name, d := range defs {
		defs[name] = allowIntrinsics(d)
	}
	defs["__Intrinsic"] = intrinsicSchema
	root := map[string]any{
		"type":        "object",
		"properties":  reg["properties"],
		"definitions": defs,
	}
	if req, ok := reg["required"]; ok {
		root["required"] = req
	}
	if ap, ok := reg["additionalProperties"]; ok {
		root["additionalProperties"] = ap
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "dependencies", "patternProperties"} {
		if v, ok := reg[k]; ok {
			root[k] = v
		}
	}
	root = rewriteChildren(root).(map[string]any)
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(engine.compile)
	c.DefaultDraft(jsonschema.Draft7)
	url := "file:///" + strings.ReplaceAll(typ, "::", "-") + ".json"
	if err := c.AddResource(url, root); err != nil {
		return nil, fmt.Errorf("add schema of %s: %w", typ, err)
	}
	return c.Compile(url)
}

func TestTemplatesMatchCloudFormationRegistrySchemas(t *testing.T) {
	engine := &patternEngine{skipped: map[string]bool{}}
	schemas := map[string]*jsonschema.Schema{}
	// The example platform adds the re-router (it reroutes research and sweep).
	for _, file := range []string{"", fairSharePlatform, examplePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			ids := make([]string, 0, len(s.template.Resources))
			for id := range s.template.Resources {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			checked := 0
			for _, id := range ids {
				r := s.template.Resources[id]
				if r.Type == "AWS::CDK::Metadata" {
					continue
				}
				sch, ok := schemas[r.Type]
				if !ok {
					var err error
					if sch, err = compileResourceSchema(engine, r.Type); err != nil {
						t.Errorf("%s (%s): %v", id, r.Type, err)
						continue
					}
					schemas[r.Type] = sch
				}
				props := any(r.Properties)
				if r.Properties == nil {
					props = map[string]any{}
				}
				// Round-trip through JSON so numbers are what the validator expects.
				raw, _ := json.Marshal(props)
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
				if err != nil {
					t.Fatal(err)
				}
				if err := sch.Validate(inst); err != nil {
					t.Errorf("%s (%s) violates its CloudFormation schema:\n%v", id, r.Type, err)
				}
				checked++
			}
			if checked == 0 {
				t.Errorf("no resource was checked")
			}
			t.Logf("%d resources validated", checked)
		})
	}
	for p := range engine.skipped {
		t.Logf("pattern not enforced (beyond Go's regexp): %s", p)
	}
}

func TestSchemaCheckCatchesAnInvalidResource(t *testing.T) {
	// The checker itself must fail on what CloudFormation would refuse: a
	// queue priority above the schema's maximum of 1000, and an unknown key.
	engine := &patternEngine{skipped: map[string]bool{}}
	sch, err := compileResourceSchema(engine, "AWS::Batch::JobQueue")
	if err != nil {
		t.Fatal(err)
	}
	for name, props := range map[string]string{
		"priority above 1000": `{"Priority": 1001, "ServiceEnvironmentOrder": [{"Order": 1, "ServiceEnvironment": "se"}]}`,
		"unknown key":         `{"Priority": 1, "ServiceEnvironmentOrder": [{"Order": 1, "ServiceEnvironment": "se"}], "Bogus": true}`,
		"missing Priority":    `{"ServiceEnvironmentOrder": [{"Order": 1, "ServiceEnvironment": "se"}]}`,
		"order without Order": `{"Priority": 1, "ServiceEnvironmentOrder": [{"ServiceEnvironment": "se"}]}`,
	} {
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(props))
		if err := sch.Validate(inst); err == nil {
			t.Errorf("%s: %s accepted", name, props)
		}
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"Priority": {"Ref": "P"}, "SchedulingPolicyArn": {"Fn::GetAtt": ["P", "Arn"]},
		"ServiceEnvironmentOrder": [{"Order": 1, "ServiceEnvironment": {"Fn::GetAtt": ["SE", "ServiceEnvironmentArn"]}}]}`))
	if err := sch.Validate(inst); err != nil {
		t.Errorf("intrinsics refused: %v", err)
	}
}
