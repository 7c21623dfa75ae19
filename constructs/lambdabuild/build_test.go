package lambdabuild

import (
	"context"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeModule writes a module declaring trainq's path with two mains that
// share a library, and returns its directory.
func fakeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":             "module " + ModulePath + "\n\ngo 1.22\n",
		"lib/lib.go":         "package lib\n\nfunc Name() string { return \"lib\" }\n",
		"lib/lib_test.go":    "package lib\n",
		"bin/alpha/main.go":  "package main\n\nimport \"" + ModulePath + "/lib\"\n\nfunc main() { println(lib.Name(), \"alpha\") }\n",
		"bin/beta/main.go":   "package main\n\nimport \"" + ModulePath + "/lib\"\n\nfunc main() { println(lib.Name(), \"beta\") }\n",
		"bin/beta/README.md": "beta\n",
	}
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	return dir
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const (
	alpha = ModulePath + "/bin/alpha"
	beta  = ModulePath + "/bin/beta"
)

// build runs one Build and returns which packages were built (not cached).
func build(t *testing.T, b *Builder) (map[string]Binary, []string) {
	t.Helper()
	bins, err := b.Build(context.Background(), alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, p := range []string{alpha, beta} {
		if !bins[p].Cached {
			built = append(built, strings.TrimPrefix(p, ModulePath+"/bin/"))
		}
	}
	return bins, built
}

func TestBuildCachesByContentAndRebuildsOnlyWhatChanged(t *testing.T) {
	mod := fakeModule(t)
	var log strings.Builder
	b := &Builder{Module: Module{Dir: mod, Found: "test"}, CacheDir: t.TempDir(), Log: &log}

	bins, built := build(t, b)
	if strings.Join(built, ",") != "alpha,beta" {
		t.Fatalf("first build built %v, want alpha and beta", built)
	}
	if n := strings.Count(log.String(), "trainq: built"); n != 1 {
		t.Errorf("the first build ran go build %d times, want once for both:\n%s", n, log.String())
	}
	f, err := elf.Open(bins[alpha].Path)
	if err != nil {
		t.Fatalf("%s is not an ELF binary: %v", bins[alpha].Path, err)
	}
	if f.Machine != elf.EM_AARCH64 {
		t.Errorf("built for %v, want arm64", f.Machine)
	}
	f.Close()
	if filepath.Base(bins[alpha].Path) != BinaryName {
		t.Errorf("binary is %s, want %s", bins[alpha].Path, BinaryName)
	}

	steps := []struct {
		name  string
		edit  func()
		built string
	}{
		{"nothing changed: both from the cache", func() {}, ""},
		{"a test file and a README changed: both from the cache", func() {
			write(t, filepath.Join(mod, "lib/lib_test.go"), "package lib\n\n// changed\n")
			write(t, filepath.Join(mod, "bin/beta/README.md"), "changed\n")
		}, ""},
		{"alpha's main changed: only alpha", func() {
			write(t, filepath.Join(mod, "bin/alpha/main.go"), "package main\n\nimport \""+ModulePath+"/lib\"\n\nfunc main() { println(lib.Name(), \"alpha 2\") }\n")
		}, "alpha"},
		{"the library both import changed: both", func() {
			write(t, filepath.Join(mod, "lib/lib.go"), "package lib\n\nfunc Name() string { return \"lib 2\" }\n")
		}, "alpha,beta"},
		{"a file beta alone compiles was added: only beta", func() {
			write(t, filepath.Join(mod, "bin/beta/extra.go"), "package main\n\nvar extra = 1\n")
		}, "beta"},
		{"a file for another platform was added: both from the cache", func() {
			write(t, filepath.Join(mod, "lib/lib_windows.go"), "package lib\n\nvar windows = 1\n")
		}, ""},
		{"the go directive changed: both", func() {
			write(t, filepath.Join(mod, "go.mod"), "module "+ModulePath+"\n\ngo 1.23\n")
		}, "alpha,beta"},
	}
	for _, s := range steps {
		s.edit()
		_, built := build(t, b)
		if got := strings.Join(built, ","); got != s.built {
			t.Errorf("%s: built %q, want %q", s.name, got, s.built)
		}
	}

	r := Lambda
	r.GOARCH = "amd64"
	other := &Builder{Module: b.Module, CacheDir: b.CacheDir, Recipe: &r}
	if _, built := build(t, other); strings.Join(built, ",") != "alpha,beta" {
		t.Errorf("another recipe reused binaries: built only %v", built)
	}
}

func TestBuildFailureNamesThePackageTheModuleAndTheCompilerMessage(t *testing.T) {
	mod := fakeModule(t)
	write(t, filepath.Join(mod, "bin/beta/main.go"), "package main\n\nfunc main() { undefinedThing() }\n")
	b := &Builder{Module: Module{Dir: mod, Found: "test"}, CacheDir: t.TempDir()}
	_, err := b.Build(context.Background(), alpha, beta)
	if err == nil {
		t.Fatal("a package that does not compile was built")
	}
	for _, want := range []string{"go build", beta, mod, "undefinedThing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}

func TestBuildUsesTheModulesOwnGoSumReadOnly(t *testing.T) {
	// A requirement without its go.sum entry: the build must fail instead
	// of editing the module's go.sum (GOFLAGS=-mod=readonly), whatever the
	// caller's GOFLAGS say.
	mod := fakeModule(t)
	write(t, filepath.Join(mod, "go.mod"), "module "+ModulePath+"\n\ngo 1.22\n\nrequire github.com/google/go-cmp v0.7.0\n")
	write(t, filepath.Join(mod, "bin/alpha/main.go"), "package main\n\nimport _ \"github.com/google/go-cmp/cmp\"\n\nfunc main() {}\n")
	t.Setenv("GOFLAGS", "-mod=mod")
	b := &Builder{Module: Module{Dir: mod, Found: "test"}, CacheDir: t.TempDir()}
	_, err := b.Build(context.Background(), alpha)
	if err == nil || !strings.Contains(err.Error(), "go.sum") {
		t.Errorf("error %v, want one about the missing go.sum entry", err)
	}
	if _, statErr := os.Stat(filepath.Join(mod, "go.sum")); statErr == nil {
		t.Errorf("the build wrote the module's go.sum")
	}
}

func TestLambdaRecipe(t *testing.T) {
	got := Lambda.String()
	want := "GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags lambda.norpc -ldflags -s -w"
	if got != want {
		t.Errorf("recipe\n got %s\nwant %s", got, want)
	}
	env := strings.Join(Lambda.Env([]string{"GOFLAGS=-mod=vendor", "GOWORK=/x/go.work"}), " ")
	for _, w := range []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64", "GOWORK=off", "GOFLAGS=-mod=readonly"} {
		if !strings.Contains(env, w) {
			t.Errorf("environment %q lacks %s", env, w)
		}
	}
	// The recipe's settings come last, so they win over the caller's.
	if strings.LastIndex(env, "GOFLAGS=") != strings.Index(env, "GOFLAGS=-mod=readonly") {
		t.Errorf("the caller's GOFLAGS come after the recipe's: %s", env)
	}
}
