package lambdabuild

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// EnvModuleDir names an environment variable that, when set, is the
// directory of trainq's module to build the functions from (a checkout, or
// an unpacked module), ahead of everything Locate would find.
const EnvModuleDir = "TRAINQ_MODULE_DIR"

// Module is trainq's module source that the functions are built from.
type Module struct {
	// Dir is the module's directory, holding its go.mod and go.sum.
	Dir string
	// Version is the module version when it came from the module cache,
	// else "".
	Version string
	// Found says how Dir was found, for messages.
	Found string
}

// Locate finds trainq's module source, in this order; the first that
// applies wins:
//
//  1. $TRAINQ_MODULE_DIR, when set: an explicit choice, for example an
//     unpacked module on a machine without a module proxy.
//  2. The module directory holding this package's source file as the
//     compiler recorded it, when that file still exists: the checkout when
//     trainq is the app or its tests run, the replacement directory of a
//     `replace`, or the module cache directory of a required version. This
//     needs no network and is exactly the code the program was built from.
//     Builds with -trimpath record no such path.
//  3. The version the build information records — the required version, a
//     `replace` by another module version, or trainq's own version when it
//     was built by `go run` or `go install` …@version — downloaded with
//     `go mod download`, which checks it against the checksum database.
//  4. A `replace` by a directory: an absolute one as is, a relative one
//     against the directory of the main module holding the working
//     directory.
//  5. When trainq is the main module (built with -trimpath): the trainq
//     module holding the working directory.
//
// Every directory must hold a go.mod declaring ModulePath.
func Locate(ctx context.Context) (Module, error) {
	info, _ := debug.ReadBuildInfo()
	_, file, _, _ := runtime.Caller(0)
	wd, _ := os.Getwd()
	return locate(ctx, locator{
		info:       info,
		env:        os.Getenv(EnvModuleDir),
		sourceFile: file,
		wd:         wd,
		download:   goModDownload,
	})
}

// locator holds what locate reads, so that tests can replace it.
type locator struct {
	info       *debug.BuildInfo
	env        string
	sourceFile string
	wd         string
	download   func(ctx context.Context, path, version string) (string, error)
}

func locate(ctx context.Context, l locator) (Module, error) {
	var tried []string
	if l.env != "" {
		if err := isTrainqModule(l.env); err != nil {
			return Module{}, fmt.Errorf("%s is %q: %w", EnvModuleDir, l.env, err)
		}
		return Module{Dir: l.env, Found: "$" + EnvModuleDir}, nil
	}
	if filepath.IsAbs(l.sourceFile) {
		if dir, ok := enclosingModule(filepath.Dir(l.sourceFile), ModulePath); ok {
			return Module{Dir: dir, Found: "the source this program was built from"}, nil
		}
		tried = append(tried, "the source this program was built from ("+l.sourceFile+") is gone")
	} else {
		tried = append(tried, "the program was built with -trimpath, so it records no source directory")
	}
	if l.info == nil {
		tried = append(tried, "the program carries no module build information")
		return Module{}, notFound(tried)
	}
	dep := l.info.Main
	isMain := dep.Path == ModulePath
	if !isMain {
		dep = debug.Module{}
		for _, d := range l.info.Deps {
			if d.Path == ModulePath {
				dep = *d
			}
		}
		if dep.Path == "" {
			tried = append(tried, fmt.Sprintf("the program's module %s does not require %s", l.info.Main.Path, ModulePath))
			return Module{}, notFound(tried)
		}
	}
	path, version := dep.Path, dep.Version
	// A replacement by a directory has no version ("(devel)" in the build
	// information).
	dirReplace := dep.Replace != nil && (dep.Replace.Version == "" || dep.Replace.Version == "(devel)")
	if dep.Replace != nil {
		path, version = dep.Replace.Path, dep.Replace.Version
	}
	if isMain && dep.Sum == "" {
		version = "" // a build of a checkout, not of a downloaded module
	}
	if version != "" && version != "(devel)" && !dirReplace {
		dir, err := l.download(ctx, path, version)
		if err == nil {
			if err = isTrainqModule(dir); err == nil {
				return Module{Dir: dir, Version: version, Found: "go mod download " + path + "@" + version}, nil
			}
		}
		tried = append(tried, fmt.Sprintf("go mod download %s@%s: %v", path, version, err))
	}
	if dirReplace {
		dir := dep.Replace.Path
		if !filepath.IsAbs(dir) {
			main, ok := enclosingModule(l.wd, l.info.Main.Path)
			if !ok {
				tried = append(tried, fmt.Sprintf("%s is replaced by %s, relative to module %s, whose directory does not hold the working directory %s",
					ModulePath, dep.Replace.Path, l.info.Main.Path, l.wd))
				return Module{}, notFound(tried)
			}
			dir = filepath.Join(main, dir)
		}
		if err := isTrainqModule(dir); err != nil {
			tried = append(tried, fmt.Sprintf("replacement directory %s: %v", dir, err))
			return Module{}, notFound(tried)
		}
		return Module{Dir: dir, Found: "replace " + ModulePath + " => " + dep.Replace.Path}, nil
	}
	if isMain {
		if dir, ok := enclosingModule(l.wd, ModulePath); ok {
			return Module{Dir: dir, Found: "the working directory"}, nil
		}
		tried = append(tried, "the working directory "+l.wd+" is not inside a checkout of "+ModulePath)
	}
	return Module{}, notFound(tried)
}

func notFound(tried []string) error {
	return fmt.Errorf("cannot find the source of %s to build its functions from (%s); set %s to a checkout of %s, or give the constructs prebuilt Code",
		ModulePath, strings.Join(tried, "; "), EnvModuleDir, ModulePath)
}

// enclosingModule is the nearest directory at or above dir whose go.mod
// declares module path, if any. A go.mod of another module stops the walk:
// a module does not contain a nested one.
func enclosingModule(dir, path string) (string, bool) {
	for dir != "" {
		if p, err := modulePathOf(filepath.Join(dir, "go.mod")); err == nil {
			return dir, p == path
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}

// isTrainqModule checks that dir holds trainq's go.mod.
func isTrainqModule(dir string) error {
	p, err := modulePathOf(filepath.Join(dir, "go.mod"))
	switch {
	case err != nil:
		return fmt.Errorf("no go.mod: %w", err)
	case p != ModulePath:
		return fmt.Errorf("its go.mod declares module %q, want %s", p, ModulePath)
	}
	return nil
}

// modulePathOf reads the module path of a go.mod file.
func modulePathOf(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New("no module line")
}

// goModDownload runs `go mod download -json path@version` outside any
// module and returns the module cache directory of that version.
func goModDownload(ctx context.Context, path, version string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil && runErr == nil {
		return "", fmt.Errorf("read its answer: %w", err)
	}
	switch {
	case m.Error != "":
		return "", errors.New(m.Error)
	case runErr != nil:
		return "", fmt.Errorf("%w: %s", runErr, strings.TrimSpace(stderr.String()))
	case m.Dir == "":
		return "", errors.New("it named no directory")
	}
	return m.Dir, nil
}
