package submitter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/lambdatest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/platform"
)

const (
	queueARN = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	roleARN  = "arn:aws:iam::123456789012:role/trainq-sagemaker"
)

// binaries are built once for the package: bootstrap (with platform.json
// next to it) and the emulator.
var bin struct{ dir, bootstrap, rie string }

// sts verifies callers' signatures as STS would (internal/ststest): the
// operator calls unqualified, each alias's pipeline role its alias
// (ststest.Grants, which start gives the function), and the keys "test"
// (the CLI's in these tests) are a session of the operator.
var sts *ststest.Server

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "trainq-submitter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// No time limit of its own: a cold build on a loaded machine takes what
	// it takes, within go test's -timeout.
	ctx := context.Background()
	bin.dir = dir
	sts = ststest.New("us-east-1")
	defer sts.Close()
	sts.Add(ststest.Principal{AccessKey: "test", Secret: "test", ARN: "arn:aws:sts::" + ststest.Account + ":assumed-role/trainq-operator/cli"})
	if bin.bootstrap, err = lambdatest.Build(ctx, lambdatest.SubmitterPackage, dir, "bootstrap"); err == nil {
		if err = lambdatest.WritePlatform(dir, nil); err == nil {
			bin.rie, err = lambdatest.Build(ctx, lambdatest.RIEPackage, dir, "aws-lambda-rie")
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "build for the end-to-end test:", err)
		return 1
	}
	return m.Run()
}

// emulator is a function under the emulator and the name (with its
// qualifier) it runs as.
type emulator struct {
	*lambdatest.Emulator
	name string
}

// start runs the bootstrap under the emulator as function name (a
// qualifier after ':' makes an alias invocation) against fake, verifying
// callers against sts with the tests' grants (extraEnv may replace them).
func start(t *testing.T, fake *batchtest.Server, name string, extraEnv ...string) *emulator {
	t.Helper()
	env := lambdatest.Env(append(append(sts.Env(platform.Default()),
		"AWS_ENDPOINT_URL_BATCH="+fake.URL,
		"AWS_LAMBDA_FUNCTION_NAME="+name,
		"LAMBDA_TASK_ROOT="+bin.dir,
		contract.EnvJobQueue+"="+queueARN,
		contract.EnvExecutionRoleARN+"="+roleARN,
	), extraEnv...)...)
	ctx, cancel := testContext(t)
	defer cancel()
	e, err := lambdatest.Start(ctx, bin.rie, bin.bootstrap, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.Close()
		if t.Failed() {
			t.Logf("emulator log:\n%s", e.Log())
		}
	})
	return &emulator{Emulator: e, name: name}
}

// answer is the emulator's answer: a job, or a function error.
type answer struct {
	contract.Response
	ErrorType    string `json:"errorType"`
	ErrorMessage string `json:"errorMessage"`
}

// invoke sends payload to e signed by the tests' caller of e's qualifier
// (sts.CallerOf).
func invoke(t *testing.T, e *emulator, payload []byte) answer {
	t.Helper()
	_, q, _ := strings.Cut(e.name, ":")
	return invokeRaw(t, e, sts.Sign(t, sts.CallerOf(q), e.name, payload))
}

// invokeRaw sends payload to e as it is.
func invokeRaw(t *testing.T, e *emulator, payload []byte) answer {
	t.Helper()
	ctx, cancel := testContext(t)
	defer cancel()
	status, body, err := e.Invoke(ctx, payload)
	if err != nil || status != 200 {
		t.Fatalf("invoke: status %d, %v, %s", status, err, body)
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("answer %s: %v", body, err)
	}
	return a
}

