package awsmodel_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/awsmodel"
)

const (
	queue  = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	role   = "arn:aws:iam::123456789012:role/trainq-sagemaker"
	jobARN = "arn:aws:batch:us-east-1:123456789012:service-job/00000001-0000-4000-8000-000000000001"
)

// check runs the validator, skipping or failing like Validate when python3
// or botocore is missing.
func check(t *testing.T, reqs ...awsmodel.Request) *awsmodel.Report {
	t.Helper()
	r, err := awsmodel.Check(context.Background(), reqs)
	switch {
	case errors.Is(err, awsmodel.ErrUnavailable) && !awsmodel.Required():
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	return r
}

// members lists the members the report's problems name, sorted, once each.
func members(r *awsmodel.Report) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range r.Problems {
		if !seen[p.Member] {
			seen[p.Member] = true
			out = append(out, p.Member)
		}
	}
	sort.Strings(out)
	return out
}

func jsonOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// goodPayload is a CreateTrainingJob request the SageMaker model accepts.
func goodPayload() map[string]any {
	return map[string]any{
		"TrainingJobName":        "bert-base-0a1b2c3d",
		"RoleArn":                role,
		"AlgorithmSpecification": map[string]any{"TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:latest", "TrainingInputMode": "File"},
		"OutputDataConfig":       map[string]any{"S3OutputPath": "s3://ml-artifacts/bert-base/"},
		"ResourceConfig":         map[string]any{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1, "VolumeSizeInGB": 100},
		"StoppingCondition":      map[string]any{"MaxRuntimeInSeconds": 3600},
		"HyperParameters":        map[string]any{"epochs": "3"},
	}
}

// goodSubmit is a SubmitServiceJob body the Batch model accepts.
func goodSubmit(t *testing.T, payload map[string]any) map[string]any {
	return map[string]any{
		"jobName": "bert-base-0a1b2c3d", "jobQueue": queue, "serviceJobType": "SAGEMAKER_TRAINING",
		"serviceRequestPayload": string(jsonOf(t, payload)), "schedulingPriority": 550,
		"quotaShareName": "search-ranking", "clientToken": strings.Repeat("ab", 32),
		"retryStrategy": map[string]any{"attempts": 3}, "timeoutConfig": map[string]any{"attemptDurationSeconds": 3600},
		"tags": map[string]any{"trainq:team": "search-ranking"},
	}
}

func submitRequest(t *testing.T, body map[string]any) awsmodel.Request {
	return awsmodel.Request{Operation: "SubmitServiceJob", Method: "POST", Path: "/v1/submitservicejob", Body: jsonOf(t, body), Label: t.Name()}
}

// tagRequest is TagResource on jobARN: the ARN travels in the path, escaped
// as the SDK escapes a label.
func tagRequest(t *testing.T, tags map[string]any) awsmodel.Request {
	return awsmodel.Request{Operation: "TagResource", Method: "POST",
		Path:       "/v1/tags/arn%3Aaws%3Abatch%3Aus-east-1%3A123456789012%3Aservice-job%2F00000001-0000-4000-8000-000000000001",
		PathParams: map[string]string{"resourceArn": jobARN}, Body: jsonOf(t, map[string]any{"tags": tags}), Label: t.Name()}
}

// untagRequest is UntagResource on jobARN: the keys travel in the query.
func untagRequest(query map[string][]string) awsmodel.Request {
	return awsmodel.Request{Operation: "UntagResource", Method: "DELETE",
		Path:       "/v1/tags/arn%3Aaws%3Abatch%3Aus-east-1%3A123456789012%3Aservice-job%2F00000001-0000-4000-8000-000000000001",
		PathParams: map[string]string{"resourceArn": jobARN}, Query: query}
}

