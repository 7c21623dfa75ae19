package platform

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocumentedExampleIsValid: docs/trainq.example.yaml is a complete,
// valid platform file that sets every field.
func TestDocumentedExampleIsValid(t *testing.T) {
	path := filepath.Join("..", "docs", "trainq.example.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range jsonFieldNames(reflect.TypeOf(Platform{})) {
		if !regexp.MustCompile(`(?m)^[\s#-]*` + regexp.QuoteMeta(name) + `:`).Match(data) {
			t.Errorf("docs/trainq.example.yaml does not show the field %q", name)
		}
	}
	if p.Scheduling.Mode != ModeQuota {
		t.Errorf("example mode = %q, want quota (the default and the reference setup)", p.Scheduling.Mode)
	}
	// Tests of other packages rely on these example values.
	wantTraining := Training{
		S3Read:           []string{"s3://ml-datasets/search/"},
		S3Write:          []string{"s3://ml-checkpoints/search/"},
		ECRRepositories:  []string{"ml/trainer"},
		AWSManagedImages: ptr(true),
		VPC: &TrainingVPC{
			Subnets:        []string{"subnet-0a1b2c3d4e5f60718", "subnet-1a2b3c4d5e6f70819"},
			SecurityGroups: []string{"sg-0123456789abcdef0"},
		},
		KMSKeys:          []string{"arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		LogRetentionDays: 400,
	}
	if diff := cmp.Diff(wantTraining, p.Training); diff != "" {
		t.Errorf("example training section (-want +got):\n%s", diff)
	}
	// Its header's promise: the reference setup plus the optional examples.
	// Without alarm e-mails, submitters, re-routing, checkpoints on stop, prices, budgets and training access (the platform's
	// and the teams') it is the embedded default.
	p.Monitoring.AlarmEmails = nil
	p.Monitoring.Page, p.Monitoring.Ticket = AlarmTarget{}, AlarmTarget{}
	p.Submission.Submitters = nil
	p.Submission.Operators = nil
	for i := range p.Teams {
		p.Teams[i].Training = nil
		p.Teams[i].Budgets = nil
	}
	for i := range p.Classes {
		p.Classes[i].Reroute = nil
		if k := p.Classes[i].Checkpoints; k != nil && k.OnStop != nil {
			kk := *k
			kk.OnStop = nil
			p.Classes[i].Checkpoints = &kk
		}
	}
	p.Training = Training{AWSManagedImages: ptr(true), LogRetentionDays: DefaultTrainingLogRetentionDays}
	p.Ledger.HourlyPrices = nil
	if diff := cmp.Diff(Default(), p); diff != "" {
		t.Errorf("example without its optional examples differs from the embedded default (-default +example):\n%s", diff)
	}
}

// TestReferenceDocumentsEveryField: docs/platform.md names every field of
// the platform file and every limit.
func TestReferenceDocumentsEveryField(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "platform.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, name := range jsonFieldNames(reflect.TypeOf(Platform{})) {
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/platform.md does not document `%s`", name)
		}
	}
	for _, limit := range []string{"20", "0.0001", "999.9999", "604800", "0–99", "0–9999", "0–1000", "2419200", "1–16", "1–5", "1024"} {
		if !strings.Contains(doc, limit) {
			t.Errorf("docs/platform.md does not state the limit %s", limit)
		}
	}
}

// jsonFieldNames lists the JSON names of t's fields, recursively.
func jsonFieldNames(t reflect.Type) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for name, f := range jsonFields(t) {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
			walk(f.Type)
		}
	}
	walk(t)
	return out
}
