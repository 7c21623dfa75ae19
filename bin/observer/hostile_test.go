package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/internal/lambdatest"
)

// TestHostileEventsUnderTheEmulator runs the observer's hostile corpus
// (internal/hostile, the cases observe's tests run in process) through the
// real bootstrap under the Lambda Runtime Interface Emulator: every event is
// answered (never a function error that EventBridge would retry; a body
// that is not JSON never reaches a deployed function), the
// metrics are those promised, and no line the function writes — its EMF or
// anything else in its log — exceeds 256 KiB.
func TestHostileEventsUnderTheEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and the emulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	fn, err := lambdatest.BuildFunction(ctx, dir, lambdatest.ObserverPackage)
	if err != nil {
		t.Fatal(err)
	}
	e, err := fn.Start(ctx, contract.EnvJobQueue+"="+hostile.QueueARN, "AWS_LAMBDA_FUNCTION_NAME=trainq-observer")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range hostile.ObserverCases(time.Now()) {
		t.Run(c.Name, func(t *testing.T) {
			inv, err := e.Call(ctx, c.Event)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(c.Event) {
				// Lambda's Invoke refuses a body that is not JSON
				// (InvalidRequestContentException, "The request body
				// could not be parsed as JSON"): no such event reaches a
				// deployed function. Under the emulator the Lambda
				// library's decoding answers it, before the observer,
				// with a short function error.
				if !strings.Contains(string(inv.Body), `"errorType"`) || len(inv.Body) > 4096 {
					t.Errorf("answer %d %.300s, want a function error of at most 4 KiB", inv.Status, inv.Body)
				}
				return
			}
			if inv.Status != 200 || string(inv.Body) != "null" {
				t.Errorf("answer %d %.300s, want 200 null", inv.Status, inv.Body)
			}
			hostile.CheckObserver(t, c, inv.Log)
		})
	}
	if t.Failed() {
		_ = os.WriteFile(dir+"/emulator.log", []byte(e.Log()), 0o644)
		t.Logf("emulator log: %s/emulator.log", dir)
	}
}