// emfData reads the data points of every EMF line (a JSON object with an
// "_aws" member) in an emulator log, checking each against the EMF schema.
func emfData(t *testing.T, log string) []metrics.Datum {
	t.Helper()
	var out []metrics.Datum
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "{") || !strings.Contains(line, `"_aws"`) {
			continue
		}
		ds, err := emftest.ValidateLine([]byte(line))
		if err != nil {
			t.Fatalf("log line is not valid EMF: %v\n%s", err, line)
		}
		out = append(out, ds...)
	}
	return out
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "submit", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBootstrapUnderTheEmulator(t *testing.T) {
	fake := batchtest.New(0)
	defer fake.Close()
	e := start(t, fake, "trainq-submit")

	t.Run("a good request creates one job and answers with it", func(t *testing.T) {
		a := invoke(t, e, fixture(t, "submit-minimal.json"))
		if a.ErrorType != "" {
			t.Fatalf("%s: %s", a.ErrorType, a.ErrorMessage)
		}
		jobs := fake.Jobs()
		if len(jobs) != 1 || a.JobID != jobs[0].ID {
			t.Fatalf("answered %q, jobs %+v: want the one job created", a.JobID, jobs)
		}
		r := jobs[0].Request
		// research band 500-599, default priority 50: 500 + 50*99/99 = 550.
		if *r.SchedulingPriority != 550 || *r.QuotaShareName != "search-ranking" || r.JobQueue != queueARN {
			t.Errorf("wire request priority %d share %q queue %q, want 550 search-ranking %s",
				*r.SchedulingPriority, *r.QuotaShareName, r.JobQueue, queueARN)
		}
		call := fake.Calls("SubmitServiceJob")[0]
		if auth := call.Header.Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=test/") {
			t.Errorf("Authorization %q, want a SigV4 signature with the environment's credentials", auth)
		}
	})

	t.Run("a bad request is a ValidationError naming every problem", func(t *testing.T) {
		before := len(fake.Calls(""))
		a := invoke(t, e, fixture(t, "bad-everything.json"))
		if a.ErrorType != "ValidationError" || strings.Count(a.ErrorMessage, "\n  - ") < 10 {
			t.Errorf("got %s: %s; want a ValidationError with all its problems", a.ErrorType, a.ErrorMessage)
		}
		if n := len(fake.Calls("")); n != before {
			t.Errorf("%d Batch calls for a bad request, want none", n-before)
		}
	})

	t.Run("the function's log holds one EMF line per request: the job submitted, the validation error", func(t *testing.T) {
		// Both requests above have been answered; their lines were written
		// before the answers but reach the log through a pipe: wait for
		// them (bounded).
		var ds []metrics.Datum
		waitFor(t, func() bool { ds = emfData(t, e.Log()); return len(ds) >= 6 })
		q := "Queue=trainq-training"
		for _, key := range []string{
			"trainq/JobsSubmitted{Class=research," + q + ",Team=search-ranking}",
			"trainq/SubmissionErrors{ErrorType=ValidationError," + q + "}",
		} {
			if got := emftest.Values(ds)[key]; len(got) != 1 || got[0] != 1 {
				t.Errorf("%s: got %v, want one line with value 1\nlog:\n%s", key, got, e.Log())
			}
		}
	})

	t.Run("throttling and a lost answer are retried by the real binary without a duplicate", func(t *testing.T) {
		fake.Script("SubmitServiceJob", batchtest.Throttle, batchtest.Fault{LoseAnswer: true})
		before := len(fake.Jobs())
		a := invoke(t, e, fixture(t, "submit-full.json"))
		if a.ErrorType != "" {
			t.Fatalf("%s: %s", a.ErrorType, a.ErrorMessage)
		}
		jobs := fake.Jobs()
		if len(jobs) != before+1 || jobs[len(jobs)-1].ID != a.JobID {
			t.Errorf("%d new jobs, answered %q: want exactly one, the one answered", len(jobs)-before, a.JobID)
		}
	})

	t.Run("the CLI invokes the function through the SDK, signed", func(t *testing.T) {
		// The emulator serves one function, named "function" in its path:
		// the function runs under that name too, the name the CLI signs for.
		e := start(t, fake, "function")
		t.Setenv("AWS_ENDPOINT_URL_LAMBDA", e.URL)
		t.Setenv(contract.EnvSTSEndpoint, sts.URL)
		t.Setenv("AWS_ACCESS_KEY_ID", "test")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
		t.Setenv("AWS_REGION", "us-east-1")
		t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
		t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
		file := filepath.Join(t.TempDir(), "request.json")
		if err := os.WriteFile(file, fixture(t, "submit-minimal.json"), 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		// The emulator serves one function, named "function"; it ignores
		// the alias qualifier, so the class travels in the payload too.
		err := client.Run(context.Background(), "submit", []string{"--function", "function", "--file", file, "--priority", "0", "--output", "json"}, &out, os.Stderr)
		if err != nil {
			t.Fatal(err)
		}
		var resp contract.Response
		if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
			t.Fatalf("output %s: %v", out.String(), err)
		}
		// research band starts at 500; priority 0 maps to 500.
		if resp.SchedulingPriority != 500 || resp.JobID == "" {
			t.Errorf("answer %+v, want a job at scheduling priority 500", resp)
		}
		out.Reset()
		if err := client.Run(context.Background(), "status", []string{"--function", "function", "--unqualified", resp.JobID}, &out, os.Stderr); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "SUBMITTED") {
			t.Errorf("status output lacks SUBMITTED:\n%s", out.String())
		}
	})

	t.Run("the AWS CLI's plain invocation is refused", func(t *testing.T) {
		if _, err := os.Stat("/usr/bin/aws"); err != nil {
			t.Skip("/usr/bin/aws missing: apt-get install -y awscli to run this check")
		}
		out := filepath.Join(t.TempDir(), "out.json")
		cmd := exec.Command("/usr/bin/aws", "lambda", "invoke", "--endpoint-url", e.URL, "--function-name", "function",
			"--cli-binary-format", "raw-in-base64-out", "--payload", string(fixture(t, "submit-alias.json")), out)
		cmd.Env = lambdatest.Env("AWS_DEFAULT_REGION=us-east-1", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("aws lambda invoke: %v\n%s", err, b)
		}
		b, _ := os.ReadFile(out)
		var a answer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		// A plain invocation carries no identity: refused, saying how to call.
		if a.ErrorType != "Forbidden" || !strings.Contains(a.ErrorMessage, "no caller identity") {
			t.Errorf("got %s: %s; want Forbidden: no caller identity", a.ErrorType, a.ErrorMessage)
		}
	})
}

