package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/internal/lambdatest"
)

// timeoutSeconds is the function timeout the emulator gives the poller:
// short, so that a hung Batch call is cut by the run's own deadline (5 s
// less a fifth of margin) rather than by the ten-second call timeout.
const timeoutSeconds = "5"

// TestHostileAnswersUnderTheEmulator runs the poller's hostile corpus
// (internal/hostile, the cases poll's tests run in process) through the real
// bootstrap under the Lambda Runtime Interface Emulator, against a fake Batch
// endpoint answering oddly: what could be read is written, a run with a hung
// call answers before its timeout, and no line the function writes exceeds
// 256 KiB.
func TestHostileAnswersUnderTheEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and the emulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fn, err := lambdatest.BuildFunction(ctx, t.TempDir(), lambdatest.PollerPackage)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hostile.PollerCases() {
		t.Run(c.Name, func(t *testing.T) {
			fake := batchtest.New(0)
			defer fake.Close()
			now := time.Now()
			hostile.Serve(fake, now)
			if c.Setup != nil {
				if release := c.Setup(fake, now); release != nil {
					defer release()
				}
			}
			e, err := fn.Start(ctx, contract.EnvJobQueue+"="+hostile.QueueARN, "AWS_ENDPOINT_URL_BATCH="+fake.URL,
				"AWS_LAMBDA_FUNCTION_NAME=trainq-poller", "AWS_LAMBDA_FUNCTION_TIMEOUT="+timeoutSeconds)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			start := time.Now()
			inv, err := e.Call(ctx, []byte(`{"source":"aws.events"}`))
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the run took %v, beyond the function's timeout", took)
			}
			if strings.Contains(string(inv.Body), "Task timed out") {
				t.Fatalf("the run timed out: %s", inv.Body)
			}
			var runErr error
			if strings.Contains(string(inv.Body), `"errorType"`) {
				runErr = errorText(string(inv.Body))
			}
			hostile.CheckPoller(t, c, inv.Log, runErr)
			if t.Failed() {
				t.Logf("answer: %.2000s", inv.Body)
			}
		})
	}
}

type errorText string

func (e errorText) Error() string { return string(e) }
