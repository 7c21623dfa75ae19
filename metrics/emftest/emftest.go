// Package emftest checks embedded metric format (EMF) output in tests: every
// line against the JSON schema published with the EMF specification, then
// through ParseEMF, which reads it the way CloudWatch Logs does.
//
// It is for tests only and, like all run-time code, must never import the AWS
// CDK, jsii or constructs.
package emftest

import (
	"bufio"
	"bytes"
	_ "embed"
	"sort"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/trainq/trainq/metrics"
)

//go:embed emf-schema.json
var schemaJSON []byte

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

func compiled() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("emf-schema.json", doc); err != nil {
			schemaErr = err
			return
		}
		schema, schemaErr = c.Compile("emf-schema.json")
	})
	return schema, schemaErr
}

// ValidateLine checks one line against the EMF JSON schema and ParseEMF and
// returns its data points.
func ValidateLine(line []byte) ([]metrics.Datum, error) {
	sch, err := compiled()
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return nil, err
	}
	if err := sch.Validate(inst); err != nil {
		return nil, err
	}
	return ParseEMF(line)
}

// Lines checks every line of out and returns the data points of all of them,
// failing t on the first line that is not valid EMF.
func Lines(t testing.TB, out []byte) []metrics.Datum {
	t.Helper()
	var all []metrics.Datum
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		ds, err := ValidateLine(line)
		if err != nil {
			t.Fatalf("line %d is not valid EMF: %v\n%s", n, err, line)
		}
		for _, d := range ds {
			if d.Namespace != metrics.Namespace {
				t.Errorf("line %d: namespace %q, want %q", n, d.Namespace, metrics.Namespace)
			}
		}
		all = append(all, ds...)
	}
	return all
}

// Values maps each datum's Key to its values, for comparing with cmp.Diff.
// A key seen twice gets the values of both.
func Values(ds []metrics.Datum) map[string][]float64 {
	out := map[string][]float64{}
	for _, d := range ds {
		out[d.Key()] = append(out[d.Key()], d.Values...)
	}
	return out
}

// Sets lists, for each metric name, the dimension sets it was published
// under, each as its sorted dimension names joined by commas.
func Sets(ds []metrics.Datum) map[string][]string {
	seen := map[string]map[string]bool{}
	for _, d := range ds {
		names := make([]string, 0, len(d.Dimensions))
		for k := range d.Dimensions {
			names = append(names, k)
		}
		sort.Strings(names)
		key := joinComma(names)
		if seen[d.Name] == nil {
			seen[d.Name] = map[string]bool{}
		}
		seen[d.Name][key] = true
	}
	out := map[string][]string{}
	for name, sets := range seen {
		for s := range sets {
			out[name] = append(out[name], s)
		}
		sort.Strings(out[name])
	}
	return out
}

// DeclaredSets is Sets for the metric definitions: what each metric promises.
func DeclaredSets(ms []metrics.Metric) map[string][]string {
	out := map[string][]string{}
	for _, m := range ms {
		for _, set := range m.DimensionSets {
			names := append([]string(nil), set...)
			sort.Strings(names)
			out[m.Name] = append(out[m.Name], joinComma(names))
		}
		sort.Strings(out[m.Name])
	}
	return out
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}
