package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/lambdatest"
	"github.com/trainq/trainq/platform/platformfile"
)

const (
	queueARN = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	// roleARN is every team's execution role.
	roleARN = "arn:aws:iam::123456789012:role/trainq-sagemaker"
	// timeoutSeconds is the function timeout the emulator gives the
	// re-router: short, so that a hung call is cut by the run's own
	// deadline rather than by the 15-second call timeout.
	timeoutSeconds = "5"
	// maxLine is what CloudWatch Logs keeps in one event.
	maxLine = 256 * 1024
)

// TestHostileAnswersUnderTheEmulator runs the real bootstrap under the
// Lambda Runtime Interface Emulator against a fake Batch endpoint that
// answers oddly: a call that hangs, descriptions with megabytes of status
// reason and tags, listings and snapshots that are no JSON. Each run must
// answer before its timeout, never panic, and write no line CloudWatch Logs
// would split.
func TestHostileAnswersUnderTheEmulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bootstrap and the emulator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fn, err := lambdatest.BuildFunction(ctx, t.TempDir(), lambdatest.RerouterPackage)
	if err != nil {
		t.Fatal(err)
	}
	p, err := platformfile.LoadFile("../../reroute/testdata/platform.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := lambdatest.WritePlatform(fn.Dir, p); err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("é", 1<<20)
	for _, c := range []struct {
		name  string
		setup func(s *batchtest.Server) (release func())
		fails bool
	}{
		{"a description that never answers", func(s *batchtest.Server) func() {
			hold := make(chan struct{})
			s.Script("DescribeServiceJob", batchtest.Fault{Release: hold})
			return func() { close(hold) }
		}, false},
		{"megabytes of status reason, name and tags", func(s *batchtest.Server) func() {
			prio, team := 550, "alpha"
			s.Add(batchtest.Job{Request: batchtest.SubmitRequest{JobName: "j-" + huge, JobQueue: queueARN,
				ServiceRequestPayload: `{"ResourceConfig":{"InstanceCount":1,"InstanceType":"` + huge + `"}}`, SchedulingPriority: &prio, QuotaShareName: &team,
				Tags: map[string]string{contract.TagPlatform: "trainq", contract.TagClass: huge, contract.TagMoves: huge}},
				Status: "RUNNABLE", StatusReason: "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - " + huge, CreatedAt: time.Now().Add(-time.Hour).UnixMilli()})
			return nil
		}, false},
		{"a listing that is no JSON", func(s *batchtest.Server) func() {
			s.Handle("ListServiceJobs", func([]byte) (int, any) { return 200, huge })
			return nil
		}, true},
		{"a snapshot with odd quantities", func(s *batchtest.Server) func() {
			s.Handle("GetJobQueueSnapshot", func([]byte) (int, any) {
				return 200, map[string]any{"queueUtilization": map[string]any{"totalCapacityUsage": []any{
					map[string]any{"capacityUnit": huge, "quantity": -1}, map[string]any{"capacityUnit": "ml.p5.48xlarge", "quantity": 1e308}}}}
			})
			return nil
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := batchtest.New(0)
			defer fake.Close()
			prio, team := 550, "alpha"
			fake.Add(batchtest.Job{Request: batchtest.SubmitRequest{JobName: "ok-1a2b3c4d", JobQueue: queueARN,
				ServiceRequestPayload: `{"ResourceConfig":{"InstanceCount":1,"InstanceType":"ml.p5.48xlarge"}}`, SchedulingPriority: &prio, QuotaShareName: &team,
				Tags: map[string]string{contract.TagPlatform: "trainq", contract.TagClass: "research"}}, Status: "RUNNABLE", CreatedAt: time.Now().Add(-time.Hour).UnixMilli()})
			if release := c.setup(fake); release != nil {
				defer release()
			}
			e, err := fn.Start(ctx, contract.EnvJobQueue+"="+queueARN, contract.EnvExecutionRoleARN+"="+roleARN, "AWS_ENDPOINT_URL_BATCH="+fake.URL,
				"AWS_LAMBDA_FUNCTION_NAME=trainq-rerouter", "AWS_LAMBDA_FUNCTION_TIMEOUT="+timeoutSeconds)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			inv, err := e.Call(ctx, []byte(`{"source":"aws.events"}`))
			if err != nil {
				t.Fatal(err)
			}
			body := string(inv.Body)
			if strings.Contains(body, "Task timed out") || strings.Contains(string(inv.Log), "panic") {
				t.Fatalf("the run timed out or panicked: %.2000s\n%.4000s", body, inv.Log)
			}
			if failed := strings.Contains(body, `"errorType"`); failed != c.fails {
				t.Errorf("answer %.2000s: failed %v, want %v", body, failed, c.fails)
			} else if failed && !strings.Contains(body, `"errorType":"UpstreamError"`) {
				t.Errorf("answer %.2000s, want errorType UpstreamError (contract.KindUpstream)", body)
			}
			if len(inv.Body) > contract.MaxLoggedChars*8 {
				t.Errorf("answer of %d bytes", len(inv.Body))
			}
			for i, line := range bytes.Split(inv.Log, []byte("\n")) {
				if len(line) > maxLine {
					t.Errorf("log line %d has %d bytes, more than CloudWatch Logs keeps in one event", i, len(line))
				}
			}
			if !bytes.Contains(inv.Log, []byte(`"_aws"`)) {
				t.Errorf("no metric line:\n%.4000s", inv.Log)
			}
		})
	}
}
