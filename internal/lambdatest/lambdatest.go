// Package lambdatest runs a trainq function end to end: it builds the
// function's real bootstrap and the AWS Lambda Runtime Interface Emulator from
// its Go module, runs the bootstrap under the emulator on 127.0.0.1 against
// a local Batch endpoint, and invokes it over loopback, for every function
// (observer, poller, submitter, rerouter) and the benchmarks under bench/.
//
// It is test support: only tests import it. It must never import the AWS CDK, jsii or
// constructs.
package lambdatest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/trainq/trainq/constructs/lambdabuild"
	"github.com/trainq/trainq/platform"
)

// Packages built by the harness.
const (
	SubmitterPackage = "github.com/trainq/trainq/bin/submitter"
	ObserverPackage  = "github.com/trainq/trainq/bin/observer"
	PollerPackage    = "github.com/trainq/trainq/bin/poller"
	RerouterPackage  = "github.com/trainq/trainq/bin/rerouter"
	RIEPackage       = "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie"
)

// Function is a function's bootstrap (with platform.json next to it) and
// the emulator, built into a temporary directory.
type Function struct {
	Dir, Bootstrap, RIE string
}

// BuildFunction builds pkg as bootstrap, the default platform next to it,
// and the emulator, into a new directory under dir.
func BuildFunction(ctx context.Context, dir, pkg string) (*Function, error) {
	d, err := os.MkdirTemp(dir, "fn-")
	if err != nil {
		return nil, err
	}
	f := &Function{Dir: d}
	if f.Bootstrap, err = Build(ctx, pkg, d, "bootstrap"); err != nil {
		return nil, err
	}
	if err := WritePlatform(d, nil); err != nil {
		return nil, err
	}
	if f.RIE, err = Build(ctx, RIEPackage, d, "aws-lambda-rie"); err != nil {
		return nil, err
	}
	return f, nil
}

// Start runs the function under the emulator with env added to Env's and
// LAMBDA_TASK_ROOT set to its directory.
func (f *Function) Start(ctx context.Context, env ...string) (*Emulator, error) {
	return Start(ctx, f.RIE, f.Bootstrap, Env(append([]string{"LAMBDA_TASK_ROOT=" + f.Dir}, env...)...))
}

// InvocationsPath is where the emulator accepts invocations.
const InvocationsPath = "/2015-03-31/functions/function/invocations"

// Build builds pkg for the host into dir/name with the recipe of every
// trainq function (lambdabuild.Lambda, for the host's platform) and returns
// the binary's path. It runs in the module, so it works from any test of
// the module.
func Build(ctx context.Context, pkg, dir, name string, extraEnv ...string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := lambdabuild.Lambda.ForHost().Command(ctx, "", out, pkg)
	cmd.Env = append(cmd.Env, extraEnv...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return out, nil
}

// WritePlatform writes p (the default platform when nil) as platform.json
// into dir, as the construct bundles it next to bootstrap.
func WritePlatform(dir string, p *platform.Platform) error {
	if p == nil {
		p = platform.Default()
	}
	return os.WriteFile(filepath.Join(dir, "platform.json"), p.JSON(), 0o644)
}

// Emulator is a running Runtime Interface Emulator with a bootstrap.
type Emulator struct {
	// URL is the emulator's base URL (http://127.0.0.1:PORT).
	URL  string
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

// Env is the environment a test emulator gets: nothing inherited from the
// caller but PATH, dummy credentials, a region and no instance metadata.
func Env(extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(),
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true", "LOG_LEVEL=info",
	}, extra...)
}

// Start runs rie with bootstrap on two free loopback ports and waits until
// it accepts connections. env is the whole environment of the emulator and
// the function. Close it when done.
//
// A port found free can be taken by another process (a client's ephemeral
// port, say) before the emulator binds it; the emulator then exits at
// start with "address already in use", and Start tries again on other
// ports, up to startTries times.
func Start(ctx context.Context, rie, bootstrap string, env []string) (*Emulator, error) {
	for try := 1; ; try++ {
		e, err := start(ctx, rie, bootstrap, env)
		if err == nil || try == startTries || !errors.Is(err, errPortTaken) {
			return e, err
		}
	}
}

