package reroute_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/reroute"
)

// TestInvokeThroughTheLambdaLibrary runs a scheduled event (testdata) and
// payloads that are no event at all through the Lambda library's decode
// and encode path: the payload is ignored, the answer is the summary.
func TestInvokeThroughTheLambdaLibrary(t *testing.T) {
	event, err := os.ReadFile("testdata/scheduled-event.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, payload := range [][]byte{event, []byte(`null`), []byte(`"not an event"`), []byte(`[1,2,3]`)} {
		e := newEnv(t, nil)
		e.use(saturatedP5)
		e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
		out, err := lambda.NewHandler(e.r.Handle).Invoke(context.Background(), payload)
		if err != nil {
			t.Fatalf("payload %s: %v", payload, err)
		}
		var got reroute.Summary
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(reroute.Summary{Moved: 1}, got); diff != "" {
			t.Errorf("payload %s (-want +got):\n%s", payload, diff)
		}
	}
}

// TestAFailedRunAnswersUpstreamError: when AWS Batch fails the listing of
// the runnable jobs (three server errors, every attempt), the invocation
// fails with errorType UpstreamError (contract.KindUpstream, documented in
// docs/rerouting.md), not the name of a Go type, and a message that names
// the listing.
func TestAFailedRunAnswersUpstreamError(t *testing.T) {
	e := newEnv(t, nil)
	e.fake.Script("ListServiceJobs", batchtest.ServerError, batchtest.ServerError, batchtest.ServerError)
	_, err := lambda.NewHandler(e.r.Handle).Invoke(context.Background(), []byte(`{}`))
	var answer messages.InvokeResponse_Error
	if !errors.As(err, &answer) || answer.Type != "UpstreamError" || !strings.Contains(answer.Message, "list runnable jobs of trainq-training") {
		t.Errorf("answer %#v, want errorType UpstreamError naming the listing", err)
	}
}

// TestFairShareMode: on a fair-share queue the room of a type is the
// pool's free instances (p5 8 − 8 = 0, p4d 8 − 0 = 8), and the
// replacement keeps its shareIdentifier.
func TestFairShareMode(t *testing.T) {
	p := testPlatform(t)
	p.Scheduling.Mode = "fairshare"
	e := newEnv(t, p)
	e.fake.SetUsed(map[string]float64{p5: 8})
	team := "alpha"
	old := e.fake.Add(jobWithShareIdentifier(team))
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("summary %+v, want 1 moved", got)
	}
	s := e.submitted(t)[0]
	if s.ShareIdentifier == nil || *s.ShareIdentifier != team || s.QuotaShareName != nil || s.Tags[contract.TagReroutedFrom] != old.ID {
		t.Errorf("replacement share %v / quota share %v, want shareIdentifier %s only", s.ShareIdentifier, s.QuotaShareName, team)
	}
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "platform.json")
	if err := os.WriteFile(bad, []byte(`{"pools": "many"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{contract.EnvPlatformFile: bad, contract.EnvJobQueue: "not-an-arn"}
	_, err := reroute.LoadSettings(func(k string) string { return env[k] }, filepath.Join(dir, "bootstrap"))
	if err == nil {
		t.Fatal("a bad platform file and queue were accepted")
	}
	for _, want := range []string{bad, contract.EnvJobQueue, "not-an-arn"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	for _, want := range []string{contract.EnvExecutionRoleARN, contract.EnvExecutionRoleARNs} { // no role at all
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// As the stack sets them: beta's own role, the queue's role for the
	// rest (alpha), the artifacts bucket.
	betaRole := "arn:aws:iam::123456789012:role/trainq-sagemaker-beta"
	// The function reads the JSON the constructs bundle (testdata/platform.yaml's).
	bundled := filepath.Join(dir, "bundled.json")
	if err := os.WriteFile(bundled, testPlatform(t).JSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	env = map[string]string{contract.EnvPlatformFile: bundled, contract.EnvJobQueue: testQueue,
		contract.EnvExecutionRoleARN: testRole, contract.EnvExecutionRoleARNs: `{"beta":"` + betaRole + `"}`, contract.EnvCheckpointBucket: testBucket}
	s, err := reroute.LoadSettings(func(k string) string { return env[k] }, filepath.Join(dir, "bootstrap"))
	want := door.Env{ArtifactsBucket: testBucket, Account: "123456789012", Region: "us-east-1", // the queue ARN's
		ExecutionRoles: map[string]string{"alpha": testRole, "beta": betaRole}}
	if err != nil || s.Platform.Name != "trainq" || s.JobQueue != testQueue || !reflect.DeepEqual(s.Door, want) {
		t.Errorf("settings %+v, %v; want door %+v", s, err, want)
	}
	env[contract.EnvCheckpointBucket] = "Not_A_Bucket"
	if _, err := reroute.LoadSettings(func(k string) string { return env[k] }, filepath.Join(dir, "bootstrap")); err == nil || !strings.Contains(err.Error(), contract.EnvCheckpointBucket) {
		t.Errorf("bucket Not_A_Bucket: %v, want an error naming %s", err, contract.EnvCheckpointBucket)
	}
}
