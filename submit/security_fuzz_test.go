package submit_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// recordingBatch answers like stubBatch and keeps what the handler asked of
// Batch, so that a fuzz target can check it. Its one existing job is a
// research job (priority 550) of search-ranking on the queue.
type recordingBatch struct {
	stubBatch
	mu         sync.Mutex
	submitted  []*batch.SubmitServiceJobInput
	terminated []*batch.TerminateServiceJobInput
	updated    []*batch.UpdateServiceJobInput
}

func (r *recordingBatch) SubmitServiceJob(ctx context.Context, in *batch.SubmitServiceJobInput, o ...func(*batch.Options)) (*batch.SubmitServiceJobOutput, error) {
	r.mu.Lock()
	r.submitted = append(r.submitted, in)
	r.mu.Unlock()
	return r.stubBatch.SubmitServiceJob(ctx, in, o...)
}

func (r *recordingBatch) DescribeServiceJob(context.Context, *batch.DescribeServiceJobInput, ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error) {
	return &batch.DescribeServiceJobOutput{JobId: aws.String("job-1"), JobQueue: aws.String(testQueue), SchedulingPriority: aws.Int32(550),
		QuotaShareName: aws.String("search-ranking"), Status: "RUNNABLE",
		Tags: map[string]string{contract.TagClass: "research", contract.TagTeam: "search-ranking"}}, nil
}

func (r *recordingBatch) TerminateServiceJob(_ context.Context, in *batch.TerminateServiceJobInput, _ ...func(*batch.Options)) (*batch.TerminateServiceJobOutput, error) {
	r.mu.Lock()
	r.terminated = append(r.terminated, in)
	r.mu.Unlock()
	return &batch.TerminateServiceJobOutput{}, nil
}

func (r *recordingBatch) UpdateServiceJob(_ context.Context, in *batch.UpdateServiceJobInput, _ ...func(*batch.Options)) (*batch.UpdateServiceJobOutput, error) {
	r.mu.Lock()
	r.updated = append(r.updated, in)
	r.mu.Unlock()
	return &batch.UpdateServiceJobOutput{}, nil
}

// fuzzAliases are the qualifiers a fuzzed invocation may come through: none,
// (class, team) aliases of each class and of both teams, $LATEST, a version,
// a bare class (no longer an alias) and an alias that is nothing.
var fuzzAliases = []string{"", "production-search-ranking", "research-search-ranking", "sweep-search-ranking", "research-search-research",
	"$LATEST", "7", "admin", "research"}

