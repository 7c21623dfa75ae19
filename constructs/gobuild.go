package constructs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
)

// trainqFunctions are the binaries of trainq's functions, built once per
// process: the first function that needs code builds all three, in one go
// build from trainq's own module (lambdabuild.Locate), through the content
// cache (lambdabuild.Builder), so a re-synthesis builds only what changed.
var trainqFunctions struct {
	once sync.Once
	bins map[string]lambdabuild.Binary
	err  error
}

// buildLog receives a line per go build; tests may silence it.
var buildLog io.Writer = os.Stderr

func trainqBinary(pkg string) (lambdabuild.Binary, error) {
	f := &trainqFunctions
	f.once.Do(func() {
		ctx := context.Background()
		m, err := lambdabuild.Locate(ctx)
		if err != nil {
			f.err = err
			return
		}
		b := &lambdabuild.Builder{Module: m, Log: buildLog}
		f.bins, f.err = b.Build(ctx, lambdabuild.Functions...)
	})
	if f.err != nil {
		return lambdabuild.Binary{}, f.err
	}
	bin, ok := f.bins[pkg]
	if !ok {
		return lambdabuild.Binary{}, fmt.Errorf("%s is not one of trainq's functions", pkg)
	}
	return bin, nil
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
