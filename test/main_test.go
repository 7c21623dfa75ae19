// Package test holds trainq's whole-app tests: synthesizing platforms,
// checking the templates' resources and values, validating them against the
// CloudFormation registry schemas, cdk-nag's AwsSolutions checks, reuse of
// the constructs from another stack, and the rule that run-time packages
// never import the CDK.
//
// Every test here talks to one jsii kernel: never call t.Parallel().
package test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/stacks"
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range synthCache {
		os.RemoveAll(s.outdir)
	}
	jsii.Close()
	os.Exit(code)
}

// synthesized is a platform's synthesized stack.
type synthesized struct {
	platform *platform.Platform
	stack    stacks.PlatformStack
	template template
	errors   []string // error annotations, cdk-nag's included
	outdir   string
	path     string // the template file
}

var synthCache = map[string]*synthesized{}

// synth synthesizes the platform in file (or the embedded default when file
// is "") once per test run.
func synth(t *testing.T, file string) *synthesized {
	t.Helper()
	if s, ok := synthCache[file]; ok {
		return s
	}
	p, err := platformfile.LoadFileOrDefault(file)
	if err != nil {
		t.Fatalf("load %s: %v", describe(file), err)
	}
	outdir, err := os.MkdirTemp("", "trainq-synth-")
	if err != nil {
		t.Fatal(err)
	}
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(outdir)})
	var s synthesized
	mustNotPanic(t, "synthesize "+describe(file), func() {
		s.stack = stacks.NewPlatformApp(app, p, &awscdk.Environment{Account: jsii.String("123456789012"), Region: jsii.String("us-east-1")})
		assembly := app.Synth(nil)
		s.errors = stacks.ErrorAnnotations(assembly)
		s.path = filepath.Join(*assembly.Directory(), stacks.StackID(p)+".template.json")
		s.template = readTemplate(t, s.path)
	})
	s.platform, s.outdir = p, outdir
	synthCache[file] = &s
	return &s
}

func describe(file string) string {
	if file == "" {
		return "the embedded default platform"
	}
	return file
}

// mustNotPanic turns a panic (a failed jsii call or CDK assertion) into a
// test failure, so that later tests still run.
func mustNotPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: %v", what, r)
		}
	}()
	f()
}

// template is a parsed CloudFormation template.
type template struct {
	Resources map[string]resource `json:"Resources"`
	Outputs   map[string]any      `json:"Outputs"`
}

type resource struct {
	Type       string         `json:"Type"`
	Properties map[string]any `json:"Properties"`
	DependsOn  any            `json:"DependsOn"`
}

func readTemplate(t *testing.T, path string) template {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read template: %v", err)
	}
	var tpl template
	if err := json.Unmarshal(data, &tpl); err != nil {
		t.Fatalf("parse template %s: %v", path, err)
	}
	return tpl
}

// ofType returns the logical ids of the resources of type typ, sorted.
func (tpl template) ofType(typ string) []string {
	var ids []string
	for id, r := range tpl.Resources {
		if r.Type == typ {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// one returns the single resource of type typ.
func (tpl template) one(t *testing.T, typ string) (string, resource) {
	t.Helper()
	ids := tpl.ofType(typ)
	if len(ids) != 1 {
		t.Fatalf("want exactly one %s, got %d: %v", typ, len(ids), ids)
	}
	return ids[0], tpl.Resources[ids[0]]
}

// get walks a decoded JSON value by keys and indexes ("A.B.0.C").
func get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// ref is the CloudFormation {"Ref": id}.
func ref(id string) map[string]any { return map[string]any{"Ref": id} }

// getAtt is the CloudFormation {"Fn::GetAtt": [id, attr]}.
func getAtt(id, attr string) map[string]any {
	return map[string]any{"Fn::GetAtt": []any{id, attr}}
}
