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

// TestListAndSnapshotAnswerAsBatchDoes: ListServiceJobs lists the jobs of
// jobStatus (RUNNING without one) in pages of maxResults, each as a
// ServiceJobSummary (capacityUsage once scheduled, the share, startedAt),
// and GetJobQueueSnapshot the front SetFront gives; the SDK reads both.
func TestListAndSnapshotAnswerAsBatchDoes(t *testing.T) {
	fake := batchtest.New(0)
	defer fake.Close()
	ctx := context.Background()
	c := client(fake)
	payload := `{"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":4}}`
	run := fake.Add(batchtest.Job{Status: "RUNNING", StartedAt: 1_700_000_000_000, Request: batchtest.SubmitRequest{JobName: "r", JobQueue: "q",
		ServiceRequestPayload: payload, QuotaShareName: aws.String("vision")}})
	var waiting []batchtest.Job
	for _, name := range []string{"w1", "w2", "w3"} {
		waiting = append(waiting, fake.Add(batchtest.Job{Status: "RUNNABLE", Request: batchtest.SubmitRequest{JobName: name, JobQueue: "q",
			ServiceRequestPayload: payload, QuotaShareName: aws.String("nlp")}}))
	}
	out, err := c.ListServiceJobs(ctx, &batch.ListServiceJobsInput{JobQueue: aws.String("q")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.JobSummaryList) != 1 || aws.ToString(out.JobSummaryList[0].JobId) != run.ID || aws.ToString(out.JobSummaryList[0].QuotaShareName) != "vision" ||
		aws.ToInt64(out.JobSummaryList[0].StartedAt) != 1_700_000_000_000 || len(out.JobSummaryList[0].CapacityUsage) != 1 ||
		aws.ToFloat64(out.JobSummaryList[0].CapacityUsage[0].Quantity) != 4 {
		t.Errorf("without jobStatus: %+v, want the RUNNING job with its share, start and 4 instances", out.JobSummaryList)
	}
	// Three RUNNABLE jobs, two a page, most recent first: w3 w2, then w1.
	var names []string
	in := &batch.ListServiceJobsInput{JobQueue: aws.String("q"), JobStatus: types.ServiceJobStatusRunnable, MaxResults: aws.Int32(2)}
	for pages := 0; pages < 3; pages++ {
		out, err := c.ListServiceJobs(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range out.JobSummaryList {
			names = append(names, aws.ToString(s.JobName))
			if s.CapacityUsage != nil {
				t.Errorf("RUNNABLE job %s has capacityUsage", aws.ToString(s.JobName))
			}
		}
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	if diff := cmp.Diff([]string{"w3", "w2", "w1"}, names); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	fake.SetFront([]batchtest.Front{{JobARN: waiting[0].ARN, EarliestTimeAtPosition: 5}}, map[string][]batchtest.Front{"nlp": {{JobARN: waiting[0].ARN}}})
	snap, err := c.GetJobQueueSnapshot(ctx, &batch.GetJobQueueSnapshotInput{JobQueue: aws.String("q")})
	if err != nil {
		t.Fatal(err)
	}
	if snap.FrontOfQueue == nil || len(snap.FrontOfQueue.Jobs) != 1 || aws.ToString(snap.FrontOfQueue.Jobs[0].JobArn) != waiting[0].ARN ||
		aws.ToInt64(snap.FrontOfQueue.Jobs[0].EarliestTimeAtPosition) != 5 || len(snap.FrontOfQuotaShares.QuotaShares["nlp"]) != 1 {
		t.Errorf("snapshot front %+v %+v", snap.FrontOfQueue, snap.FrontOfQuotaShares)
	}
	r := awsmodel.Validate(t, requests(fake.Calls("")))
	if r.Checked["ListServiceJobs"] != 3 {
		t.Errorf("checked %v", r.Checked)
	}
}