// startTries bounds Start's attempts.
const startTries = 5

// errPortTaken is an emulator that could not bind a port found free.
var errPortTaken = errors.New("a port found free was taken before the emulator bound it")

// start is one attempt of Start.
func start(ctx context.Context, rie, bootstrap string, env []string) (*Emulator, error) {
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	riePort, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(riePort)
	cmd := exec.Command(rie, "--runtime-interface-emulator-address", addr,
		"--runtime-api-address", "127.0.0.1:"+strconv.Itoa(apiPort), bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = env
	e := &Emulator{URL: "http://" + addr, cmd: cmd, log: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = e.log, e.log
	// Its own process group, so that Close stops the emulator and the
	// bootstrap it started, and nothing else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start emulator: %w", err)
	}
	go func() { _ = cmd.Wait(); close(e.done) }()
	// Wait until it listens, it exits, or ctx ends: no limit of its own.
	for {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return e, nil
		}
		select {
		case <-e.done:
			if strings.Contains(e.Log(), "address already in use") {
				return nil, fmt.Errorf("emulator exited at start: %w:\n%s", errPortTaken, e.Log())
			}
			return nil, fmt.Errorf("emulator exited at start:\n%s", e.Log())
		case <-ctx.Done():
			e.Close()
			return nil, fmt.Errorf("emulator not listening on %s: %w\n%s", addr, ctx.Err(), e.Log())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Invoke posts payload to the emulator and returns the status and body.
func (e *Emulator) Invoke(ctx context.Context, payload []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+InvocationsPath, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("invoke: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Log returns what the emulator and the function have printed so far
// (its first n bytes after LimitLog(n)).
func (e *Emulator) Log() string { return e.log.String() }

// LimitLog keeps only the first n bytes the emulator and the function
// print from now on (what came before is kept), for a run of many
// invocations whose log would otherwise grow without bound; Call then no
// longer sees the invocations' lines once the limit is reached.
func (e *Emulator) LimitLog(n int) { e.log.limit(n) }

var initReport = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)

// InitDuration is the emulator's report of the function's init phase (the
// cold start), once the first invocation has run.
func (e *Emulator) InitDuration() (time.Duration, bool) {
	m := initReport.FindStringSubmatch(e.Log())
	if m == nil {
		return 0, false
	}
	ms, err := strconv.ParseFloat(m[1], 64)
	return time.Duration(ms * float64(time.Millisecond)), err == nil
}

// Close stops the emulator's process group: SIGTERM, then SIGKILL after
// three seconds.
func (e *Emulator) Close() error {
	pgid := e.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-e.done
	}
	// The bootstrap may outlive the emulator for a moment.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return nil
}

// Kill stops the emulator's process group at once (SIGKILL), as a crash
// or Lambda's timeout would end a function in the middle of its work.
func (e *Emulator) Kill() {
	_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
	<-e.done
}

// freePort is a loopback port free at the moment (a variable for the
// tests).
var freePort = pickFreePort

func pickFreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type syncBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int // 0: no limit
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max > 0 {
		if room := s.max - s.b.Len(); room < len(p) {
			s.b.Write(p[:max(room, 0)])
			return len(p), nil
		}
	}
	return s.b.Write(p)
}

func (s *syncBuffer) limit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.max = max(n, s.b.Len())
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Invocation is one invocation's answer and what the emulator's log
// gained meanwhile: the function's own lines and the emulator's.
type Invocation struct {
	Status int
	Body   []byte
	Log    []byte
}

// Call invokes the function with payload and waits until the emulator has
// logged the invocation's REPORT line, so that Log holds every line the
// function wrote for it.
func (e *Emulator) Call(ctx context.Context, payload []byte) (Invocation, error) {
	before := len(e.Log())
	status, body, err := e.Invoke(ctx, payload)
	if err != nil {
		return Invocation{}, err
	}
	for {
		log := e.Log()[before:]
		if strings.Contains(log, "REPORT RequestId") {
			return Invocation{Status: status, Body: body, Log: []byte(log)}, nil
		}
		select {
		case <-ctx.Done():
			return Invocation{Status: status, Body: body, Log: []byte(log)}, fmt.Errorf("no REPORT line after the invocation: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