func TestValidRequestsPass(t *testing.T) {
	reqs := []awsmodel.Request{
		submitRequest(t, goodSubmit(t, goodPayload())),
		tagRequest(t, map[string]any{"owner": "ana"}),
		{Operation: "ListServiceJobs", Method: "POST", Path: "/v1/listservicejobs",
			Body: jsonOf(t, map[string]any{"jobQueue": queue, "filters": []any{map[string]any{"name": "JOB_NAME", "values": []any{"bert-base-0a1b2c3d"}}}})},
		{Operation: "UpdateServiceJob", Method: "POST", Path: "/v1/updateservicejob", Body: jsonOf(t, map[string]any{"jobId": "j-1", "schedulingPriority": 9999})},
		{Operation: "TerminateServiceJob", Method: "POST", Path: "/v1/terminateservicejob", Body: jsonOf(t, map[string]any{"jobId": "j-1", "reason": "trainq: cancelled: test"})},
		{Operation: "DescribeServiceJob", Method: "POST", Path: "/v1/describeservicejob", Body: jsonOf(t, map[string]any{"jobId": "j-1"})},
		{Operation: "GetJobQueueSnapshot", Method: "POST", Path: "/v1/getjobqueuesnapshot", Body: jsonOf(t, map[string]any{"jobQueue": queue})},
		untagRequest(map[string][]string{"tagKeys": {"owner", "project"}}),
	}
	r := awsmodel.Validate(t, reqs)
	want := map[string]int{"SubmitServiceJob": 1, "TagResource": 1, "ListServiceJobs": 1, "UpdateServiceJob": 1,
		"TerminateServiceJob": 1, "DescribeServiceJob": 1, "GetJobQueueSnapshot": 1, "UntagResource": 1}
	if diff := cmp.Diff(want, r.Checked); diff != "" {
		t.Errorf("requests checked per operation (-want +got):\n%s", diff)
	}
	if r.Payloads != 1 {
		t.Errorf("checked %d SageMaker payloads, want 1", r.Payloads)
	}
}

