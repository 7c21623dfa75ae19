package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/internal/lambdatest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/platform"
)

// TestHostileRequestsUnderTheEmulator runs the submitter's hostile corpus
// (internal/hostile, the cases submit's tests run in process) through the
// real bootstrap under the Lambda Runtime Interface Emulator, with its
// production retry policy and deadline margin: the same errorType and
// message for each, and no line of the function's log over 256 KiB.
func TestHostileRequestsUnderTheEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and the emulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fn, err := lambdatest.BuildFunction(ctx, t.TempDir(), lambdatest.SubmitterPackage)
	if err != nil {
		t.Fatal(err)
	}
	// Callers prove who they are to a loopback STS (internal/ststest); the
	// operator calls unqualified, each alias's pipeline role its alias.
	sts := ststest.New("us-east-1")
	defer sts.Close()
	for _, c := range hostile.SubmitterCases() {
		t.Run(c.Name, func(t *testing.T) {
			fake := batchtest.New(0)
			defer fake.Close()
			var jobARN string
			if c.Setup != nil {
				var release func()
				jobARN, release = c.Setup(fake)
				if release != nil {
					defer release()
				}
			}
			name := "trainq-submit"
			if c.Alias != "" {
				name += ":" + c.Alias
			}
			timeout := "60"
			if c.Deadline != 0 {
				timeout = strconv.Itoa(int(c.Deadline / time.Second))
			}
			e, err := fn.Start(ctx, append(sts.Env(platform.Default()), "AWS_ENDPOINT_URL_BATCH="+fake.URL, "AWS_LAMBDA_FUNCTION_NAME="+name,
				"AWS_LAMBDA_FUNCTION_TIMEOUT="+timeout,
				contract.EnvJobQueue+"="+hostile.QueueARN, contract.EnvExecutionRoleARN+"="+hostile.RoleARN)...)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			inv, err := e.Call(ctx, sts.Sign(t, sts.CallerOf(c.Alias), name, c.Request(jobARN)))
			if err != nil {
				t.Fatal(err)
			}
			a, err := hostile.ParseAnswer(inv.Body)
			if err != nil {
				t.Fatalf("answer %.300s: %v", inv.Body, err)
			}
			hostile.CheckSubmitter(t, c, fake, a)
			hostile.Lines(t, inv.Log)
		})
	}
}