// FuzzSecurityInvariants feeds arbitrary requests through the Lambda decode
// path, through (class, team) aliases, and checks what reached Batch against
// the submitter's security invariants, whatever the request said:
//
//   - the class and team of the alias are never escaped: through an alias, a
//     submitted job is tagged with its class and team, and a job of another
//     class or team is never cancelled or re-prioritized;
//   - the scheduling priority stays in the band of the job's class;
//   - the team is a team of the platform, and the share, the team tag and
//     the answer agree (quota mode: quotaShareName, never shareIdentifier);
//   - the execution role and the queue are pinned: the payload's RoleArn is
//     the platform's role, and no other member of the payload names a role
//     (SageMaker's model refuses unknown members, whatever their case);
//   - trainq's own tags are trainq's: team, class, token (the clientToken)
//     and platform, never overridden by the caller's;
//   - retries, runtime and instance type stay within the class and the pool,
//     and the payload within Batch's 10 KiB.
func FuzzSecurityInvariants(f *testing.F) {
	for _, fx := range []string{"submit-minimal.json", "submit-full.json", "submit-alias.json", "bad-role.json"} {
		f.Add(uint8(2), fixture(f, fx))
	}
	for _, seed := range []string{
		`{"jobName":"a","team":"search-ranking","class":"production","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k"}}}`,
		`{"jobName":"a","team":"search-ranking","class":"research","class":"production","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k"}}}`,
		`{"jobName":"a","team":"search-ranking","Class":"production","trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k"}}}`,
		`{"jobName":"a","team":"search-ranking","tags":{"trainq:class":"production","Trainq:team":"x"},"trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k"}}}`,
		`{"jobName":"a","team":"search-ranking","priority":99,"trainingJob":{"roleArn":"arn:aws:iam::999999999999:role/admin","OutputDataConfig":{"S3OutputPath":"s3://b/k"}}}`,
		`{"jobName":"a","team":"search-ranking","trainingJob":{"RoleArn":"arn:aws:iam::123456789012:role/trainq-sagemaker","RoleArn":"arn:aws:iam::999999999999:role/admin","OutputDataConfig":{"S3OutputPath":"s3://b/k"}}}`,
		`{"jobName":"a","team":"search-ranking","priority":-1,"retries":99,"maxRuntimeSeconds":99999999,"trainingJob":{"OutputDataConfig":{"S3OutputPath":"s3://b/k"},"StoppingCondition":{"MaxRuntimeInSeconds":99999999}}}`,
		`{"action":"reprioritize","jobId":"job-1","priority":99,"class":"production"}`,
		`{"action":"cancel","jobId":"arn:aws:batch:us-east-1:123456789012:service-job/job-1"}`,
		`{"action":"reprioritize","jobId":"job-1","priority":1e9}`,
	} {
		for i := range fuzzAliases {
			f.Add(uint8(i), []byte(seed))
		}
	}
	p := platform.Default()
	f.Fuzz(func(t *testing.T, alias uint8, payload []byte) {
		rec := &recordingBatch{}
		h, err := submit.New(testConfig(p, rec))
		if err != nil {
			t.Fatal(err)
		}
		via := fuzzAliases[int(alias)%len(fuzzAliases)]
		a, _ := p.SubmitAliasOf(via)
		classAlias, teamAlias := a.Class, a.Team
		ctx := invocation(via, "req-fuzz")
		out, err := lambda.NewHandler(h).Invoke(ctx, signed(t, ctx, callerOf(ctx), payload))
		if (via == "admin" || via == "research") && err == nil {
			t.Fatalf("an alias that is no (class, team) pair was served: %s", out)
		}
		var resp contract.Response
		if err == nil {
			if jerr := json.Unmarshal(out, &resp); jerr != nil {
				t.Fatalf("answer %s: %v", out, jerr)
			}
			if classAlias != "" && len(rec.submitted) > 0 && (resp.Class != classAlias || resp.Team != teamAlias) {
				t.Fatalf("through alias %s the answer is of class %s, team %s", via, resp.Class, resp.Team)
			}
		}
		for _, in := range rec.submitted {
			checkSubmitted(t, p, classAlias, teamAlias, in, resp, err == nil)
		}
		if classAlias != "" && (classAlias != "research" || teamAlias != "search-ranking") && len(rec.terminated)+len(rec.updated) > 0 {
			t.Fatalf("through alias %s a research job of search-ranking was cancelled or re-prioritized (%q)", via, payload)
		}
		research, _ := p.Class("research")
		for _, u := range rec.updated {
			if sp := int(aws.ToInt32(u.SchedulingPriority)); !research.Priority.Contains(sp) {
				t.Fatalf("a research job re-prioritized to %d, outside its band %v", sp, research.Priority)
			}
			if !batchrules.ValidJobID(aws.ToString(u.JobId)) {
				t.Fatalf("Batch asked to update %q, not a job id", aws.ToString(u.JobId))
			}
		}
		for _, in := range rec.terminated {
			if !strings.HasPrefix(aws.ToString(in.Reason), contract.CancelReasonPrefix) {
				t.Fatalf("terminate reason %q lacks trainq's prefix", aws.ToString(in.Reason))
			}
		}
	})
}

