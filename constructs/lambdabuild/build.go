package lambdabuild

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// BinaryName is the file name of a function's executable: Lambda's
// provided.al2023 runtime runs bootstrap.
const BinaryName = "bootstrap"

// EnvCacheDir names an environment variable that, when set, is the cache
// directory of built functions instead of DefaultCacheDir's.
const EnvCacheDir = "TRAINQ_FUNCTION_CACHE"

// Binary is one built function.
type Binary struct {
	// Package is the function's main package.
	Package string
	// Path is the executable, named BinaryName, in a folder of its own in the
	// cache. Copy it; never change it.
	Path string
	// Key is the content key the binary is cached under.
	Key string
	// Cached reports whether it came from the cache, without a build.
	Cached bool
}

// Builder builds functions of one module with one recipe into a cache.
// Its methods are safe for concurrent use.
type Builder struct {
	// Module is the module the packages belong to.
	Module Module
	// Recipe is how they are built. Default: Lambda.
	Recipe *Recipe
	// CacheDir holds the binaries, one folder per content key.
	// Default: DefaultCacheDir().
	CacheDir string
	// Log receives one line per go build run. Default: none.
	Log io.Writer

	mu sync.Mutex
}

// DefaultCacheDir is $TRAINQ_FUNCTION_CACHE, else trainq/functions in the
// user's cache directory (os.UserCacheDir), else in the temporary directory.
func DefaultCacheDir() string {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "trainq", "functions")
	}
	return filepath.Join(os.TempDir(), "trainq-functions")
}

func (b *Builder) recipe() Recipe {
	if b.Recipe != nil {
		return *b.Recipe
	}
	return Lambda
}

func (b *Builder) cacheDir() string {
	if b.CacheDir != "" {
		return b.CacheDir
	}
	return DefaultCacheDir()
}

// Build returns a binary of each package, keyed by package. It computes
// each package's content key (Keys), takes the binaries it has from the
// cache, and builds all missing ones in a single go build, which compiles
// their shared dependencies once and the packages in parallel.
func (b *Builder) Build(ctx context.Context, pkgs ...string) (map[string]Binary, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	keys, err := b.Keys(ctx, pkgs...)
	if err != nil {
		return nil, err
	}
	cache := b.cacheDir()
	out := map[string]Binary{}
	var missing []string
	for _, p := range pkgs {
		bin := Binary{Package: p, Key: keys[p], Path: filepath.Join(cache, keys[p], BinaryName)}
		if _, err := os.Stat(bin.Path); err == nil {
			bin.Cached = true
			now := time.Now()
			_ = os.Chtimes(filepath.Dir(bin.Path), now, now) // recently used: kept by prune
			out[p] = bin
			continue
		}
		if _, dup := out[p]; !dup && !contains(missing, p) {
			missing = append(missing, p)
		}
		out[p] = bin
	}
	if len(missing) == 0 {
		return out, nil
	}
	if err := b.buildInto(ctx, cache, missing, keys); err != nil {
		return nil, err
	}
	prune(cache, 30*24*time.Hour)
	return out, nil
}

// buildInto builds pkgs in one go build and moves each binary into its
// key's folder of cache. Packages whose last path elements collide (go build
// -o DIR/ names binaries by them) are built in separate runs.
func (b *Builder) buildInto(ctx context.Context, cache string, pkgs []string, keys map[string]string) error {
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return fmt.Errorf("function cache %s: %w", cache, err)
	}
	for _, group := range byDistinctBase(pkgs) {
		tmp, err := os.MkdirTemp(cache, ".build-")
		if err != nil {
			return fmt.Errorf("function cache %s: %w", cache, err)
		}
		defer os.RemoveAll(tmp)
		start := time.Now()
		cmd := b.recipe().Command(ctx, b.Module.Dir, tmp+string(filepath.Separator), group...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s in %s (%s, %s): %w\n%s", strings.Join(group, " "), b.Module.Dir, b.Module.Found, b.recipe(), err, bytes.TrimSpace(out))
		}
		if b.Log != nil {
			fmt.Fprintf(b.Log, "trainq: built %s in %.1fs (from %s)\n", strings.Join(group, ", "), time.Since(start).Seconds(), b.Module.Dir)
		}
		for _, p := range group {
			dir := filepath.Join(tmp, keys[p])
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(tmp, path.Base(p)), filepath.Join(dir, BinaryName)); err != nil {
				return fmt.Errorf("go build %s: %w", p, err)
			}
			final := filepath.Join(cache, keys[p])
			if err := os.Rename(dir, final); err != nil {
				// Another process stored the same key first: same content.
				if _, statErr := os.Stat(filepath.Join(final, BinaryName)); statErr != nil {
					return fmt.Errorf("function cache: %w", err)
				}
			}
		}
	}
	return nil
}

func byDistinctBase(pkgs []string) [][]string {
	var groups [][]string
	for _, p := range pkgs {
		placed := false
		for i, g := range groups {
			clash := false
			for _, q := range g {
				clash = clash || path.Base(q) == path.Base(p)
			}
			if !clash {
				groups[i] = append(g, p)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []string{p})
		}
	}
	return groups
}

// prune removes cache folders unused for longer than age.
func prune(cache string, age time.Duration) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() && time.Since(info.ModTime()) > age {
			os.RemoveAll(filepath.Join(cache, e.Name()))
		}
	}
}

