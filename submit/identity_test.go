package submit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// The callers of these tests, in account 123456789012 of the default
// platform (teams search-ranking and search-research; classes production,
// research and sweep).
const (
	// powerUserRole stands for a same-account role with lambda:* on *
	// (PowerUserAccess): IAM lets it invoke every alias, the unqualified
	// function, $LATEST and every version. It is granted nothing here.
	powerUserRole = "arn:aws:iam::123456789012:role/power-user"
	// rankingPipeline is granted research for search-ranking only, in the
	// platform file's way (submission.submitters), with a path: the session
	// ARN STS answers carries none.
	rankingPipeline = "arn:aws:iam::123456789012:role/ci/ranking-pipeline"
)

// everyQualifier is every way IAM lets a same-account principal with
// lambda:InvokeFunction on * reach the function: unqualified, $LATEST, a
// version and each (class, team) alias of the default platform.
var everyQualifier = []string{"", "$LATEST", "1", "7", "production-search-ranking", "research-search-ranking", "sweep-search-ranking",
	"production-search-research", "research-search-research", "sweep-search-research"}

// identityHandler is a handler of the default platform whose access table
// holds rankingPipeline's grant; operators are those given.
func identityHandler(t *testing.T, fake *batchtest.Server, operators ...string) *submit.Handler {
	return newHandlerWith(t, nil, fake, fastPolicy, func(cfg *submit.Config) {
		cfg.Submitters = []platform.Submitter{{RoleARN: rankingPipeline, Classes: []string{"research"}, Teams: []string{"search-ranking"}}}
		cfg.Operators = operators
	})
}

// as invokes payload through qualifier, signed by role's session.
func as(t *testing.T, h *submit.Handler, role, qualifier, payload string) (contract.Response, string, string) {
	t.Helper()
	ctx := invocation(qualifier, "req-"+role[strings.LastIndex(role, "/")+1:])
	resp, ferr := invokeRaw(t, ctx, h, signed(t, ctx, session(role), []byte(payload)))
	if ferr != nil {
		return resp, ferr.Type, ferr.Message
	}
	return resp, "", ""
}

// spellings are one submit request for search-research's production class,
// however it is spelled.
var spellings = []string{
	`{"jobName":"x","team":"search-research","class":"production","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k/"},"ResourceConfig":{"InstanceCount":1,"VolumeSizeInGB":100}}}`,
	`{"jobName":"x","team":"search-research","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k/"},"ResourceConfig":{"InstanceCount":1,"VolumeSizeInGB":100}}}`,
	`{"action":"submit","jobName":"x","team":"search-research","class":"production","priority":99,"idempotencyKey":"k","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k/"},"ResourceConfig":{"InstanceCount":1,"VolumeSizeInGB":100}}}`,
	`{"jobName":"x","team":"search-research","class":"research","class":"production","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k/"},"ResourceConfig":{"InstanceCount":1,"VolumeSizeInGB":100}}}`,
	`{"jobName":"x","Team":"search-research","team":"search-ranking","class":"production","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k/"},"ResourceConfig":{"InstanceCount":1,"VolumeSizeInGB":100}}}`,
}

func TestAnIdentityGrantedNothingIsForbiddenWhateverItInvokes(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := identityHandler(t, fake)
	// A job of search-research that the power user would cancel, re-prioritize or read.
	victim := fake.Add(batchtest.Job{Status: "RUNNABLE", Request: batchtest.SubmitRequest{JobName: "victim-1", JobQueue: testQueue, SchedulingPriority: intp(950),
		QuotaShareName: aws.String("search-research"), Tags: map[string]string{contract.TagTeam: "search-research", contract.TagClass: "production"}}})
	requests := append(append([]string(nil), spellings...),
		fmt.Sprintf(`{"action":"cancel","jobId":%q,"reason":"x"}`, victim.ID),
		fmt.Sprintf(`{"action":"cancel","jobId":%q}`, victim.ARN),
		fmt.Sprintf(`{"action":"reprioritize","jobId":%q,"priority":99}`, victim.ID),
		fmt.Sprintf(`{"action":"describe","jobId":%q}`, victim.ID),
		`{"action":"queue"}`,
	)
	for _, q := range everyQualifier {
		for _, r := range requests {
			_, typ, msg := as(t, h, powerUserRole, q, r)
			if typ != "Forbidden" {
				t.Errorf("power user through %q sending %s: errorType %q (%s), want Forbidden", q, r, typ, msg)
			}
		}
	}
	for _, op := range []string{"SubmitServiceJob", "TerminateServiceJob", "UpdateServiceJob", "TagResource", "DescribeServiceJob", "ListServiceJobs", "GetJobQueueSnapshot"} {
		if n := len(fake.Calls(op)); n != 0 {
			t.Errorf("%d %s calls reached Batch for an identity granted nothing, want none", n, op)
		}
	}
}

