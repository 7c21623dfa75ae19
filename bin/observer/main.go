// Command observer is the Lambda function that turns AWS Batch service job
// state-change events into trainq's CloudWatch metrics (EMF on stdout) and,
// when the platform has a ledger, records each job's state in it. It only
// wires: the logic is in packages observe and ledger.
//
// Environment: TRAINQ_PLATFORM_FILE (default platform.json in
// $LAMBDA_TASK_ROOT, else next to the executable), TRAINQ_JOB_QUEUE (the
// job queue ARN; default the platform's queue name), TRAINQ_LEDGER_TABLE
// (the ledger's DynamoDB table; unset: no ledger) and the AWS region, credentials and endpoints
// package awsenv reads.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/awsenv"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "trainq observer: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	p, err := platform.LoadJSONFile(contract.PlatformFile(os.Getenv, exe))
	if err != nil {
		return err
	}
	obs, err := observe.NewObserver(p, os.Getenv(contract.EnvJobQueue), time.Now, os.Stdout)
	if err != nil {
		return err
	}
	if table := os.Getenv(contract.EnvLedgerTable); table != "" {
		cfg, err := awsenv.Load()
		if err != nil {
			return err
		}
		store, err := ledger.Open(cfg, table, p.LedgerRetention())
		if err != nil {
			return err
		}
		obs.SetLedger(store)
	}
	lambda.StartHandlerFunc(obs.Serve)
	return nil
}
