// Command coldstart measures the cold start of the submission function's
// bootstrap under the AWS Lambda Runtime Interface Emulator next to a
// hello-world Go Lambda, in the same run: for each, it starts a fresh
// emulator n times, invokes once, and reports the emulator's INIT REPORT
// (the init phase) and the first invocation's round trip, as medians.
//
// It must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/lambdatest"
)

func main() {
	n := flag.Int("n", 10, "cold starts per function")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "trainq-coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rie, err := lambdatest.Build(ctx, lambdatest.RIEPackage, dir, "aws-lambda-rie")
	if err != nil {
		return err
	}
	boot, err := lambdatest.Build(ctx, lambdatest.SubmitterPackage, dir, "bootstrap")
	if err != nil {
		return err
	}
	if err := lambdatest.WritePlatform(dir, nil); err != nil {
		return err
	}
	hello, err := lambdatest.Build(ctx, "github.com/trainq/trainq/bench/submit/hello", dir, "hello")
	if err != nil {
		return err
	}
	fake := batchtest.New(0)
	defer fake.Close()
	env := lambdatest.Env("AWS_ENDPOINT_URL_BATCH="+fake.URL, "LAMBDA_TASK_ROOT="+dir,
		contract.EnvJobQueue+"=arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training",
		contract.EnvExecutionRoleARN+"=arn:aws:iam::123456789012:role/trainq-sagemaker")
	// A request the function refuses without calling Batch: the round trip
	// is init plus validation.
	payload := []byte(`{"action":"describe"}`)
	return lambdatest.ReportColdStarts(ctx, os.Stdout, rie, env, payload, n,
		lambdatest.Target{Name: "hello-world Go Lambda", Bootstrap: hello}, lambdatest.Target{Name: "trainq submitter", Bootstrap: boot})
}
