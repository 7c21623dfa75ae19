package constructs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/constructs/lambdabuild"
)

// Go packages of the functions' mains: what the constructs build when no
// prebuilt Code is given.
const (
	SubmitterPackage = lambdabuild.SubmitterPackage
	ObserverPackage  = lambdabuild.ObserverPackage
	PollerPackage    = lambdabuild.PollerPackage
	// RerouterPackage is the re-router's main, built only for platforms
	// that reroute (NewRerouter).
	RerouterPackage = lambdabuild.ModulePath + "/bin/rerouter"
)

// trainqFunctions are the binaries of trainq's functions, built at most once
// per process and group, from trainq's own module (lambdabuild.Locate),
// through the content cache (lambdabuild.Builder), so a re-synthesis builds
// only what changed. The first of the submitter, observer and poller that
// needs code builds all three in one go build; the re-router, which only
// platforms that reroute deploy, is built on its own when first needed (Go's
// build cache shares the dependencies), so a platform without it never
// compiles it.
var trainqFunctions struct {
	mu      sync.Mutex
	builder *lambdabuild.Builder
	err     error // locating the module
	bins    map[string]lambdabuild.Binary
	errs    map[string]error
}

// buildLog receives a line per go build; tests may silence it.
var buildLog io.Writer = os.Stderr

func trainqBinary(pkg string) (lambdabuild.Binary, error) {
	f := &trainqFunctions
	f.mu.Lock()
	defer f.mu.Unlock()
	if bin, ok := f.bins[pkg]; ok {
		return bin, nil
	}
	if err, ok := f.errs[pkg]; ok {
		return lambdabuild.Binary{}, err
	}
	group := []string{pkg}
	switch {
	case slices.Contains(lambdabuild.Functions, pkg):
		group = lambdabuild.Functions
	case pkg != RerouterPackage:
		return lambdabuild.Binary{}, fmt.Errorf("%s is not one of trainq's functions", pkg)
	}
	ctx := context.Background()
	if f.builder == nil && f.err == nil {
		m, err := lambdabuild.Locate(ctx)
		if err != nil {
			f.err = err
		} else {
			f.builder = &lambdabuild.Builder{Module: m, Log: buildLog}
		}
	}
	if f.err != nil {
		return lambdabuild.Binary{}, f.err
	}
	bins, err := f.builder.Build(ctx, group...)
	if f.bins == nil {
		f.bins, f.errs = map[string]lambdabuild.Binary{}, map[string]error{}
	}
	for _, p := range group {
		if err != nil {
			f.errs[p] = err
		} else {
			f.bins[p] = bins[p]
		}
	}
	if err != nil {
		return lambdabuild.Binary{}, err
	}
	return bins[pkg], nil
}

// functionCode returns a function's code: given, when set; else trainq's
// build of pkg with files beside bootstrap. When the build fails, scope gets
// a validation error that says why (so synthesis fails with that message)
// and the code is a placeholder. The returned cleanup must run after the
// function is created: asset staging copies the folder then.
func functionCode(scope constructs.Construct, what string, given awslambda.Code, pkg string, files map[string][]byte) (awslambda.Code, func()) {
	if given != nil {
		return given, func() {}
	}
	dir, err := os.MkdirTemp("", "trainq-lambda-")
	if err != nil {
		panic(fmt.Sprintf("%s: %v", what, err)) // the machine, not the user
	}
	cleanup := func() { os.RemoveAll(dir) }
	write := func() error {
		bin, err := trainqBinary(pkg)
		if err != nil {
			return err
		}
		if err := linkOrCopy(bin.Path, filepath.Join(dir, lambdabuild.BinaryName)); err != nil {
			return err
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write(); err != nil {
		addError(scope, "%s: no function code: building %s failed: %v (prebuilt Code is a folder with bootstrap and %s)",
			what, pkg, err, filesList(files))
		os.WriteFile(filepath.Join(dir, "MISSING"), []byte("trainq: the function was not built\n"), 0o644)
	}
	return awslambda.Code_FromAsset(jsii.String(dir), nil), cleanup
}

func filesList(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "nothing else"
	}
	return strings.Join(names, ", ")
}

// linkOrCopy puts src at dst, a hard link when the file system allows.
func linkOrCopy(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}
