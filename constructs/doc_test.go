package constructs

// A pure test of the package's source: no jsii call.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// TestEveryPropSaysItsDefault holds the aws-cdk-lib convention: every field
// of a props, attributes or thresholds struct says "Required" or its
// "Default:", so that go doc answers what happens when it is omitted.
func TestEveryPropSaysItsDefault(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					return true
				}
				name := ts.Name.Name
				st, ok := ts.Type.(*ast.StructType)
				if !ok || !(strings.HasSuffix(name, "Props") || strings.HasSuffix(name, "Attributes") || strings.HasSuffix(name, "Thresholds")) {
					return true
				}
				for _, field := range st.Fields.List {
					doc := field.Doc.Text()
					for _, id := range field.Names {
						checked++
						if !strings.Contains(doc, "Default:") && !strings.Contains(doc, "Required") {
							t.Errorf("%s.%s says neither its Default: nor Required", name, id.Name)
						}
					}
					if len(field.Names) == 0 && doc == "" {
						t.Errorf("%s embeds %v without a comment", name, field.Type)
					}
				}
				return true
			})
		}
	}
	if checked < 40 {
		t.Errorf("checked only %d fields; is the test reading the package?", checked)
	}
}