func TestInvalidRequestsAreReported(t *testing.T) {
	deep := []any{}
	for range 299 {
		deep = []any{deep}
	}
	tests := []struct {
		name string
		req  func(t *testing.T) awsmodel.Request
		want []string // members named by the problems
	}{
		{"a submission over the documented priority range and without a queue is refused", func(t *testing.T) awsmodel.Request {
			b := goodSubmit(t, goodPayload())
			b["schedulingPriority"] = 10000
			delete(b, "jobQueue")
			return submitRequest(t, b)
		}, []string{"jobQueue", "schedulingPriority"}},
		{"a job name with a space, 11 attempts, an unknown type and member are refused", func(t *testing.T) awsmodel.Request {
			b := goodSubmit(t, goodPayload())
			b["jobName"] = "bad name"
			b["retryStrategy"] = map[string]any{"attempts": 11}
			b["serviceJobType"] = "SAGEMAKER_PROCESSING"
			b["priority"] = 5
			return submitRequest(t, b)
		}, []string{"jobName", "priority", "retryStrategy.attempts", "serviceJobType"}},
		{"tags: a key over 128 characters and a value over 256 are refused", func(t *testing.T) awsmodel.Request {
			b := goodSubmit(t, goodPayload())
			b["tags"] = map[string]any{strings.Repeat("k", 129): strings.Repeat("v", 257)}
			return submitRequest(t, b)
		}, []string{"tags (key '" + strings.Repeat("k", 129) + "')", "tags." + strings.Repeat("k", 129)}},
		{"a payload with 300-deep HyperParameters and a negative InstanceCount is refused", func(t *testing.T) awsmodel.Request {
			// The model's TrainingInstanceCount has min 0 (InstanceGroups
			// jobs send 0), so only a negative count breaks it.
			p := goodPayload()
			p["HyperParameters"] = deep
			p["ResourceConfig"] = map[string]any{"InstanceType": "ml.p5.48xlarge", "InstanceCount": -1, "VolumeSizeInGB": 100}
			return submitRequest(t, goodSubmit(t, p))
		}, []string{"serviceRequestPayload.HyperParameters", "serviceRequestPayload.ResourceConfig.InstanceCount"}},
		{"a payload's enums, patterns, types and required members are checked", func(t *testing.T) awsmodel.Request {
			p := goodPayload()
			p["TrainingJobName"] = "-starts-with-hyphen"
			p["AlgorithmSpecification"] = map[string]any{"TrainingImage": "x", "TrainingInputMode": "Stream"}
			p["ResourceConfig"] = map[string]any{"InstanceType": "ml.p9.huge", "InstanceCount": 1, "VolumeSizeInGB": "100"}
			p["StoppingCondition"] = map[string]any{"MaxRuntimeInSeconds": true}
			p["Unknown"] = 1
			delete(p, "RoleArn")
			return submitRequest(t, goodSubmit(t, p))
		}, []string{
			"serviceRequestPayload.AlgorithmSpecification.TrainingInputMode", "serviceRequestPayload.ResourceConfig.InstanceType",
			"serviceRequestPayload.ResourceConfig.VolumeSizeInGB", "serviceRequestPayload.RoleArn",
			"serviceRequestPayload.StoppingCondition.MaxRuntimeInSeconds", "serviceRequestPayload.TrainingJobName",
			"serviceRequestPayload.Unknown",
		}},
		{"a payload that is not JSON is refused", func(t *testing.T) awsmodel.Request {
			b := goodSubmit(t, goodPayload())
			b["serviceRequestPayload"] = "{not json"
			return submitRequest(t, b)
		}, []string{"serviceRequestPayload"}},
		{"TagResource takes resourceArn from the path: an empty tag map is refused", func(t *testing.T) awsmodel.Request {
			return tagRequest(t, map[string]any{})
		}, []string{"tags"}},
		{"TagResource with resourceArn in the body instead of the path is refused", func(t *testing.T) awsmodel.Request {
			r := tagRequest(t, nil)
			r.Body = jsonOf(t, map[string]any{"resourceArn": jobARN, "tags": map[string]any{"a": "b"}})
			return r
		}, []string{"resourceArn"}},
		{"UntagResource takes tagKeys from the query: an empty key and an unknown parameter are refused", func(t *testing.T) awsmodel.Request {
			return untagRequest(map[string][]string{"tagKeys": {""}, "force": {"true"}})
		}, []string{"force", "tagKeys[0]"}},
		{"a path that names no operation is refused", func(t *testing.T) awsmodel.Request {
			return awsmodel.Request{Operation: "SubmitJobs", Method: "POST", Path: "/v1/submitjobs", Body: json.RawMessage(`{}`)}
		}, []string{""}},
		{"an operation the recorder misnamed is reported", func(t *testing.T) awsmodel.Request {
			return awsmodel.Request{Operation: "DescribeServiceJob", Method: "POST", Path: "/v1/terminateservicejob", Body: json.RawMessage(`{"jobId":"j-1"}`)}
		}, []string{"", "reason"}},
		{"a body that is not JSON is refused", func(t *testing.T) awsmodel.Request {
			return awsmodel.Request{Operation: "DescribeServiceJob", Method: "POST", Path: "/v1/describeservicejob", Body: json.RawMessage(`jobId=j-1`)}
		}, []string{"", "jobId"}},
		{"more than one ListServiceJobs filter, an unknown filter name and 500 results are refused", func(t *testing.T) awsmodel.Request {
			return awsmodel.Request{Operation: "ListServiceJobs", Method: "POST", Path: "/v1/listservicejobs", Body: jsonOf(t, map[string]any{
				"jobQueue": queue, "maxResults": 500,
				"filters": []any{map[string]any{"name": "JOB_NAMES", "values": []any{"a"}}, map[string]any{"name": "JOB_NAME", "values": []any{"b"}}},
			})}
		}, []string{"filters", "filters[].name", "maxResults"}},
		{"a re-prioritization out of range is refused", func(t *testing.T) awsmodel.Request {
			return awsmodel.Request{Operation: "UpdateServiceJob", Method: "POST", Path: "/v1/updateservicejob", Body: jsonOf(t, map[string]any{"jobId": "j-1", "schedulingPriority": -1})}
		}, []string{"schedulingPriority"}},
	}
	// One run of the validator for all cases; each case reads the problems
	// of its own request.
	reqs := make([]awsmodel.Request, len(tests))
	for i, tc := range tests {
		reqs[i] = tc.req(t)
		reqs[i].Label = tc.name
	}
	all := check(t, reqs...)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &awsmodel.Report{}
			for _, p := range all.Problems {
				if p.Index == i {
					r.Problems = append(r.Problems, p)
				}
			}
			if diff := cmp.Diff(tc.want, members(r)); diff != "" {
				t.Errorf("members named (-want +got):\n%s\nproblems:\n%s", diff, problemList(r))
			}
			for _, p := range r.Problems {
				if p.Message == "" || !strings.Contains(p.String(), p.Operation) || !strings.Contains(p.String(), tc.name) {
					t.Errorf("problem %q does not name its operation, its request and what is wrong", p)
				}
			}
		})
	}
}

