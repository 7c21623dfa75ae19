// Command observer is the Lambda function that turns AWS Batch service job
// state-change events into trainq's CloudWatch metrics (EMF on stdout). It
// only wires: the logic is in package observe.
//
// Environment: TRAINQ_PLATFORM_FILE (default platform.json in
// $LAMBDA_TASK_ROOT, else next to the executable) and TRAINQ_JOB_QUEUE (the
// job queue ARN; default the platform's queue name).
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

func main() {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	p, err := platform.LoadFile(contract.PlatformFile(os.Getenv, exe))
	if err != nil {
		fmt.Fprintf(os.Stderr, "trainq observer: %v\n", err)
		os.Exit(1)
	}
	obs, err := observe.NewObserver(p, os.Getenv(contract.EnvJobQueue), time.Now, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "trainq observer: %v\n", err)
		os.Exit(1)
	}
	lambda.Start(obs)
}