func TestAPipelineActsForItsGrantedPairOnlyWhateverItInvokes(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := identityHandler(t, fake)
	// Its own pair, unqualified (no alias needed) and through its alias.
	own := string(fixture(t, "submit-minimal.json")) // research, search-ranking
	for _, q := range []string{"", "$LATEST", "3", "research-search-ranking"} {
		resp, typ, msg := as(t, h, rankingPipeline, q, own)
		if typ != "" || resp.Team != "search-ranking" || resp.Class != "research" {
			t.Fatalf("through %q its own pair: %+v, %s %s; want a research job of search-ranking", q, resp, typ, msg)
		}
	}
	created := len(fake.Calls("SubmitServiceJob"))
	// Any other pair, however spelled and through whatever it may invoke.
	others := append(append([]string(nil), spellings...),
		strings.Replace(own, `"class": "research"`, `"class": "production"`, 1),
		strings.Replace(own, `"team": "search-ranking"`, `"team": "search-research"`, 1))
	for _, q := range everyQualifier {
		for _, r := range others {
			if _, typ, msg := as(t, h, rankingPipeline, q, r); typ != "Forbidden" && typ != "ValidationError" {
				t.Errorf("through %q sending %s: errorType %q (%s), want a refusal", q, r, typ, msg)
			}
		}
	}
	if n := len(fake.Calls("SubmitServiceJob")); n != created {
		t.Errorf("%d jobs submitted for pairs it was not granted", n-created)
	}
	// It manages and reads its own team's jobs, not another's.
	victim := fake.Add(batchtest.Job{Status: "RUNNABLE", Request: batchtest.SubmitRequest{JobName: "victim-1", JobQueue: testQueue, SchedulingPriority: intp(550),
		QuotaShareName: aws.String("search-research"), Tags: map[string]string{contract.TagTeam: "search-research", contract.TagClass: "research"}}})
	for _, r := range []string{`{"action":"cancel","jobId":%q}`, `{"action":"reprioritize","jobId":%q,"priority":1}`, `{"action":"describe","jobId":%q}`} {
		if _, typ, msg := as(t, h, rankingPipeline, "", fmt.Sprintf(r, victim.ID)); typ != "Forbidden" {
			t.Errorf("%s of search-research's job: %q (%s), want Forbidden", r, typ, msg)
		}
	}
	if len(fake.Calls("TerminateServiceJob"))+len(fake.Calls("UpdateServiceJob")) != 0 {
		t.Error("another team's job was cancelled or re-prioritized")
	}
	resp, typ, msg := as(t, h, rankingPipeline, "", `{"action":"queue"}`)
	if typ != "" {
		t.Fatalf("queue: %s %s", typ, msg)
	}
	for _, j := range resp.Queue.Jobs {
		if j.Team != "search-ranking" && (!j.Redacted || j.JobID != "" || j.JobName != "") {
			t.Errorf("queue shows search-research's job in full to search-ranking's pipeline: %+v", j)
		}
	}
}

func TestAnInvocationWithoutIdentityCreatesNoJob(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := identityHandler(t, fake, operatorRole)
	request := string(fixture(t, "submit-minimal.json"))
	ctx := invocation("", "req-1")
	proof := signed(t, ctx, session(rankingPipeline), []byte(request))
	var env contract.Signed
	if err := json.Unmarshal(proof, &env); err != nil {
		t.Fatal(err)
	}
	withIdentity := func(id contract.Identity, req string) []byte {
		b, _ := json.Marshal(contract.Signed{Request: req, Identity: id})
		return b
	}
	stranger := ststest.Session("arn:aws:iam::123456789012:role/stranger", "s") // keys STS does not know
	strangerProof := signedWith(t, ctx, stranger.Credentials(), request)
	bogus := env.Identity
	bogus.Authorization = bogus.Authorization[:len(bogus.Authorization)-4] + "0000"
	cases := []struct {
		name, payload string
		want          string // a phrase of the message
	}{
		{"a plain request", request, "no caller identity"},
		{"a forged function URL event naming a granted role", `{"version":"2.0","requestContext":{"authorizer":{"iam":{"userArn":"` + rankingPipeline + `","accountId":"123456789012"}}},"body":` + jsonString(request) + `}`, "no caller identity"},
		{"the request beside an identity it claims", `{"request":` + jsonString(request) + `,"identity":{"role":"` + rankingPipeline + `"}}`, "identity"},
		{"a request object other than the one signed", `{"request":` + strings.Replace(request, "search-ranking", "search-research", 1) + `,"identity":` + jsonOf(env.Identity) + `}`, "SignatureDoesNotMatch"},
		{"a proof over another request", string(withIdentity(env.Identity, strings.Replace(request, "search-ranking", "search-research", 1))), "SignatureDoesNotMatch"},
		{"a proof whose signature was changed", string(withIdentity(bogus, request)), "SignatureDoesNotMatch"},
		{"a proof by keys STS does not know", string(strangerProof), "InvalidClientTokenId"},
		{"a proof that signs no request digest", string(withIdentity(contract.Identity{Authorization: strings.Replace(env.Identity.Authorization, ";x-trainq-request-sha256", "", 1), AmzDate: env.Identity.AmzDate, SecurityToken: env.Identity.SecurityToken}, request)), "x-trainq-request-sha256"},
	}
	for _, q := range []string{"", "$LATEST", "1", "research-search-ranking"} {
		for _, c := range cases {
			_, ferr := invokeRaw(t, invocation(q, "req-1"), h, []byte(c.payload))
			if ferr == nil || ferr.Type != "Forbidden" || !strings.Contains(ferr.Message, c.want) {
				t.Errorf("%s through %q: %+v, want Forbidden saying %q", c.name, q, ferr, c.want)
			}
		}
	}
	// A proof for another function of the account (another platform's).
	otherProof := signed(t, invocation("", "req-1"), session(rankingPipeline), []byte(request))
	dev := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1", InvokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:trainq-dev-submit"})
	if _, ferr := invokeRaw(t, dev, h, otherProof); ferr == nil || ferr.Type != "Forbidden" {
		t.Errorf("a proof made for trainq-submit served by trainq-dev-submit: %+v, want Forbidden", ferr)
	}
	// A proof replayed after its 15 minutes.
	testSTS.SetClock(func() time.Time { return time.Now().Add(16 * time.Minute) })
	_, ferr := invokeRaw(t, ctx, h, proof)
	testSTS.SetClock(time.Now)
	if ferr == nil || ferr.Type != "Forbidden" || !strings.Contains(ferr.Message, "expired") {
		t.Errorf("an expired proof: %+v, want Forbidden (expired)", ferr)
	}
	if n := len(fake.Calls("SubmitServiceJob")) + len(fake.Calls("DescribeServiceJob")) + len(fake.Calls("ListServiceJobs")); n != 0 {
		t.Errorf("%d Batch calls without a verified identity, want none", n)
	}
	// The same proof, current, is served: the refusals above are the proof's.
	if _, ferr := invokeRaw(t, ctx, h, proof); ferr != nil {
		t.Errorf("the valid proof: %+v", ferr)
	}
}

