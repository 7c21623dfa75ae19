package lambdatest

import (
	"context"
	"net"
	"strings"
	"testing"
)

// TestStartTriesOtherPortsWhenOneIsTaken gives the emulator, as its
// runtime API's port, one that another listener holds, as happens when a
// port found free is taken before the emulator binds it: Start tries again
// on other ports, and the function it starts answers.
func TestStartTriesOtherPortsWhenOneIsTaken(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rie, err := Build(ctx, RIEPackage, dir, "aws-lambda-rie")
	if err != nil {
		t.Fatal(err)
	}
	hello, err := Build(ctx, "github.com/trainq/trainq/bench/submit/hello", dir, "bootstrap")
	if err != nil {
		t.Fatal(err)
	}
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	calls := 0
	freePort = func() (int, error) {
		calls++
		if calls == 1 {
			return held.Addr().(*net.TCPAddr).Port, nil
		}
		return pickFreePort()
	}
	defer func() { freePort = pickFreePort }()
	e, err := Start(ctx, rie, hello, Env())
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer e.Close()
	if calls < 4 {
		t.Errorf("%d ports asked for, want the 2 of a second attempt after the first 2", calls)
	}
	status, body, err := e.Invoke(ctx, []byte(`{}`))
	if err != nil || status != 200 || !strings.Contains(string(body), "hello") {
		t.Errorf("invoke: %d %s %v, want 200 and hello", status, body, err)
	}
}
