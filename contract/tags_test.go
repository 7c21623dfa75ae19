package contract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every tag key trainq sets (a constant Tag… = TagPrefix + "…" in this
// package) is either the submission function's or the re-router's alone: a
// key in neither would be refused by IAM to both, or, added to the wrong
// list, let a direct submitter forge lineage.
func TestEveryTagKeyBelongsToTheSubmitterOrTheRerouter(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var keys []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range spec.Names {
				if i >= len(spec.Values) {
					break
				}
				bin, ok := spec.Values[i].(*ast.BinaryExpr)
				if !ok || !strings.HasPrefix(name.Name, "Tag") {
					continue
				}
				if x, ok := bin.X.(*ast.Ident); ok && x.Name == "TagPrefix" {
					if lit, ok := bin.Y.(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(lit.Value)
						keys = append(keys, TagPrefix+s)
					}
				}
			}
			return true
		})
	}
	if len(keys) < len(SubmitterTags())+len(LineageTags()) {
		t.Fatalf("found tag keys %v; the scan misses some", keys)
	}
	for _, k := range keys {
		sub, lin := slices.Contains(SubmitterTags(), k), slices.Contains(LineageTags(), k)
		if sub == lin {
			t.Errorf("tag key %q: in SubmitterTags %v, in LineageTags %v; want exactly one", k, sub, lin)
		}
	}
}
