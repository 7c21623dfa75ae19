// Command coldstart measures the cold start of the re-router's bootstrap
// under the AWS Lambda Runtime Interface Emulator next to a hello-world Go
// Lambda (bench/submit/hello), in the same run: for each, it starts a fresh
// emulator n times, invokes once, and reports the emulator's INIT REPORT
// (the init phase) and the first invocation's round trip, as medians. The
// re-router's first invocation is a whole run against a local Batch
// endpoint with an empty queue (seven listings and nothing to move).
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
	dir, err := os.MkdirTemp("", "trainq-reroute-coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rie, err := lambdatest.Build(ctx, lambdatest.RIEPackage, dir, "aws-lambda-rie")
	if err != nil {
		return err
	}
	boot, err := lambdatest.Build(ctx, lambdatest.RerouterPackage, dir, "bootstrap")
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
		contract.EnvJobQueue+"=arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training")
	payload := []byte(`{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`)
	return lambdatest.ReportColdStarts(ctx, os.Stdout, rie, env, payload, n,
		lambdatest.Target{Name: "hello-world Go Lambda", Bootstrap: hello}, lambdatest.Target{Name: "trainq rerouter", Bootstrap: boot})
}
