package submit_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

const (
	testQueue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	testRole  = "arn:aws:iam::123456789012:role/trainq-sagemaker"
	testFunc  = "arn:aws:lambda:us-east-1:123456789012:function:trainq-submit"
)

// fastPolicy retries like production but with short waits, so that tests
// of throttling stay quick.
var fastPolicy = submit.RetryPolicy{MaxAttempts: 4, MaxBackoff: 5 * time.Millisecond, AttemptTimeout: 2 * time.Second}

// batchClient is the real SDK client pointed at the fake.
func batchClient(fake *batchtest.Server, policy submit.RetryPolicy) *batch.Client {
	cfg := aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(fake.URL),
	}
	return submit.NewBatchClient(cfg, policy)
}

// newHandler builds a handler for p (the default platform when nil) over
// the real SDK talking to fake.
func newHandler(t *testing.T, p *platform.Platform, fake *batchtest.Server, policy submit.RetryPolicy) *submit.Handler {
	t.Helper()
	return newHandlerWith(t, p, fake, policy, func(*submit.Config) {})
}

// newHandlerWith is newHandler with the config changed by edit.
func newHandlerWith(t *testing.T, p *platform.Platform, fake *batchtest.Server, policy submit.RetryPolicy, edit func(*submit.Config)) *submit.Handler {
	t.Helper()
	if p == nil {
		p = platform.Default()
	}
	p = declareFixtures(p)
	cfg := testConfig(p, batchClient(fake, policy))
	edit(&cfg)
	h, err := submit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// declareFixtures returns p, when it declares no training locations, with
// those the tests' payloads use declared as a platform file would
// (training.s3Write, training.ecrRepositories), so that the door's reach
// lets them through; the reach itself is tested in package door and
// test/door.
func declareFixtures(p *platform.Platform) *platform.Platform {
	if len(p.Training.S3Read)+len(p.Training.S3Write)+len(p.Training.ECRRepositories) > 0 {
		return p
	}
	c := *p
	c.Training.S3Write = []string{"s3://ml-artifacts/", "s3://a/", "s3://b/", "s3://bucket/", "s3://artifacts/", "s3://trainq-artifacts-0123/"}
	c.Training.ECRRepositories = []string{"trainer", "train", "ranker"}
	return &c
}

// testConfig is the tests' handler configuration for p over b: callers are
// verified by the loopback STS, operatorRole is the operator, and each
// alias's pipeline role (aliasRole) is granted exactly the alias's pair, as
// GrantSubmit records it.
func testConfig(p *platform.Platform, b submit.BatchAPI) submit.Config {
	g := ststest.Grants(p)
	cfg := submit.Config{Platform: p, JobQueue: testQueue, ExecutionRoleARN: testRole, Batch: b,
		Identity: &submit.STSVerifier{Endpoint: testSTS.URL}, Operators: g.Operators}
	for _, s := range g.Submitters {
		cfg.Submitters = append(cfg.Submitters, platform.Submitter{RoleARN: s.RoleARN, Classes: []string{s.Class}, Teams: []string{s.Team}})
	}
	return cfg
}

// invocation is the Lambda context of one invocation: alias ("" for
// unqualified) and request id.
func invocation(alias, requestID string) context.Context {
	arn := testFunc
	if alias != "" {
		arn += ":" + alias
	}
	return lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: requestID, InvokedFunctionArn: arn})
}

// testSTS verifies callers' signatures (TestMain starts it).
var testSTS *ststest.Server

// operatorRole is the tests' operator (submission.operators).
const operatorRole = ststest.OperatorRole

// aliasRole is the pipeline role the tests grant alias's pair.
func aliasRole(alias string) string { return ststest.AliasRole(alias) }

// session is a session of role that the loopback STS knows.
func session(role string) ststest.Principal {
	p := ststest.Session(role, "test-session")
	testSTS.Add(p)
	return p
}

// signed is payload as principal p sends it to the function of ctx: wrapped
// with p's signed identity (client.Sign, the CLI's signer).
func signed(t testing.TB, ctx context.Context, p ststest.Principal, payload []byte) []byte {
	t.Helper()
	function := testFunc
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		function = lc.InvokedFunctionArn
	}
	return testSTS.Sign(t, p, function, payload)
}

// callerOf is who the tests invoke as: the alias's pipeline role through an
// alias, the operator unqualified (ststest.CallerOf).
func callerOf(ctx context.Context) ststest.Principal {
	q := ""
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		if parts := strings.Split(lc.InvokedFunctionArn, ":"); len(parts) == 8 {
			q = parts[7]
		}
	}
	return testSTS.CallerOf(q)
}

// invoke runs payload, signed by the caller of ctx (callerOf), through the
// Lambda library's decode/encode path.
func invoke(t *testing.T, ctx context.Context, h *submit.Handler, payload []byte) (contract.Response, *messages.InvokeResponse_Error) {
	t.Helper()
	return invokeRaw(t, ctx, h, signed(t, ctx, callerOf(ctx), payload))
}

// invokeRaw runs payload as it is through the Lambda library's decode/encode
// path.
func invokeRaw(t *testing.T, ctx context.Context, h *submit.Handler, payload []byte) (contract.Response, *messages.InvokeResponse_Error) {
	t.Helper()
	out, err := lambda.NewHandler(h).Invoke(ctx, payload)
	if err != nil {
		var fe messages.InvokeResponse_Error
		if !errors.As(err, &fe) {
			t.Fatalf("invoke returned %T %v, want a function error", err, err)
		}
		return contract.Response{}, &fe
	}
	var resp contract.Response
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("decode answer %s: %v", out, err)
	}
	return resp, nil
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// problemFields lists the fields a function error's message names, one
// per "  - field: got ..." line, sorted.
func problemFields(msg string) []string {
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if f, ok := strings.CutPrefix(line, "- "); ok {
			field, _, _ := strings.Cut(f, ": got ")
			out = append(out, field)
		}
	}
	sort.Strings(out)
	return out
}

// submitted decodes the SubmitServiceJob bodies the fake received.
func submitted(t *testing.T, fake *batchtest.Server) []batchtest.SubmitRequest {
	t.Helper()
	var out []batchtest.SubmitRequest
	for _, c := range fake.Calls("SubmitServiceJob") {
		var r batchtest.SubmitRequest
		if err := json.Unmarshal(c.Body, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func intp(v int) *int       { return &v }
func strp(v string) *string { return &v }

// newFake starts a fake Batch endpoint labelled with the test's name, so
// that the check against AWS's service models (TestMain) names the test that
// sent a faulty request. Close it when done.
func newFake(t testing.TB) *batchtest.Server {
	fake := batchtest.New(0)
	fake.SetLabel(t.Name())
	return fake
}
