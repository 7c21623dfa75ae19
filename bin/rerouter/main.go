// Command rerouter is the bootstrap of trainq's re-routing Lambda, run on a
// schedule (EventBridge rate(rerouting.everyMinutes minutes)): it reads its
// configuration, builds the AWS Batch client and the re-router, and starts
// the Lambda runtime loop. The logic lives in package reroute.
//
// Environment: TRAINQ_PLATFORM_FILE (default platform.json in
// $LAMBDA_TASK_ROOT, else next to the executable), TRAINQ_JOB_QUEUE (the job
// queue ARN), TRAINQ_EXECUTION_ROLE_ARNS and TRAINQ_EXECUTION_ROLE_ARN (the
// teams' execution roles), TRAINQ_CHECKPOINT_BUCKET (the artifacts bucket)
// and the AWS region, credentials and endpoints package awsenv reads. A platform file, queue, role or bucket
// that is not valid fails the init with a message saying which.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/awsenv"
	"github.com/trainq/trainq/reroute"
)

func main() {
	r, err := build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "trainq rerouter:", err)
		os.Exit(1)
	}
	lambda.StartHandlerFunc(r.Handle)
}

func build() (*reroute.Rerouter, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate executable: %w", err)
	}
	s, err := reroute.LoadSettings(os.Getenv, exe)
	if err != nil {
		return nil, err
	}
	cfg, err := awsenv.Load()
	if err != nil {
		return nil, err
	}
	return reroute.New(reroute.Config{
		Platform: s.Platform,
		JobQueue: s.JobQueue,
		Door:     s.Door,
		Batch:    reroute.NewBatchClient(cfg, reroute.DefaultRetryPolicy),
		Now:      time.Now,
		Logger:   slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		// The run's EMF lines in the function's log (CloudWatch extracts
		// metrics.JobsRerouted and metrics.ReroutesRefused).
		Metrics: os.Stdout,
	})
}
