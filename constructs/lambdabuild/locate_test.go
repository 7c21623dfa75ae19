package lambdabuild

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestLocateFindsTrainqsModuleInTheDocumentedOrder(t *testing.T) {
	checkout := fakeModule(t)
	cached := fakeModule(t)      // stands for the module cache's copy
	replacement := fakeModule(t) // a replace directory
	consumer := t.TempDir()
	write(t, filepath.Join(consumer, "go.mod"), "module example.com/vision\n\ngo 1.22\n")
	write(t, filepath.Join(consumer, "infra", "main.go"), "package main\n")
	// A relative replace, as `go mod edit -replace` writes it.
	rel, err := filepath.Rel(consumer, replacement)
	if err != nil {
		t.Fatal(err)
	}
	source := filepath.Join(checkout, "constructs", "lambdabuild", "locate.go")
	write(t, source, "package lambdabuild\n")

	var downloads []string
	download := func(_ context.Context, path, version string) (string, error) {
		downloads = append(downloads, path+"@"+version)
		if version == "v9.9.9" {
			return "", errors.New("unknown revision v9.9.9")
		}
		return cached, nil
	}
	trainqMain := &debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}}
	asDep := func(d *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/vision"}, Deps: []*debug.Module{d}}
	}
	cases := []struct {
		name      string
		l         locator
		want      string // directory, or "error: substrings|…"
		downloads string
	}{
		{"TRAINQ_MODULE_DIR wins over everything",
			locator{env: replacement, sourceFile: source, info: trainqMain}, replacement, ""},
		{"TRAINQ_MODULE_DIR that is not trainq's module is refused",
			locator{env: consumer, sourceFile: source}, `error: TRAINQ_MODULE_DIR|example.com/vision`, ""},
		{"the recorded source directory: trainq's own app or tests",
			locator{sourceFile: source, info: trainqMain, wd: consumer}, checkout, ""},
		{"the recorded source directory comes before a download",
			locator{sourceFile: source, info: asDep(&debug.Module{Path: ModulePath, Version: "v1.2.0"})}, checkout, ""},
		{"a required version, built with -trimpath: downloaded",
			locator{sourceFile: "github.com/trainq/trainq/constructs/lambdabuild/locate.go", info: asDep(&debug.Module{Path: ModulePath, Version: "v1.2.0", Sum: "h1:x"})},
			cached, ModulePath + "@v1.2.0"},
		{"a source directory that is gone: downloaded",
			locator{sourceFile: filepath.Join(t.TempDir(), "gone", "locate.go"), info: asDep(&debug.Module{Path: ModulePath, Version: "v1.2.0"})},
			cached, ModulePath + "@v1.2.0"},
		{"go run …@version of trainq's app itself: downloaded",
			locator{sourceFile: "trimmed.go", info: &debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v1.3.0", Sum: "h1:y"}}},
			cached, ModulePath + "@v1.3.0"},
		{"a replace by another module version: that version downloaded",
			locator{sourceFile: "trimmed.go", info: asDep(&debug.Module{Path: ModulePath, Version: "v1.2.0", Replace: &debug.Module{Path: "example.com/fork/trainq", Version: "v1.2.1"}})},
			cached, "example.com/fork/trainq@v1.2.1"},
		{"a relative replace, run from inside the consumer's module",
			locator{sourceFile: "trimmed.go", wd: filepath.Join(consumer, "infra"), info: asDep(&debug.Module{Path: ModulePath, Version: "v0.0.0", Replace: &debug.Module{Path: rel, Version: "(devel)"}})},
			replacement, ""},
		{"an absolute replace, run from anywhere",
			locator{sourceFile: "trimmed.go", wd: "/", info: asDep(&debug.Module{Path: ModulePath, Version: "v0.0.0", Replace: &debug.Module{Path: replacement, Version: "(devel)"}})},
			replacement, ""},
		{"a relative replace run outside the consumer's module is refused, saying why",
			locator{sourceFile: "trimmed.go", wd: t.TempDir(), info: asDep(&debug.Module{Path: ModulePath, Version: "v0.0.0", Replace: &debug.Module{Path: rel}})},
			"error: replaced by " + rel + "|example.com/vision|-trimpath|TRAINQ_MODULE_DIR", ""},
		{"a version that cannot be downloaded is refused with the download's error",
			locator{sourceFile: "trimmed.go", info: asDep(&debug.Module{Path: ModulePath, Version: "v9.9.9"})},
			"error: go mod download github.com/trainq/trainq@v9.9.9|unknown revision|TRAINQ_MODULE_DIR|prebuilt Code", ModulePath + "@v9.9.9"},
		{"trainq's app built with -trimpath, run inside the checkout",
			locator{sourceFile: "trimmed.go", wd: filepath.Join(checkout, "bin"), info: trainqMain}, checkout, ""},
		{"trainq's app built with -trimpath, run elsewhere, is refused",
			locator{sourceFile: "trimmed.go", wd: consumer, info: trainqMain}, "error: not inside a checkout|-trimpath", ""},
		{"a program that does not require trainq is refused",
			locator{sourceFile: "trimmed.go", info: &debug.BuildInfo{Main: debug.Module{Path: "example.com/other"}}}, "error: does not require " + ModulePath, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			downloads = nil
			c.l.download = download
			m, err := locate(context.Background(), c.l)
			if strings.Join(downloads, ",") != c.downloads {
				t.Errorf("downloaded %v, want %q", downloads, c.downloads)
			}
			if want, ok := strings.CutPrefix(c.want, "error: "); ok {
				if err == nil {
					t.Fatalf("found %+v, want an error", m)
				}
				for _, w := range strings.Split(want, "|") {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not mention %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Dir != c.want {
				t.Errorf("found %s (%s), want %s", m.Dir, m.Found, c.want)
			}
		})
	}
}

func TestLocateFromThisTestFindsThisCheckout(t *testing.T) {
	m, err := Locate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); m.Dir != want {
		t.Errorf("found %s (%s), want the checkout %s", m.Dir, m.Found, want)
	}
}
