// Command coldstart measures the cold start of trainq's functions under the
// AWS Lambda Runtime Interface Emulator next to a hello-world Go Lambda
// (bench/submit/hello), in the same run: in each of n rounds it starts a
// fresh emulator for the hello-world function and for each function
// measured, in an order shuffled per round, invokes once, and reads the
// emulator's INIT REPORT (the init phase) and the first invocation's round
// trip (lambdatest.ReportColdStarts). It reports the machine's load average,
// each init's median and 90th percentile, and each function's init divided
// by the hello-world one's of the same round, median and 90th percentile:
// on a shared machine the load of a round weighs on both sides of its
// ratio, so the ratios vary far less than the times.
//
// Every binary is built as the constructs build it for Lambda (package
// lambdabuild's recipe, for the host).
//
// The submitter, the observer and the poller are deployed with the job
// ledger, here a local DynamoDB (dynalite, internal/dynamotest). The first
// invocations: the submitter's is a request it refuses without calling
// Batch (init plus validation); the observer's a Batch job event, which it
// records in the ledger;
// the poller's and the re-router's a whole run against a local Batch
// endpoint with an empty queue.
//
// Usage: go run ./bench/coldstart [-function all|submitter|observer|poller|rerouter] [-n 30]
//
// It must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/internal/lambdatest"
)

// function is what the benchmark needs of a function: its package, its
// environment beyond the queue and the platform, whether it is deployed
// with the job ledger (TRAINQ_LEDGER_TABLE), and its first invocation.
type function struct {
	pkg     string
	env     []string
	ledger  bool
	payload string
}

// role is every team's execution role.
const role = contract.EnvExecutionRoleARN + "=arn:aws:iam::123456789012:role/trainq-sagemaker"

var functions = map[string]function{
	"submitter": {lambdatest.SubmitterPackage, []string{role}, true, `{"action":"describe"}`},
	"observer": {lambdatest.ObserverPackage, nil, true, `{"id":"e1","source":"aws.batch","detail-type":"Batch Service Job State Change",` +
		`"time":"2026-12-01T12:00:00Z","detail":{"jobId":"j1","jobName":"n","status":"RUNNABLE","jobQueue":"arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"}}`},
	"poller":   {lambdatest.PollerPackage, nil, true, `{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`},
	"rerouter": {lambdatest.RerouterPackage, []string{role}, false, `{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`},
}

// ledgerTable is the job ledger's table.
const ledgerTable = "trainq-ledger"

// order is the report's order of the functions.
var order = []string{"submitter", "observer", "poller", "rerouter"}

func main() {
	n := flag.Int("n", 30, "rounds: cold starts per function")
	name := flag.String("function", "all", "the function to measure: all, or one of "+strings.Join(order, ", "))
	flag.Parse()
	names := order
	if *name != "all" {
		if _, ok := functions[*name]; !ok {
			fmt.Fprintf(os.Stderr, "coldstart: -function: got %q, want all or one of %s\n", *name, strings.Join(order, ", "))
			os.Exit(2)
		}
		names = []string{*name}
	}
	if err := run(*n, names); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(n int, names []string) error {
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
	fake := batchtest.New(0)
	defer fake.Close()
	// The job ledger, as deployed, on a local DynamoDB: the observer's
	// first invocation records its job there.
	local, err := dynamotest.Start(ctx)
	if err != nil {
		return err
	}
	defer local.Close()
	if err := local.CreateTable(ctx, dynamotest.LedgerTable(ledgerTable)); err != nil {
		return err
	}
	withLedger := append(local.Env(), contract.EnvLedgerTable+"="+ledgerTable)
	env := lambdatest.Env("AWS_ENDPOINT_URL_BATCH="+fake.URL, contract.EnvJobQueue+"=arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training")
	hello, err := lambdatest.Build(ctx, "github.com/trainq/trainq/bench/submit/hello", dir, "hello")
	if err != nil {
		return err
	}
	targets := []lambdatest.Target{{Name: "hello-world Go Lambda", Bootstrap: hello, Env: env, Payload: []byte(`{}`)}}
	for _, name := range names {
		fn := functions[name]
		// Each bootstrap in a folder of its own, with the platform file,
		// as Lambda unpacks a function.
		sub := filepath.Join(dir, name)
		if err := os.Mkdir(sub, 0o755); err != nil {
			return err
		}
		if err := lambdatest.WritePlatform(sub, nil); err != nil {
			return err
		}
		boot, err := lambdatest.Build(ctx, fn.pkg, sub, "bootstrap")
		if err != nil {
			return err
		}
		e := append(slices.Clone(env), append(fn.env, "LAMBDA_TASK_ROOT="+sub)...)
		if fn.ledger {
			e = append(e, withLedger...)
		}
		targets = append(targets, lambdatest.Target{Name: "trainq " + name, Bootstrap: boot, Env: e, Payload: []byte(fn.payload)})
	}
	return lambdatest.ReportColdStarts(ctx, os.Stdout, rie, n, targets...)
}