// TestIdenticalRequestsAreCountedOnce checks that repeats are counted but
// their problems reported once, with the number of repeats.
func TestIdenticalRequestsAreCountedOnce(t *testing.T) {
	b := goodSubmit(t, goodPayload())
	b["schedulingPriority"] = 10000
	req := submitRequest(t, b)
	r := check(t, req, req, req)
	if r.Total() != 3 || r.Distinct != 1 || r.Payloads != 3 {
		t.Errorf("checked %d requests, %d distinct, %d payloads; want 3, 1, 3", r.Total(), r.Distinct, r.Payloads)
	}
	if len(r.Problems) != 1 || r.Problems[0].Count != 3 || !strings.Contains(r.Problems[0].String(), "and 2 identical") {
		t.Errorf("problems %v, want one for schedulingPriority seen 3 times", r.Problems)
	}
	if s := r.Summary(); !strings.Contains(s, "3 requests checked (SubmitServiceJob 3)") {
		t.Errorf("summary %q does not count the requests by operation", s)
	}
}

// TestPatternsPythonCannotCompileAreSkippedAndNamed: SageMaker's tag keys use
// Java's \p{L}; the check names the pattern instead of failing on it.
func TestPatternsPythonCannotCompileAreSkippedAndNamed(t *testing.T) {
	p := goodPayload()
	p["Tags"] = []any{map[string]any{"Key": "team", "Value": "search"}}
	r := check(t, submitRequest(t, goodSubmit(t, p)))
	if len(r.Problems) != 0 {
		t.Errorf("problems %s, want none", problemList(r))
	}
	found := false
	for _, s := range r.SkippedPatterns {
		if strings.Contains(s.Pattern, `\p{L}`) && s.Error != "" && len(s.Shapes) > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("skipped patterns %+v, want the tag key's \\p{L} pattern with its shape", r.SkippedPatterns)
	}
}

func TestMissingPythonIsUnavailable(t *testing.T) {
	t.Setenv(awsmodel.EnvPython, "/nonexistent/python3")
	_, err := awsmodel.Check(context.Background(), nil)
	if !errors.Is(err, awsmodel.ErrUnavailable) || !strings.Contains(err.Error(), awsmodel.EnvPython) {
		t.Errorf("error %v, want ErrUnavailable naming %s", err, awsmodel.EnvPython)
	}
}

func problemList(r *awsmodel.Report) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

func TestMissingBotocoreIsUnavailable(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	// python3 -S leaves out site-packages, where botocore lives.
	wrapper := filepath.Join(t.TempDir(), "python-without-site")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec "+python+" -S \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(awsmodel.EnvPython, wrapper)
	_, err = awsmodel.Check(context.Background(), nil)
	if !errors.Is(err, awsmodel.ErrUnavailable) || !strings.Contains(err.Error(), "botocore") {
		t.Errorf("error %v, want ErrUnavailable naming botocore", err)
	}
}

// TestJSONProtocolRequestsAreFoundByTheirTarget checks DynamoDB's requests,
// whose operation is named by X-Amz-Target (botocore's model: protocol json,
// targetPrefix DynamoDB_20120810), not by their path.
func TestJSONProtocolRequestsAreFoundByTheirTarget(t *testing.T) {
	get := func(target string, body map[string]any) awsmodel.Request {
		return awsmodel.Request{Service: "dynamodb", Target: target, Method: "POST", Path: "/", Body: jsonOf(t, body)}
	}
	good := map[string]any{"TableName": "ledger", "Key": map[string]any{"jobId": map[string]any{"S": "j"}}}
	r := check(t, get("DynamoDB_20120810.GetItem", good))
	if len(r.Problems) != 0 || r.Checked["GetItem"] != 1 {
		t.Errorf("a valid GetItem: %d problems (%s), checked %v", len(r.Problems), problemList(r), r.Checked)
	}
	// An unknown member, a table name under its minimum length of 1 (the
	// model's TableArn shape allows 1 to 1024), and no Key, which GetItem
	// requires.
	r = check(t, get("DynamoDB_20120810.GetItem", map[string]any{"TableName": "", "Keys": map[string]any{}}))
	if diff := cmp.Diff([]string{"Key", "Keys", "TableName"}, members(r)); diff != "" {
		t.Errorf("a bad GetItem's members at fault (-want +got):\n%s\n%s", diff, problemList(r))
	}
	// A target of another API version, or of no operation.
	for _, target := range []string{"DynamoDB_20111205.GetItem", "DynamoDB_20120810.Fly", ""} {
		r = check(t, get(target, good))
		if len(r.Problems) != 1 || !strings.Contains(problemList(r), "no dynamodb operation in the model") {
			t.Errorf("target %q: %s, want one problem naming no operation", target, problemList(r))
		}
	}
}
