package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
)

// invocation is what the fake Lambda endpoint received.
type invocation struct {
	Path      string
	Qualifier string
	Body      map[string]any
}

// fakeLambda answers Invoke with answer (and the function-error header when
// errorType is set), recording each invocation.
func fakeLambda(t *testing.T, answer string, errorType string) *[]invocation {
	t.Helper()
	var mu sync.Mutex
	var got []invocation
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		// The CLI sends the request beside its signed identity; the
		// identity's checks are the function's (package submit's tests).
		var signed contract.Signed
		_ = json.Unmarshal(b, &signed)
		var body map[string]any
		_ = json.Unmarshal([]byte(signed.Request), &body)
		mu.Lock()
		got = append(got, invocation{Path: r.URL.Path, Qualifier: r.URL.Query().Get("Qualifier"), Body: body})
		mu.Unlock()
		if errorType != "" {
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
		}
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ENDPOINT_URL_LAMBDA", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	return &got
}

const answer = `{"jobId":"job-1","jobArn":"arn:aws:batch:us-east-1:123456789012:service-job/job-1","jobName":"bert-base-0a1b2c3d","jobQueue":"q","team":"search-ranking","class":"research","schedulingPriority":550,"instanceType":"ml.p5.48xlarge"}`

func TestSubmitInvokesTheClassAliasWithTheRequest(t *testing.T) {
	got := fakeLambda(t, answer, "")
	dir := t.TempDir()
	tj := filepath.Join(dir, "job.json")
	if err := os.WriteFile(tj, []byte(`{"AlgorithmSpecification":{"TrainingImage":"img"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := client.Run(context.Background(), "submit", []string{"--class", "research", "--team", "search-ranking",
		"--job-name", "bert-base", "--training-job", tj, "--priority", "70", "--instance-types", "ml.p5.48xlarge,ml.p4d.24xlarge",
		"--tag", "project=bert", "--output", "json"}, &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if len(*got) != 1 {
		t.Fatalf("%d invocations, want 1", len(*got))
	}
	inv := (*got)[0]
	if inv.Path != "/2015-03-31/functions/trainq-submit/invocations" || inv.Qualifier != "research-search-ranking" {
		t.Errorf("invoked %s qualifier %q, want trainq-submit (the default platform's function) through the (research, search-ranking) alias", inv.Path, inv.Qualifier)
	}
	key, _ := inv.Body["idempotencyKey"].(string)
	if !strings.HasPrefix(key, "trainq-cli-") {
		t.Errorf("idempotencyKey %q, want a generated trainq-cli-… key", key)
	}
	delete(inv.Body, "idempotencyKey")
	want := map[string]any{"action": "submit", "class": "research", "team": "search-ranking", "jobName": "bert-base",
		"priority": 70.0, "instanceTypes": []any{"ml.p5.48xlarge", "ml.p4d.24xlarge"}, "tags": map[string]any{"project": "bert"},
		"trainingJob": map[string]any{"AlgorithmSpecification": map[string]any{"TrainingImage": "img"}}}
	if diff := cmp.Diff(want, inv.Body); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	var printed map[string]any
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil || printed["jobId"] != "job-1" {
		t.Errorf("--output json printed %q, want the answer as JSON", out.String())
	}
}

func TestSubmitFromFileWithFlagOverrides(t *testing.T) {
	got := fakeLambda(t, answer, "")
	file := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(file, []byte(`{"jobName":"a","team":"search-ranking","class":"sweep","idempotencyKey":"k1","trainingJob":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := client.Run(context.Background(), "submit", []string{"--file", file, "--job-name", "b", "--function", "other-submit"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	inv := (*got)[0]
	if inv.Path != "/2015-03-31/functions/other-submit/invocations" || inv.Qualifier != "sweep-search-ranking" {
		t.Errorf("invoked %s qualifier %q, want other-submit through the alias of the file's class and team", inv.Path, inv.Qualifier)
	}
	if inv.Body["jobName"] != "b" || inv.Body["idempotencyKey"] != "k1" {
		t.Errorf("jobName %v key %v, want the flag's b and the file's k1", inv.Body["jobName"], inv.Body["idempotencyKey"])
	}
	if !strings.Contains(out.String(), "JOB ID") || !strings.Contains(out.String(), "job-1") {
		t.Errorf("table output lacks the job id:\n%s", out.String())
	}
}

// TestRequestFileIsDecodedStrictly: --file is read as the function reads a
// request (contract.DecodeRequest), so that a mistake in the file is named,
// with the file, before anything is invoked.
func TestRequestFileIsDecodedStrictly(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // what the error must mention, the file aside
	}{
		{"a misspelt field is named with the fields allowed", `{"jobNmae":"a","team":"search-ranking","class":"sweep","trainingJob":{}}`,
			[]string{"(1 problem)", `jobNmae: got an unknown field, want one of: `, "jobName"}},
		{"a value of the wrong type is named with the type wanted", `{"jobName":"a","team":"search-ranking","class":"sweep","priority":"high","trainingJob":{}}`,
			[]string{`priority: got "high", want an integer written with digits only`}},
		{"every mistake is named at once", `{"jobNmae":"a","tags":["x"],"class":"sweep"}`,
			[]string{"(2 problems)", "jobNmae: got an unknown field", "tags: got a list, want an object of string values"}},
		{"text that is not JSON is named as such", `jobName: a`,
			[]string{"request: got text that is not JSON, want a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fakeLambda(t, answer, "")
			file := filepath.Join(t.TempDir(), "request.json")
			if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := client.Run(context.Background(), "submit", []string{"--file", file}, io.Discard, io.Discard)
			if err == nil {
				t.Fatal("no error, want the file's mistakes")
			}
			// No "trainq submit: " here: bin/trainq puts it in front once.
			for _, w := range append([]string{"request file " + file}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if len(*got) != 0 {
				t.Errorf("%d invocations, want none", len(*got))
			}
		})
	}
}

func TestJobCommandsSendTheirAction(t *testing.T) {
	tests := []struct {
		name      string
		command   string
		args      []string
		want      map[string]any
		qualifier string
	}{
		{"status describes the job unqualified when asked to", "status", []string{"--unqualified", "job-1"},
			map[string]any{"action": "describe", "jobId": "job-1"}, ""},
		{"status describes the job through a class alias", "status", []string{"--class", "sweep", "--team", "search-research", "job-1"},
			map[string]any{"action": "describe", "jobId": "job-1"}, "sweep-search-research"},
		{"cancel sends the reason through the class and team's alias", "cancel", []string{"--class", "research", "--team", "search-ranking", "--reason", "oops", "job-1"},
			map[string]any{"action": "cancel", "jobId": "job-1", "reason": "oops"}, "research-search-ranking"},
		{"reprioritize sends the new priority", "reprioritize", []string{"--unqualified", "--priority", "0", "job-1"},
			map[string]any{"action": "reprioritize", "jobId": "job-1", "priority": 0.0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fakeLambda(t, answer, "")
			if err := client.Run(context.Background(), tt.command, tt.args, io.Discard, io.Discard); err != nil {
				t.Fatal(err)
			}
			inv := (*got)[0]
			if diff := cmp.Diff(tt.want, inv.Body); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if inv.Qualifier != tt.qualifier {
				t.Errorf("qualifier %q, want %q", inv.Qualifier, tt.qualifier)
			}
		})
	}
}

func TestFunctionErrorsComeBackTyped(t *testing.T) {
	fakeLambda(t, `{"errorType":"ValidationError","errorMessage":"invalid request (1 problem):\n  - team: got \"x\", want a team"}`, "ValidationError")
	err := client.Run(context.Background(), "status", []string{"--unqualified", "job-1"}, io.Discard, io.Discard)
	var fe *contract.FunctionError
	if !errors.As(err, &fe) || fe.Type != "ValidationError" || !strings.Contains(fe.Message, "team") {
		t.Fatalf("got %v, want a ValidationError FunctionError naming the team", err)
	}
}

func TestUsageAndRefusalsBeforeAnyInvocation(t *testing.T) {
	tests := []struct {
		name    string
		command string
		args    []string
		wantErr string
	}{
		{"-h prints usage and returns flag.ErrHelp", "submit", []string{"-h"}, flag.ErrHelp.Error()},
		{"submit without a class is refused", "submit", []string{"--team", "t"}, "--class is required"},
		{"status without a job id is refused", "status", []string{"--unqualified"}, "exactly one JOB_ID"},
		{"submit without a team is refused", "submit", []string{"--class", "research"}, "--team is required"},
		{"reprioritize without a priority is refused", "reprioritize", []string{"--class", "research", "--team", "search-ranking", "job-1"}, "--priority is required"},
		{"status with --class but no --team is refused", "status", []string{"--class", "research", "job-1"}, "--team are required"},
		{"an unknown output format is refused", "status", []string{"--unqualified", "--output", "yaml", "job-1"}, "--output"},
		{"status without --class or --unqualified is refused rather than invoking unqualified", "status", []string{"job-1"}, "--class and --team are required"},
		{"cancel without --class or --unqualified is refused", "cancel", []string{"job-1"}, "--unqualified"},
		{"--class and --unqualified together are refused", "cancel", []string{"--class", "research", "--team", "search-ranking", "--unqualified", "job-1"}, "exclude --unqualified"},
		{"an unknown command is refused", "delete", nil, "unknown command"},
		{"a missing platform file is refused, never replaced by the default", "status", []string{"--unqualified", "--platform", "/nonexistent/trainq.yaml", "job-1"}, "/nonexistent/trainq.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fakeLambda(t, answer, "")
			var out bytes.Buffer
			err := client.Run(context.Background(), tt.command, tt.args, &out, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if len(*got) != 0 {
				t.Errorf("%d invocations, want none", len(*got))
			}
			if errors.Is(err, flag.ErrHelp) && !strings.Contains(out.String(), "Usage: trainq submit") {
				t.Errorf("usage not printed on stdout:\n%s", out.String())
			}
		})
	}
}

// TestStatusWithoutAnEstimateStillAnswers: when the queue cannot be read
// for the estimate (here the function answers every invocation with the
// describe answer, which has no queue), status prints the job, its
// explanation and why there is no estimate, and succeeds.
func TestStatusWithoutAnEstimateStillAnswers(t *testing.T) {
	waiting := `{"jobId":"job-1","jobName":"bert-base-0a1b2c3d","team":"search-ranking","class":"research","schedulingPriority":550,"status":"RUNNABLE",` +
		`"explanation":{"reason":"pool-full","message":"The pool is full.","queueListed":0,"instanceType":"ml.p5.48xlarge","instances":2,"usage":[]}}`
	got := fakeLambda(t, waiting, "")
	var out bytes.Buffer
	if err := client.Run(context.Background(), "status", []string{"--class", "research", "--team", "search-ranking", "job-1"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"WAITING pool-full: The pool is full.", "QUEUE POSITION not among the first RUNNABLE jobs",
		"ESTIMATED START none: the function answered without a queue"} {
		if !strings.Contains(flat, want) {
			t.Errorf("status does not say %q:\n%s", want, out.String())
		}
	}
	// describe, then queue, both through the job's alias.
	if len(*got) != 2 || (*got)[0].Body["action"] != "describe" || (*got)[1].Body["action"] != "queue" || (*got)[1].Qualifier != "research-search-ranking" {
		t.Errorf("invocations %+v, want describe then queue through research-search-ranking", *got)
	}
}
