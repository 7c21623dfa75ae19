// Command coldstart measures the cold start of one of trainq's functions
// (-function submitter or rerouter) under the AWS Lambda Runtime Interface
// Emulator next to a hello-world Go Lambda (bench/submit/hello), in the
// same run: for each, it starts a fresh emulator n times, invokes once, and
// reports the emulator's INIT REPORT (the init phase) and the first
// invocation's round trip, as medians (lambdatest.ReportColdStarts).
//
// The submitter's first invocation is a request it refuses without calling
// Batch (init plus validation); the re-router's is a whole run against a
// local Batch endpoint with an empty queue (its listings, nothing to move).
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

// function is what the benchmark needs of a function: its package, its
// environment beyond the queue, and its first invocation.
type function struct {
	pkg     string
	env     []string
	payload string
}

var functions = map[string]function{
	"submitter": {lambdatest.SubmitterPackage,
		[]string{contract.EnvExecutionRoleARN + "=arn:aws:iam::123456789012:role/trainq-sagemaker"}, `{"action":"describe"}`},
	"rerouter": {lambdatest.RerouterPackage, nil, `{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`},
}

func main() {
	n := flag.Int("n", 10, "cold starts per function")
	name := flag.String("function", "submitter", "the function to measure: submitter or rerouter")
	flag.Parse()
	fn, ok := functions[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "coldstart: -function: got %q, want submitter or rerouter\n", *name)
		os.Exit(2)
	}
	if err := run(*n, *name, fn); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(n int, name string, fn function) error {
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
	boot, err := lambdatest.Build(ctx, fn.pkg, dir, "bootstrap")
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
	env := lambdatest.Env(append([]string{"AWS_ENDPOINT_URL_BATCH=" + fake.URL, "LAMBDA_TASK_ROOT=" + dir,
		contract.EnvJobQueue + "=arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"}, fn.env...)...)
	return lambdatest.ReportColdStarts(ctx, os.Stdout, rie, env, []byte(fn.payload), n,
		lambdatest.Target{Name: "hello-world Go Lambda", Bootstrap: hello}, lambdatest.Target{Name: "trainq " + name, Bootstrap: boot})
}
