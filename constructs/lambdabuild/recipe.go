// Package lambdabuild builds trainq's Go Lambda functions from trainq's own
// module source, with trainq's own go.mod and go.sum: never from the module,
// the workspace or the working directory of the program that asks. A CDK app
// of another team, a prebuilt app binary, `go run …@version` outside any
// module and the CDK CLI all get the same binaries.
//
// It holds the one build recipe of the functions (Lambda), finds trainq's
// module directory (Locate), and builds the functions once, together, into a
// cache keyed by their content (Builder), so that a second synthesis builds
// nothing and a change to one function rebuilds only that one.
//
// It imports nothing of the AWS CDK, jsii or constructs, so that run-time
// test code (internal/lambdatest) and benchmarks may build exactly as the
// constructs do; it imports nothing of trainq either.
package lambdabuild

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// ModulePath is trainq's module path.
const ModulePath = "github.com/trainq/trainq"

// Packages of the functions' mains.
const (
	SubmitterPackage = ModulePath + "/bin/submitter"
	ObserverPackage  = ModulePath + "/bin/observer"
	PollerPackage    = ModulePath + "/bin/poller"
)

// Functions are the packages of every trainq function, in a fixed order.
var Functions = []string{SubmitterPackage, ObserverPackage, PollerPackage}

// Recipe is how a Go Lambda function is built: for which platform, with
// which flags. The zero Recipe is not useful; start from Lambda.
type Recipe struct {
	// GOOS and GOARCH are the target platform.
	GOOS, GOARCH string
	// Tags are the build tags.
	Tags []string
	// LDFlags are the linker flags.
	LDFlags string
}

// Lambda is the recipe of every trainq function: Lambda's provided.al2023
// runtime on arm64 (Graviton), no cgo, no RPC mode in aws-lambda-go
// (lambda.norpc), stripped, and reproducible — no file paths (-trimpath) and
// no VCS stamp (-buildvcs=false) — so that the asset hash changes only when
// the code does.
var Lambda = Recipe{GOOS: "linux", GOARCH: "arm64", Tags: []string{"lambda.norpc"}, LDFlags: "-s -w"}

// ForHost is r for the machine this runs on, for running a function under
// the Lambda Runtime Interface Emulator.
func (r Recipe) ForHost() Recipe {
	r.GOOS, r.GOARCH = runtime.GOOS, runtime.GOARCH
	return r
}

// Flags are the go build flags of r, without -o and the packages.
func (r Recipe) Flags() []string {
	flags := []string{"-trimpath", "-buildvcs=false"}
	if len(r.Tags) > 0 {
		flags = append(flags, "-tags", strings.Join(r.Tags, ","))
	}
	if r.LDFlags != "" {
		flags = append(flags, "-ldflags", r.LDFlags)
	}
	return flags
}

// Env is r's build environment: base (for example os.Environ()) with cgo off,
// the target platform, no workspace and a read-only module graph, so that
// the build uses the module's own go.mod and go.sum or fails. Later entries
// win, so r's settings override base's.
func (r Recipe) Env(base []string) []string {
	env := append([]string{}, base...)
	return append(env, "CGO_ENABLED=0", "GOOS="+r.GOOS, "GOARCH="+r.GOARCH, "GOWORK=off", "GOFLAGS=-mod=readonly")
}

// Command is `go build` of pkgs with r, run in moduleDir (the directory of
// the module that holds them). out is the output file, or a directory
// ending in a path separator for several packages, as go build -o takes it.
func (r Recipe) Command(ctx context.Context, moduleDir, out string, pkgs ...string) *exec.Cmd {
	args := append([]string{"build"}, r.Flags()...)
	args = append(args, "-o", out)
	args = append(args, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = moduleDir
	cmd.Env = r.Env(os.Environ())
	return cmd
}

// String is the recipe as go build would read it; it is part of each
// build's cache key.
func (r Recipe) String() string {
	return "GOOS=" + r.GOOS + " GOARCH=" + r.GOARCH + " CGO_ENABLED=0 go build " + strings.Join(r.Flags(), " ")
}
