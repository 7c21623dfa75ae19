package contract_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
)

func TestCheckJSON(t *testing.T) {
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	tests := []struct {
		name string
		data string
		want *contract.JSONProblem
	}{
		{"a plain object passes", `{"a":1,"b":{"c":[1,{"d":"x"}]}}`, nil},
		{"a repeated member is named with its path", `{"a":1,"b":{"c":1,"c":2}}`, &contract.JSONProblem{Path: "b.c", What: `member "c" given twice`}},
		{"names are compared decoded", `{"A":1,"\u0041":2}`, &contract.JSONProblem{Path: "A", What: `member "A" given twice`}},
		{"names differing in case are two names", `{"status":1,"STATUS":2}`, nil},
		{"a repeated member inside a list item", `{"l":[{},{"x":1,"x":1}]}`, &contract.JSONProblem{Path: "l[1].x", What: `member "x" given twice`}},
		{"nesting beyond the limit is named", `{"a":` + deep + `}`, &contract.JSONProblem{Path: "a" + strings.Repeat("[0]", 31), What: "JSON nested more than 32 levels deep"}},
		{"a syntax error stops the walk silently", `{"a":1,"b":}`, nil},
		{"nesting far beyond encoding/json's limit is still named", strings.Repeat("[", 20000), &contract.JSONProblem{Path: strings.Repeat("[0]", 32), What: "JSON nested more than 32 levels deep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, contract.CheckJSON([]byte(tt.data), contract.MaxRequestDepth)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSplitObject(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	got, err := contract.SplitObject([]byte(` {"a" : 1, "b":` + deep + `,"a":"x\"}","c":{"d":[1,2]}} `))
	if err != nil {
		t.Fatal(err)
	}
	var names, values []string
	for _, m := range got {
		names = append(names, m.Name)
		if len(m.Value) < 50 {
			values = append(values, string(m.Value))
		} else {
			values = append(values, "deep")
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "a", "c"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1", "deep", `"x\"}"`, `{"d":[1,2]}`}, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"a":1`, `{"a" 1}`, `{"a":1}x`, `{"a":}`, `{a:1}`, ``} {
		if _, err := contract.SplitObject([]byte(bad)); err == nil {
			t.Errorf("SplitObject(%q) did not fail", bad)
		}
	}
}