// checkSubmitted checks one SubmitServiceJob request against the invariants.
func checkSubmitted(t *testing.T, p *platform.Platform, classAlias, teamAlias string, in *batch.SubmitServiceJobInput, resp contract.Response, answered bool) {
	t.Helper()
	if got := aws.ToString(in.JobQueue); got != testQueue {
		t.Fatalf("submitted to queue %q, want the pinned %q", got, testQueue)
	}
	class, ok := p.Class(in.Tags[contract.TagClass])
	if !ok {
		t.Fatalf("submitted with class tag %q, no class of the platform", in.Tags[contract.TagClass])
	}
	if classAlias != "" && class.Name != classAlias {
		t.Fatalf("through alias %s a job of class %s was submitted", classAlias, class.Name)
	}
	if sp := int(aws.ToInt32(in.SchedulingPriority)); !class.Priority.Contains(sp) {
		t.Fatalf("class %s submitted at priority %d, outside its band %v", class.Name, sp, class.Priority)
	}
	team, ok := p.Team(in.Tags[contract.TagTeam])
	if !ok || aws.ToString(in.QuotaShareName) != team.Name || in.ShareIdentifier != nil {
		t.Fatalf("team tag %q, quotaShareName %v, shareIdentifier %v: want one team of the platform, as the quota share",
			in.Tags[contract.TagTeam], aws.ToString(in.QuotaShareName), in.ShareIdentifier)
	}
	if teamAlias != "" && team.Name != teamAlias {
		t.Fatalf("through an alias of team %s a job of team %s was submitted", teamAlias, team.Name)
	}
	if answered && (resp.Team != team.Name || resp.Class != class.Name) {
		t.Fatalf("answered team %q class %q for a job tagged %q %q", resp.Team, resp.Class, team.Name, class.Name)
	}
	if in.Tags[contract.TagPlatform] != p.Name || in.Tags[contract.TagToken] != aws.ToString(in.ClientToken) {
		t.Fatalf("trainq's tags overridden: %v", in.Tags)
	}
	for k := range in.Tags {
		lk := strings.ToLower(k)
		if (strings.HasPrefix(lk, contract.TagPrefix) || strings.HasPrefix(lk, "aws:")) && !isTrainqTag(k) {
			t.Fatalf("a reserved tag %q reached Batch", k)
		}
	}
	if a := int(aws.ToInt32(in.RetryStrategy.Attempts)); a < 1 || a > class.Attempts() {
		t.Fatalf("attempts %d, want 1 to the class's %d", a, class.Attempts())
	}
	runtime := int(aws.ToInt32(in.TimeoutConfig.AttemptDurationSeconds))
	if runtime < 1 || runtime > class.MaxRuntimeSeconds {
		t.Fatalf("attempt duration %d, want 1 to the class's %d", runtime, class.MaxRuntimeSeconds)
	}
	raw := aws.ToString(in.ServiceRequestPayload)
	if len(raw) > batchrules.MaxServiceRequestPayloadBytes {
		t.Fatalf("payload of %d bytes", len(raw))
	}
	var tj struct {
		RoleArn        string
		ResourceConfig struct {
			InstanceType string
		}
		StoppingCondition struct {
			MaxRuntimeInSeconds int
		}
	}
	var members map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &tj) != nil || json.Unmarshal([]byte(raw), &members) != nil {
		t.Fatalf("payload is not a JSON object: %s", raw)
	}
	if tj.RoleArn != testRole {
		t.Fatalf("payload RoleArn %q, want the pinned %q", tj.RoleArn, testRole)
	}
	for k := range members {
		if k != "RoleArn" && strings.Contains(strings.ToLower(k), "role") {
			t.Fatalf("payload member %q may name another role", k)
		}
	}
	if !contains(p.Submission.InstanceTypes, tj.ResourceConfig.InstanceType) {
		t.Fatalf("instance type %q is not the pool's", tj.ResourceConfig.InstanceType)
	}
	if tj.StoppingCondition.MaxRuntimeInSeconds != runtime {
		t.Fatalf("payload runtime %d, Batch's attempt duration %d", tj.StoppingCondition.MaxRuntimeInSeconds, runtime)
	}
}

func isTrainqTag(k string) bool {
	for _, tag := range contract.Tags() {
		if k == tag {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
