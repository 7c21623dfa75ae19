package batchtest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/awsmodel"
	"github.com/trainq/trainq/internal/batchtest"
)

func client(fake *batchtest.Server) *batch.Client {
	return batch.NewFromConfig(aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(fake.URL),
	})
}

// requests turns recorded calls into requests for the model check.
func requests(calls []batchtest.Call) []awsmodel.Request {
	out := make([]awsmodel.Request, len(calls))
	for i, c := range calls {
		out[i] = c.ModelRequest()
	}
	return out
}

// TestCallsRecordTheWireRequest: the SDK's TagResource carries the job ARN
// as an escaped path label; the fake routes it, decodes the label, tags the
// job, and the recorded requests pass AWS's Batch model.
func TestCallsRecordTheWireRequest(t *testing.T) {
	batchtest.RecordAll()
	fake := batchtest.New(0)
	defer fake.Close()
	fake.SetLabel(t.Name())
	ctx := context.Background()
	c := client(fake)
	sub, err := c.SubmitServiceJob(ctx, &batch.SubmitServiceJobInput{
		JobName: aws.String("bert"), JobQueue: aws.String("trainq-training"), ServiceJobType: types.ServiceJobTypeSagemakerTraining,
		ServiceRequestPayload: aws.String(`{"TrainingJobName":"bert","RoleArn":"arn:aws:iam::123456789012:role/trainq-sagemaker","OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/bert/"}}`),
		QuotaShareName:        aws.String("search"), Tags: map[string]string{"owner": "ana"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagResource(ctx, &batch.TagResourceInput{ResourceArn: sub.JobArn, Tags: map[string]string{"project": "llama"}}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(fake.URL+"/v1/submitjobs", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	tag := fake.Calls("TagResource")
	if len(tag) != 1 {
		t.Fatalf("%d TagResource calls, want 1", len(tag))
	}
	if diff := cmp.Diff(map[string]string{"resourceArn": *sub.JobArn}, tag[0].PathParams); diff != "" {
		t.Errorf("path parameters (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(tag[0].Path, "/v1/tags/arn%3Aaws%3Abatch") || tag[0].Method != http.MethodPost {
		t.Errorf("recorded %s %s, want POST and the escaped path", tag[0].Method, tag[0].Path)
	}
	if diff := cmp.Diff(map[string]string{"owner": "ana", "project": "llama"}, fake.Jobs()[0].Request.Tags); diff != "" {
		t.Errorf("job tags (-want +got):\n%s", diff)
	}
	all := fake.Calls("")
	if len(all) != 3 || all[2].Op != "" || all[2].Answer != http.StatusNotFound {
		t.Errorf("calls %+v, want the unknown path recorded last, answered 404", all)
	}

	recorded := batchtest.Recorded()
	if len(recorded) != 3 || recorded[0].Label != t.Name() {
		t.Fatalf("Recorded returned %d calls (label %q), want this server's 3 labelled %q", len(recorded), recorded[0].Label, t.Name())
	}
	// The SDK's own requests pass the model.
	r := awsmodel.Validate(t, requests(recorded[:2]))
	if diff := cmp.Diff(map[string]int{"SubmitServiceJob": 1, "TagResource": 1}, r.Checked); diff != "" {
		t.Errorf("checked (-want +got):\n%s", diff)
	}
}
