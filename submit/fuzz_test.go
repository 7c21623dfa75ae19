package submit_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// stubBatch answers every call at once, without a network, so that the
// fuzzer spends its time in decoding and validation.
type stubBatch struct{}

func (stubBatch) SubmitServiceJob(_ context.Context, in *batch.SubmitServiceJobInput, _ ...func(*batch.Options)) (*batch.SubmitServiceJobOutput, error) {
	return &batch.SubmitServiceJobOutput{JobId: aws.String("job-1"), JobName: in.JobName}, nil
}
func (stubBatch) DescribeServiceJob(context.Context, *batch.DescribeServiceJobInput, ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error) {
	return &batch.DescribeServiceJobOutput{JobId: aws.String("job-1"), JobQueue: aws.String(testQueue), SchedulingPriority: aws.Int32(550)}, nil
}
func (stubBatch) TerminateServiceJob(context.Context, *batch.TerminateServiceJobInput, ...func(*batch.Options)) (*batch.TerminateServiceJobOutput, error) {
	return &batch.TerminateServiceJobOutput{}, nil
}
func (stubBatch) UpdateServiceJob(context.Context, *batch.UpdateServiceJobInput, ...func(*batch.Options)) (*batch.UpdateServiceJobOutput, error) {
	return &batch.UpdateServiceJobOutput{}, nil
}
func (stubBatch) ListServiceJobs(context.Context, *batch.ListServiceJobsInput, ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error) {
	return &batch.ListServiceJobsOutput{}, nil
}
func (stubBatch) GetJobQueueSnapshot(context.Context, *batch.GetJobQueueSnapshotInput, ...func(*batch.Options)) (*batch.GetJobQueueSnapshotOutput, error) {
	return &batch.GetJobQueueSnapshotOutput{}, nil
}

// FuzzInvoke feeds arbitrary bytes through the Lambda decode path: the
// handler never panics and always answers, either a job or a function error
// of a documented type that names at least one problem.
func FuzzInvoke(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`null`))
	f.Add([]byte(`{"trainingJob":{"ResourceConfig":{"InstanceCount":1e999}}}`))
	f.Add([]byte(`{"action":"reprioritize","jobId":"j","priority":-1}`))
	h, err := submit.New(testConfig(declareFixtures(platform.Default()), stubBatch{}))
	if err != nil {
		f.Fatal(err)
	}
	kinds := map[string]bool{"ValidationError": true, "Forbidden": true, "Throttled": true, "UpstreamError": true}
	f.Fuzz(func(t *testing.T, payload []byte) {
		ctx := invocation("", "req-fuzz")
		out, err := lambda.NewHandler(h).Invoke(ctx, signed(t, ctx, callerOf(ctx), payload))
		if err != nil {
			var fe messages.InvokeResponse_Error
			if !errors.As(err, &fe) || !kinds[fe.Type] || fe.Message == "" {
				t.Fatalf("error %T %+v, want a function error of a documented type", err, err)
			}
			return
		}
		var resp contract.Response
		if err := json.Unmarshal(out, &resp); err != nil || resp.JobID == "" {
			t.Fatalf("answer %s is not a job (%v)", out, err)
		}
	})
}

func (stubBatch) TagResource(context.Context, *batch.TagResourceInput, ...func(*batch.Options)) (*batch.TagResourceOutput, error) {
	return &batch.TagResourceOutput{}, nil
}