func TestAliasInvocationTakesTheClassFromTheAlias(t *testing.T) {
	fake := batchtest.New(0)
	defer fake.Close()
	// The emulator builds the invoked ARN from AWS_LAMBDA_FUNCTION_NAME:
	// arn:aws:lambda:us-east-1:012345678912:function:trainq-submit:production-search-ranking.
	e := start(t, fake, "trainq-submit:production-search-ranking")
	a := invoke(t, e, fixture(t, "submit-alias.json"))
	if a.ErrorType != "" || a.Class != "production" || a.Team != "search-ranking" {
		t.Fatalf("got class %q team %q, %s %s; want production and search-ranking from the alias", a.Class, a.Team, a.ErrorType, a.ErrorMessage)
	}
	a = invoke(t, e, fixture(t, "submit-minimal.json"))
	if a.ErrorType != "Forbidden" {
		t.Errorf("research through the production alias: got %q %s, want Forbidden", a.ErrorType, a.ErrorMessage)
	}
}

func TestInitFailsWithAClearMessage(t *testing.T) {
	fake := batchtest.New(0)
	defer fake.Close()
	e := start(t, fake, "trainq-submit", contract.EnvJobQueue+"=not-an-arn")
	ctx, cancel := testContext(t)
	defer cancel()
	_, body, err := e.Invoke(ctx, fixture(t, "submit-minimal.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), `"jobId"`) {
		t.Errorf("a misconfigured function answered %s", body)
	}
	// The variable is set twice; the emulator's environment keeps the
	// last, so the bad value is what the function sees.
	waitFor(t, func() bool { return strings.Contains(e.Log(), "not-an-arn") })
	if log := e.Log(); !strings.Contains(log, contract.EnvJobQueue+`: got "not-an-arn"`) {
		t.Errorf("log lacks the message naming %s and its value:\n%s", contract.EnvJobQueue, log)
	}
}

// testContext ends when the test binary's deadline (go test -timeout) is
// near, leaving time to report: the tests set no time limit of their own,
// so a slow machine is slow, not failing.
func testContext(t *testing.T) (context.Context, context.CancelFunc) {
	if d, ok := t.Deadline(); ok {
		return context.WithDeadline(context.Background(), d.Add(-30*time.Second))
	}
	return context.WithCancel(context.Background())
}

// waitFor polls cond until it holds or the test's deadline is near, and
// then lets the caller's assertions report what was seen.
func waitFor(t *testing.T, cond func() bool) {
	ctx, cancel := testContext(t)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestTheBinaryGivesCheckpointsFromItsEnvironment: the deployed function
// reads the checkpoint bucket from TRAINQ_CHECKPOINT_BUCKET (which the
// Submitter construct sets to the artifacts bucket) and gives a research
// job — a class with checkpoints in the embedded default platform — a
// CheckpointConfig under its team's prefix, named after the Batch job.
func TestTheBinaryGivesCheckpointsFromItsEnvironment(t *testing.T) {
	fake := batchtest.New(0)
	defer fake.Close()
	e := start(t, fake, "trainq-submit", contract.EnvCheckpointBucket+"=trainq-artifacts-0123")
	a := invoke(t, e, fixture(t, "submit-minimal.json"))
	if a.ErrorType != "" {
		t.Fatalf("%s: %s", a.ErrorType, a.ErrorMessage)
	}
	jobs := fake.Jobs()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	var payload struct {
		CheckpointConfig *struct{ S3Uri string }
	}
	if err := json.Unmarshal([]byte(jobs[0].Request.ServiceRequestPayload), &payload); err != nil {
		t.Fatal(err)
	}
	// docs/platform.md: s3://ARTIFACTS/<team>/checkpoints/<job name>/, the
	// job name being the Batch job's (the request's name and its suffix).
	want := "s3://trainq-artifacts-0123/search-ranking/checkpoints/" + jobs[0].Request.JobName + "/"
	if payload.CheckpointConfig == nil || payload.CheckpointConfig.S3Uri != want {
		t.Errorf("CheckpointConfig %+v, want S3Uri %s", payload.CheckpointConfig, want)
	}
	if !strings.HasPrefix(jobs[0].Request.JobName, "bert-base-") {
		t.Errorf("job name %q, want bert-base and its suffix", jobs[0].Request.JobName)
	}
}