// listedPackage is what Keys reads of `go list -deps -json`.
type listedPackage struct {
	ImportPath string
	Dir        string
	Standard   bool
	Module     *struct {
		Path, Version string
		Main          bool
		Replace       *struct{ Path, Version string }
	}
	GoFiles, CgoFiles, SFiles, EmbedFiles []string
	Deps                                  []string
	Error                                 *struct{ Err string }
	DepsErrors                            []*struct{ Err string }
}

// Keys returns each package's content key: a hash of the recipe, the Go
// version and the GOEXPERIMENT and GOARM64 settings, the module's go
// directives, and, for the package and every non-standard package it
// imports, the content of each file the recipe compiles from a source
// directory (this module, or a directory replacement) or the module
// version it comes from. A change to one function's code changes that
// function's key only; a change to code they share changes each sharer's.
func (b *Builder) Keys(ctx context.Context, pkgs ...string) (map[string]string, error) {
	r := b.recipe()
	goVersion, err := goEnv(ctx, b.Module.Dir, r, "GOVERSION")
	if err != nil {
		return nil, err
	}
	args := []string{"list", "-deps", "-e", "-json=ImportPath,Dir,Standard,Module,GoFiles,CgoFiles,SFiles,EmbedFiles,Deps,Error,DepsErrors"}
	if len(r.Tags) > 0 {
		args = append(args, "-tags", strings.Join(r.Tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkgs...)...)
	cmd.Dir = b.Module.Dir
	cmd.Env = r.Env(os.Environ())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s in %s (%s): %w\n%s", strings.Join(pkgs, " "), b.Module.Dir, b.Module.Found, err, bytes.TrimSpace(stderr.Bytes()))
	}
	listed := map[string]*listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list in %s: read its answer: %w", b.Module.Dir, err)
		}
		listed[p.ImportPath] = &p
	}
	directives, err := goDirectives(filepath.Join(b.Module.Dir, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", b.Module.Dir, err)
	}
	common := sha256.New()
	fmt.Fprintf(common, "recipe %s\ngo %s\nGOEXPERIMENT=%s GOARM64=%s\n%s", r, goVersion, os.Getenv("GOEXPERIMENT"), os.Getenv("GOARM64"), directives)
	keys := map[string]string{}
	for _, p := range pkgs {
		lp, ok := listed[p]
		if !ok {
			return nil, fmt.Errorf("go list in %s listed no package %s", b.Module.Dir, p)
		}
		if lp.Error != nil {
			return nil, fmt.Errorf("package %s in %s (%s): %s", p, b.Module.Dir, b.Module.Found, lp.Error.Err)
		}
		for _, e := range lp.DepsErrors {
			return nil, fmt.Errorf("package %s in %s (%s): %s", p, b.Module.Dir, b.Module.Found, e.Err)
		}
		h := sha256.New()
		h.Write(common.Sum(nil))
		fmt.Fprintf(h, "main %s\n", p)
		closure := append([]string{p}, lp.Deps...)
		sort.Strings(closure)
		for _, d := range closure {
			dp, ok := listed[d]
			if !ok || dp.Standard {
				continue
			}
			if err := hashPackage(h, dp); err != nil {
				return nil, fmt.Errorf("package %s: %w", p, err)
			}
		}
		keys[p] = hex.EncodeToString(h.Sum(nil))[:32]
	}
	return keys, nil
}

// hashPackage writes a package's identity to h: its files' content when
// they come from a source directory, else its module version.
func hashPackage(h io.Writer, p *listedPackage) error {
	m := p.Module
	fromSource := m == nil || m.Main || (m.Replace != nil && m.Replace.Version == "")
	if !fromSource {
		v := m.Path + "@" + m.Version
		if m.Replace != nil {
			v += " => " + m.Replace.Path + "@" + m.Replace.Version
		}
		fmt.Fprintf(h, "package %s %s\n", p.ImportPath, v)
		return nil
	}
	fmt.Fprintf(h, "package %s\n", p.ImportPath)
	var files []string
	for _, list := range [][]string{p.GoFiles, p.CgoFiles, p.SFiles, p.EmbedFiles} {
		files = append(files, list...)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "file %s %x\n", f, sum)
	}
	return nil
}

// goDirectives are the go.mod lines that change how the module builds: go,
// toolchain and godebug. Requirements reach the key through the versions
// of the packages each function imports.
func goDirectives(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case inBlock && line == ")":
			inBlock = false
		case inBlock:
			sb.WriteString("godebug " + line + "\n")
		case line == "godebug (":
			inBlock = true
		case strings.HasPrefix(line, "go ") || strings.HasPrefix(line, "toolchain ") || strings.HasPrefix(line, "godebug "):
			sb.WriteString(line + "\n")
		}
	}
	return sb.String(), nil
}

// goEnv is one go env value in dir with the recipe's environment (the
// toolchain go.mod selects included).
func goEnv(ctx context.Context, dir string, r Recipe, name string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", name)
	cmd.Dir = dir
	cmd.Env = r.Env(os.Environ())
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", fmt.Errorf("building trainq's functions needs the go command on PATH: %w", err)
		}
		return "", fmt.Errorf("go env %s in %s: %w\n%s", name, dir, err, bytes.TrimSpace(out))
	}
	return strings.TrimSpace(string(out)), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
