package metrics_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/metrics"
)

func TestEveryMetricIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range metrics.All() {
		if seen[m.Name] {
			t.Errorf("metric %s is listed twice", m.Name)
		}
		seen[m.Name] = true
		if !metrics.ValidUnit(m.Unit) {
			t.Errorf("metric %s: unit %q is not a CloudWatch unit", m.Name, m.Unit)
		}
		if len(m.DimensionSets) == 0 {
			t.Errorf("metric %s has no dimension set", m.Name)
		}
		for _, set := range m.DimensionSets {
			if len(set) > metrics.MaxDimensionsPerSet {
				t.Errorf("metric %s: set %v has more than %d dimensions", m.Name, set, metrics.MaxDimensionsPerSet)
			}
			if set[0] != metrics.Queue {
				t.Errorf("metric %s: set %v does not start with Queue, which every metric carries", m.Name, set)
			}
		}
	}
}

// TestEveryDeclaredMetricHasExactlyOneWriter reads metrics.go itself: a
// Metric variable added there but left out of the writers' lists would be
// published by nobody's test (each writer's test checks its own list), and a
// metric in two lists would be published twice.
func TestEveryDeclaredMetricHasExactlyOneWriter(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "metrics.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.CompositeLit); ok {
					if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "Metric" {
						declared = append(declared, vs.Names[i].Name)
					}
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("found no Metric variable in metrics.go; the parse above is out of date")
	}
	writers := map[string][]string{}
	for writer, list := range map[string][]metrics.Metric{
		"observer": metrics.ObserverMetrics(), "poller": metrics.PollerMetrics(), "submitter": metrics.SubmitterMetrics(),
		"rerouter": metrics.RerouterMetrics(), "poller's budget pass": metrics.BudgetMetrics(),
	} {
		for _, m := range list {
			writers[m.Name] = append(writers[m.Name], writer)
		}
	}
	for _, name := range declared {
		if w := writers[name]; len(w) != 1 {
			t.Errorf("metric variable %s (named after its metric) is listed by writers %v; want exactly one of ObserverMetrics, PollerMetrics, SubmitterMetrics, RerouterMetrics, BudgetMetrics", name, w)
		}
	}
	var all []string
	for _, m := range metrics.All() {
		all = append(all, m.Name)
	}
	sort.Strings(all)
	sort.Strings(declared)
	if diff := cmp.Diff(declared, all); diff != "" {
		t.Errorf("All() against the Metric variables of metrics.go (-declared +All):\n%s", diff)
	}
}

func TestHasDimensionsIgnoresOrderButNotMembers(t *testing.T) {
	m := metrics.Metric{Name: "m", Unit: metrics.UnitCount, DimensionSets: [][]string{{"Queue", "Class"}}}
	if !m.HasDimensions("Class", "Queue") {
		t.Error("order should not matter")
	}
	if m.HasDimensions("Queue") || m.HasDimensions("Queue", "Class", "Team") || m.HasDimensions("Queue", "Queue") {
		t.Error("a set with other members matched")
	}
}
