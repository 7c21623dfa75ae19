package reroute

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
)

// The run's Batch calls, each bounded by Config.CallTimeout (with the SDK's
// retries) and by the run's callsBy, so that a hung call never makes the
// invocation time out.

// callContext is the context of one call and its cancel.
func (x *run) callContext() (context.Context, context.CancelFunc) {
	by := time.Now().Add(x.r.cfg.CallTimeout)
	if !x.callsBy.IsZero() && x.callsBy.Before(by) {
		by = x.callsBy
	}
	return context.WithDeadline(x.ctx, by)
}

func (x *run) listPage(in *batch.ListServiceJobsInput) (*batch.ListServiceJobsOutput, error) {
	ctx, cancel := x.callContext()
	defer cancel()
	return x.r.cfg.Batch.ListServiceJobs(ctx, in)
}

func (x *run) describe(id string) (*batch.DescribeServiceJobOutput, error) {
	ctx, cancel := x.callContext()
	defer cancel()
	return x.r.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(id)})
}

func (x *run) snapshot() (*batch.GetJobQueueSnapshotOutput, error) {
	ctx, cancel := x.callContext()
	defer cancel()
	return x.r.cfg.Batch.GetJobQueueSnapshot(ctx, &batch.GetJobQueueSnapshotInput{JobQueue: aws.String(x.r.cfg.JobQueue)})
}

func (x *run) submit(in *batch.SubmitServiceJobInput) (*batch.SubmitServiceJobOutput, error) {
	ctx, cancel := x.callContext()
	defer cancel()
	return x.r.cfg.Batch.SubmitServiceJob(ctx, in)
}

func (x *run) terminate(id, reason string) error {
	ctx, cancel := x.callContext()
	defer cancel()
	_, err := x.r.cfg.Batch.TerminateServiceJob(ctx, &batch.TerminateServiceJobInput{JobId: aws.String(id), Reason: aws.String(reason)})
	return err
}

func (x *run) tag(arn string, tags map[string]string) error {
	ctx, cancel := x.callContext()
	defer cancel()
	_, err := x.r.cfg.Batch.TagResource(ctx, &batch.TagResourceInput{ResourceArn: aws.String(arn), Tags: tags})
	return err
}