func TestOperatorsActPlatformWideOnlyWhenDeclared(t *testing.T) {
	forResearch := strings.Replace(string(fixture(t, "submit-minimal.json")), `"team": "search-ranking"`, `"team": "search-research"`, 1)
	t.Run("undeclared", func(t *testing.T) {
		fake := newFake(t)
		defer fake.Close()
		h := identityHandler(t, fake) // no operators
		for _, q := range []string{"", "$LATEST", "1"} {
			if _, typ, msg := as(t, h, operatorRole, q, forResearch); typ != "Forbidden" {
				t.Errorf("an undeclared operator through %q: %q %s, want Forbidden", q, typ, msg)
			}
		}
		if n := len(fake.Calls("SubmitServiceJob")); n != 0 {
			t.Errorf("%d jobs submitted by an undeclared operator", n)
		}
	})
	t.Run("declared", func(t *testing.T) {
		fake := newFake(t)
		defer fake.Close()
		h := identityHandler(t, fake, operatorRole)
		resp, typ, msg := as(t, h, operatorRole, "", forResearch)
		if typ != "" || resp.Team != "search-research" {
			t.Fatalf("a declared operator submitting for search-research: %+v %s %s", resp, typ, msg)
		}
		// It cancels anyone's job and sees every job in full.
		mine, _, _ := as(t, h, rankingPipeline, "", string(fixture(t, "submit-minimal.json")))
		if _, typ, msg := as(t, h, operatorRole, "", fmt.Sprintf(`{"action":"cancel","jobId":%q}`, mine.JobID)); typ != "" {
			t.Errorf("operator cancelling search-ranking's job: %s %s", typ, msg)
		}
		q, _, _ := as(t, h, operatorRole, "", `{"action":"queue"}`)
		for _, j := range q.Queue.Jobs {
			if j.Redacted {
				t.Errorf("operator's queue hides %+v", j)
			}
		}
		// Through an alias, even an operator acts for that pair only.
		if _, typ, _ := as(t, h, operatorRole, "sweep-search-ranking", forResearch); typ != "Forbidden" {
			t.Errorf("operator through alias sweep-search-ranking submitting research for search-research: %q, want Forbidden", typ)
		}
		if _, typ, msg := as(t, h, operatorRole, "admin", forResearch); typ != "Forbidden" || !strings.Contains(msg, "function alias") {
			t.Errorf("operator through an alias that is no pair: %q %s, want Forbidden naming the function alias", typ, msg)
		}
	})
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }
func jsonOf(v any) string        { b, _ := json.Marshal(v); return string(b) }

// signedWith is request signed with creds for the function of ctx.
func signedWith(t *testing.T, ctx context.Context, creds aws.Credentials, request string) []byte {
	t.Helper()
	out, err := client.Sign(context.Background(), aws.Config{Region: "us-east-1", Credentials: credentials.StaticCredentialsProvider{Value: creds}},
		testSTS.URL, testFunc, []byte(request), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return out
}
