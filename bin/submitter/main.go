// Command submitter is the bootstrap of trainq's submission Lambda: it reads
// its configuration, builds the AWS Batch client, the job ledger's reader
// (when TRAINQ_LEDGER_TABLE names one) and the handler, and starts the
// Lambda runtime loop. The logic lives in packages submit and ledger.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/awsenv"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/submit"
)

func main() {
	h, err := build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "trainq submitter:", err)
		os.Exit(1)
	}
	lambda.StartHandlerFunc(h.Serve)
}

func build() (*submit.Handler, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate executable: %w", err)
	}
	s, err := submit.LoadSettings(os.Getenv, exe)
	if err != nil {
		return nil, err
	}
	cfg, err := awsenv.Load()
	if err != nil {
		return nil, err
	}
	var history submit.HistorySource
	var store *ledger.Store
	if table := os.Getenv(contract.EnvLedgerTable); table != "" {
		store, err = ledger.Open(cfg, table, s.Platform.LedgerRetention())
		if err != nil {
			return nil, err
		}
		history = store
	}
	return submit.New(submit.Config{
		History:           history,
		Ledger:            store,
		Platform:          s.Platform,
		JobQueue:          s.JobQueue,
		ExecutionRoleARN:  s.ExecutionRoleARN,
		ExecutionRoleARNs: s.ExecutionRoleARNs,
		CheckpointBucket:  s.CheckpointBucket,
		Submitters:        s.Submitters,
		Operators:         s.Operators,
		// Callers prove who they are; STS checks the signature.
		Identity: &submit.STSVerifier{Endpoint: s.STSEndpoint},
		Batch:    submit.NewBatchClient(cfg, submit.DefaultRetryPolicy),
		Logger:   slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		// One EMF line per request in the function's log (CloudWatch
		// extracts metrics.JobsSubmitted and metrics.SubmissionErrors).
		Metrics: os.Stdout,
	})
}
