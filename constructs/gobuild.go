package constructs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/jsii-runtime-go"
)

// GoFunctionBuild describes a Go Lambda binary built during synthesis.
type GoFunctionBuild struct {
	// Package is the Go package of the function's main, e.g.
	// github.com/trainq/trainq/bin/submitter. It is built from the module
	// the CDK app runs in, which must require it.
	Package string
	// Files are extra files placed next to bootstrap (e.g. platform.json).
	Files map[string][]byte
}

// buildGoFunction builds b for Lambda's provided.al2023 runtime on arm64
// into a fresh folder and returns the folder and a cleanup func. The build is
// reproducible (-trimpath, no VCS stamp, stripped), so the asset hash changes
// only when the code or the files change.
func buildGoFunction(b GoFunctionBuild) (dir string, cleanup func(), err error) {
	dir, err = os.MkdirTemp("", "trainq-lambda-")
	if err != nil {
		return "", nil, fmt.Errorf("build %s: %w", b.Package, err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-tags", "lambda.norpc",
		"-ldflags", "-s -w", "-o", filepath.Join(dir, "bootstrap"), b.Package)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("build %s for linux/arm64: %w\n%s", b.Package, err, out)
	}
	for name, data := range b.Files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			cleanup()
			return "", nil, fmt.Errorf("build %s: write %s: %w", b.Package, name, err)
		}
	}
	return dir, cleanup, nil
}

// codeFor returns the Lambda code of a function: the given code, or a fresh
// build. The returned cleanup must run after the function is created (asset
// staging copies the folder then).
func codeFor(given awslambda.Code, b GoFunctionBuild, where string) (awslambda.Code, func()) {
	if given != nil {
		return given, func() {}
	}
	dir, cleanup, err := buildGoFunction(b)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", where, err))
	}
	return awslambda.Code_FromAsset(jsii.String(dir), nil), cleanup
}
