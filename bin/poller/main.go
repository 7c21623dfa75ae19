// Command poller is the Lambda function, run every minute, that reads the
// trainq job queue (GetJobQueueSnapshot, ListServiceJobs, DescribeServiceJob)
// and writes backlog and capacity metrics (EMF on stdout). It only wires: the
// logic is in package poll.
//
// Environment: TRAINQ_PLATFORM_FILE (default platform.json in
// $LAMBDA_TASK_ROOT, else next to the executable), TRAINQ_JOB_QUEUE (the job
// queue ARN; default the platform's queue name) and the AWS SDK's usual
// variables.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "trainq poller: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	p, err := platform.LoadFile(contract.PlatformFile(os.Getenv, exe))
	if err != nil {
		return err
	}
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		return fmt.Errorf("load AWS config: %w", err)
	}
	poller, err := poll.NewPoller(poll.PollerConfig{
		Platform: p,
		Queue:    os.Getenv(contract.EnvJobQueue),
		Batch:    poll.NewBatchClient(cfg, poll.DefaultRetryPolicy),
		Now:      time.Now,
		Out:      os.Stdout,
		Log:      slog.New(slog.NewJSONHandler(os.Stderr, nil)),
	})
	if err != nil {
		return err
	}
	lambda.Start(poller.Handle)
	return nil
}
