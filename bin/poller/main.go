// Command poller is the Lambda function, run every minute, that reads the
// trainq job queue (GetJobQueueSnapshot, ListServiceJobs, DescribeServiceJob)
// and writes backlog and capacity metrics (EMF on stdout). It only wires: the
// logic is in package poll.
//
// Environment: TRAINQ_PLATFORM_FILE (default platform.json in
// $LAMBDA_TASK_ROOT, else next to the executable), TRAINQ_JOB_QUEUE (the job
// queue ARN; default the platform's queue name), TRAINQ_LEDGER_TABLE (the
// job ledger: every 15 minutes the run also makes package reconcile's pass,
// which completes open jobs whose events were lost, and, when a team has a
// budget, the budget pass (poll.Poller.WriteBudgets, 7 minutes later); unset:
// neither pass) and the AWS region, credentials and endpoints package awsenv
// reads.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/awsenv"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
	"github.com/trainq/trainq/reconcile"
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
	p, err := platform.LoadJSONFile(contract.PlatformFile(os.Getenv, exe))
	if err != nil {
		return err
	}
	cfg, err := awsenv.Load()
	if err != nil {
		return err
	}
	client := poll.NewBatchClient(cfg, poll.DefaultRetryPolicy)
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	poller, err := poll.NewPoller(poll.PollerConfig{
		Platform: p,
		Queue:    os.Getenv(contract.EnvJobQueue),
		Batch:    client,
		Now:      time.Now,
		Out:      os.Stdout,
		Log:      log,
	})
	if err != nil {
		return err
	}
	table := os.Getenv(contract.EnvLedgerTable)
	if table == "" {
		lambda.StartHandlerFunc(poller.Handle)
		return nil
	}
	store, err := ledger.Open(cfg, table, p.LedgerRetention())
	if err != nil {
		return err
	}
	pass := reconcile.Config{Platform: p, Ledger: store, Batch: client, Queue: os.Getenv(contract.EnvJobQueue), Now: time.Now}
	lambda.StartHandlerFunc(func(ctx context.Context, payload json.RawMessage) (poll.Answer, error) {
		now := time.Now()
		due, budgets := pass.Due(now), poller.BudgetsDue(now)
		answer, err := poller.Handle(ctx, payload)
		if due {
			// The metrics come first; a failed pass is logged and the next
			// one (15 minutes later) reads the open jobs again.
			sum, rerr := reconcile.Run(ctx, pass)
			if rerr != nil {
				log.Error("reconciling pass", "error", rerr.Error(), "summary", sum)
			} else {
				log.Info("reconciling pass", "summary", sum)
			}
		}
		if budgets {
			// Like the pass: logged, and a missed figure keeps the budget
			// alarms' state until the next pass, 15 minutes later.
			if st, berr := poller.WriteBudgets(ctx, store); berr != nil {
				log.Error("budget pass", "error", berr.Error())
			} else {
				log.Info("budget pass", "budgets", len(st))
			}
		}
		return answer, err
	})
	return nil
}
