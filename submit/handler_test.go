package submit_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/submit"
)

// wire is the part of a SubmitServiceJob request a good fixture pins down.
type wire struct {
	SchedulingPriority  int
	Attempts            int
	AttemptSeconds      int
	PreemptionRetries   *int
	QuotaShareName      *string
	ShareIdentifier     *string
	Tags                map[string]string
	InstanceType        string
	MaxRuntimeInSeconds float64
	RoleARN             string
	TrainingJobName     string
}

var suffixed = regexp.MustCompile(`^(.*)-([0-9a-f]{8})$`)

func TestSubmitGoodRequests(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		alias   string
		used    map[string]float64
		// wantName is the job name before the idempotency suffix.
		wantName string
		want     wire
		// wantTrainingJobName is "" when trainq derives it from the job
		// name and the suffix.
		wantTrainingJobName string
		wantSnapshots       int
		// wantInstanceCount is the payload's ResourceConfig.InstanceCount.
		wantInstanceCount float64
	}{
		{
			name:     "a minimal research request gets the middle of the research band, the class's limits and the first pool type",
			fixture:  "submit-minimal.json",
			wantName: "bert-base",
			want: wire{
				// research band 500-599, default priority 50: 500 + 50*(599-500)/99 = 550.
				SchedulingPriority: 550,
				// research retries 1: attempts 1+1.
				Attempts: 2, AttemptSeconds: 259200, PreemptionRetries: intp(20),
				QuotaShareName: strp("search-ranking"),
				Tags:           map[string]string{"trainq:team": "search-ranking", "trainq:class": "research", "trainq:platform": "trainq"},
				// nothing in use: ml.p5.48xlarge, first of submission.instanceTypes, has headroom.
				InstanceType: "ml.p5.48xlarge", MaxRuntimeInSeconds: 259200, RoleARN: testRole,
			},
			wantSnapshots: 1,
			// the fixture asks for 1 instance.
			wantInstanceCount: 1,
		},
		{
			name:     "a full request falls back to the second instance type when the first lacks headroom for its instances",
			fixture:  "submit-full.json",
			used:     map[string]float64{"ml.p5.48xlarge": 39},
			wantName: "llama_finetune-7b",
			want: wire{
				// priority 99: 500 + 99*(599-500)/99 = 599.
				SchedulingPriority: 599,
				// retries 0 asked: attempts 0+1.
				Attempts: 1,
				// maxRuntimeSeconds 3600 is lower than the payload's 7200 and the class's 259200.
				AttemptSeconds: 3600, PreemptionRetries: intp(20),
				QuotaShareName: strp("search-research"),
				Tags: map[string]string{"trainq:team": "search-research", "trainq:class": "research", "trainq:platform": "trainq",
					"project": "llama", "cost-center": "ml-42"},
				// p5: 40 - 39 = 1 free < InstanceCount 2; p4d: 60 - 0 = 60 free.
				InstanceType: "ml.p4d.24xlarge", MaxRuntimeInSeconds: 3600, RoleARN: testRole,
			},
			wantTrainingJobName: "llama-7b-run42",
			wantSnapshots:       1,
			// the fixture asks for 2 instances.
			wantInstanceCount: 2,
		},
		{
			name:     "through the production alias the class comes from the alias and the payload's instance type is kept without a snapshot",
			fixture:  "submit-alias.json",
			alias:    "production-search-ranking",
			wantName: "ranker-nightly",
			want: wire{
				// production band 900-999, priority 10: 900 + 10*99/99 = 910.
				SchedulingPriority: 910,
				// production retries 2: attempts 3.
				Attempts: 3, AttemptSeconds: 432000, PreemptionRetries: intp(10),
				QuotaShareName: strp("search-ranking"),
				Tags:           map[string]string{"trainq:team": "search-ranking", "trainq:class": "production", "trainq:platform": "trainq"},
				InstanceType:   "ml.p4d.24xlarge", MaxRuntimeInSeconds: 432000, RoleARN: testRole,
			},
			wantSnapshots: 0,
			// the fixture asks for 1 instance.
			wantInstanceCount: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			fake.SetUsed(tt.used)
			h := newHandler(t, nil, fake, fastPolicy)
			resp, ferr := invoke(t, invocation(tt.alias, "req-1"), h, fixture(t, tt.fixture))
			if ferr != nil {
				t.Fatalf("function error %s: %s", ferr.Type, ferr.Message)
			}
			reqs := submitted(t, fake)
			if len(reqs) != 1 {
				t.Fatalf("got %d SubmitServiceJob calls, want 1", len(reqs))
			}
			r := reqs[0]
			m := suffixed.FindStringSubmatch(r.JobName)
			if m == nil || m[1] != tt.wantName {
				t.Fatalf("Batch job name %q, want %q plus '-' and 8 hex digits", r.JobName, tt.wantName)
			}
			if len(r.ClientToken) != 64 || !strings.HasPrefix(r.ClientToken, m[2]) {
				t.Errorf("clientToken %q, want 64 hex digits starting with the name's suffix %s", r.ClientToken, m[2])
			}
			if r.JobQueue != testQueue || r.ServiceJobType != "SAGEMAKER_TRAINING" {
				t.Errorf("queue %q type %q, want %s SAGEMAKER_TRAINING", r.JobQueue, r.ServiceJobType, testQueue)
			}
			var payload struct {
				RoleArn           string
				TrainingJobName   string
				ResourceConfig    map[string]any
				StoppingCondition struct{ MaxRuntimeInSeconds float64 }
			}
			if err := json.Unmarshal([]byte(r.ServiceRequestPayload), &payload); err != nil {
				t.Fatal(err)
			}
			tags := map[string]string{}
			for k, v := range r.Tags {
				if k != contract.TagToken {
					tags[k] = v
				}
			}
			if r.Tags[contract.TagToken] != r.ClientToken {
				t.Errorf("token tag %q, want the clientToken %q", r.Tags[contract.TagToken], r.ClientToken)
			}
			got := wire{
				SchedulingPriority: deref(r.SchedulingPriority), Attempts: r.RetryStrategy.Attempts,
				AttemptSeconds: r.TimeoutConfig.AttemptDurationSeconds, QuotaShareName: r.QuotaShareName,
				ShareIdentifier: r.ShareIdentifier, Tags: tags, InstanceType: payload.ResourceConfig["InstanceType"].(string),
				MaxRuntimeInSeconds: payload.StoppingCondition.MaxRuntimeInSeconds, RoleARN: payload.RoleArn,
			}
			if r.PreemptionConfiguration != nil {
				got.PreemptionRetries = r.PreemptionConfiguration.PreemptionRetriesBeforeTermination
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("wire request (-want +got):\n%s", diff)
			}
			// The team's prefix, then the fixture's name, or the first 6
			// characters of the job name (23 - 8 for the prefix - 9 for "-"
			// and the suffix), underscores made hyphens, and the suffix.
			prefix := platform.Default().TrainingJobPrefix(tt.want.Tags[contract.TagTeam])
			wantTJN := prefix + tt.wantTrainingJobName
			if tt.wantTrainingJobName == "" {
				derived := strings.ReplaceAll(tt.wantName, "_", "-")
				wantTJN = prefix + strings.TrimRight(derived[:min(6, len(derived))], "-") + "-" + m[2]
			}
			if n := payload.ResourceConfig["InstanceCount"]; n != tt.wantInstanceCount {
				t.Errorf("InstanceCount %v, want the fixture's %v", n, tt.wantInstanceCount)
			}
			if payload.TrainingJobName != wantTJN {
				t.Errorf("TrainingJobName %q, want %q", payload.TrainingJobName, wantTJN)
			}
			jobs := fake.Jobs()
			wantResp := contract.Response{
				JobID: jobs[0].ID, JobARN: jobs[0].ARN, JobName: r.JobName, JobQueue: testQueue,
				Team: *tt.want.QuotaShareName, Class: tt.want.Tags["trainq:class"],
				SchedulingPriority: tt.want.SchedulingPriority, InstanceType: tt.want.InstanceType,
			}
			if diff := cmp.Diff(wantResp, resp); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if n := len(fake.Calls("GetJobQueueSnapshot")); n != tt.wantSnapshots {
				t.Errorf("%d snapshots taken, want %d", n, tt.wantSnapshots)
			}
		})
	}
}

func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func TestSubmitBadRequests(t *testing.T) {
	tests := []struct {
		name       string
		fixture    string
		alias      string
		wantType   string
		wantFields []string
	}{
		{
			name:     "every problem of a request is named at once",
			fixture:  "bad-everything.json",
			wantType: "ValidationError",
			wantFields: []string{"class", "instanceTypes[0]", "jobName", "maxRuntimeSeconds", "priority", "tags.trainq:team", "team",
				"trainingJob.OutputDataConfig",
				"trainingJob.ResourceConfig.InstanceCount", "trainingJob.ResourceConfig.InstanceGroups", "trainingJob.TrainingJobName"},
		},
		{
			name:       "values of the wrong JSON type and unknown fields are all named",
			fixture:    "bad-types.json",
			wantType:   "ValidationError",
			wantFields: []string{"jobName", "jobname", "priority", "retries", "team", "trainingJob"},
		},
		{
			name:       "text that is not JSON is refused",
			fixture:    "bad-not-json.txt",
			wantType:   "ValidationError",
			wantFields: []string{"request"},
		},
		{
			// SageMaker's model requires TrainingInputMode (Pipe, File or
			// FastFile) and S3OutputPath.
			name:       "a payload without the members SageMaker requires is refused",
			fixture:    "bad-sagemaker-required.json",
			wantType:   "ValidationError",
			wantFields: []string{"trainingJob.AlgorithmSpecification.TrainingInputMode", "trainingJob.OutputDataConfig.KmsKeyId", "trainingJob.OutputDataConfig.S3OutputPath"},
		},
		{
			name:       "a payload naming another execution role is forbidden",
			fixture:    "bad-role.json",
			wantType:   "Forbidden",
			wantFields: []string{"trainingJob.RoleArn"},
		},
		{
			name:       "a class other than the alias's is forbidden",
			fixture:    "submit-minimal.json",
			alias:      "sweep-search-ranking",
			wantType:   "Forbidden",
			wantFields: []string{"class"},
		},
		{
			name:     "runtime and retries above the class's limits are refused",
			fixture:  "bad-over-class-limits.json",
			wantType: "ValidationError",
			// sweep: retries 0, maxRuntimeSeconds 86400; asked retries 1,
			// 90000 s, and 100000 s in the payload.
			wantFields: []string{"maxRuntimeSeconds", "retries", "trainingJob.StoppingCondition.MaxRuntimeInSeconds"},
		},
		{
			name:       "an alias that is not a class is forbidden",
			fixture:    "submit-minimal.json",
			alias:      "admin",
			wantType:   "Forbidden",
			wantFields: []string{"caller"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, nil, fake, fastPolicy)
			_, ferr := invoke(t, invocation(tt.alias, "req-1"), h, fixture(t, tt.fixture))
			if ferr == nil {
				t.Fatal("no function error")
			}
			if ferr.Type != tt.wantType {
				t.Errorf("errorType %q, want %q (%s)", ferr.Type, tt.wantType, ferr.Message)
			}
			if diff := cmp.Diff(tt.wantFields, problemFields(ferr.Message)); diff != "" {
				t.Errorf("fields named (-want +got):\n%s\nmessage:\n%s", diff, ferr.Message)
			}
			if n := len(fake.Calls("")); n != 0 {
				t.Errorf("%d Batch calls for a refused request, want 0", n)
			}
		})
	}
}

func TestProblemMessagesNameValueAndAllowed(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	_, ferr := invoke(t, invocation("", "req-1"), h, fixture(t, "bad-everything.json"))
	for _, want := range []string{
		`team: got "nobody", want a team of the platform (search-ranking, search-research)`,
		`priority: got 120, want 0 to 99`,
		`instanceTypes[0]: got "ml.g5.xlarge", want an instance type of the pool (ml.p5.48xlarge, ml.p4d.24xlarge)`,
	} {
		if !strings.Contains(ferr.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, ferr.Message)
		}
	}
}

func TestOversizePayloadIsRefused(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	var req map[string]any
	if err := json.Unmarshal(fixture(t, "submit-minimal.json"), &req); err != nil {
		t.Fatal(err)
	}
	// 10 KiB of hyperparameters alone exceed the 10240-byte limit.
	req["trainingJob"].(map[string]any)["HyperParameters"] = map[string]string{"blob": strings.Repeat("x", 10*1024)}
	b, _ := json.Marshal(req)
	_, ferr := invoke(t, invocation("", "req-1"), h, b)
	if ferr == nil || ferr.Type != "ValidationError" || !strings.Contains(ferr.Message, "at most 10240 bytes") {
		t.Fatalf("got %+v, want a ValidationError naming the 10240-byte limit", ferr)
	}
	if len(fake.Calls("")) != 0 {
		t.Error("Batch was called for an oversize payload")
	}
}

func TestFairShareQueueGetsShareIdentifierNotQuotaShare(t *testing.T) {
	p, err := platformfile.Parse([]byte(`
pools: [{instanceType: ml.p5.48xlarge, instances: 8}]
scheduling: {mode: fairshare}
teams: [{name: vision, weight: 1}]
`))
	if err != nil {
		t.Fatal(err)
	}
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, p, fake, fastPolicy)
	req := `{"jobName":"resnet","team":"vision","class":"sweep","trainingJob":{"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/x/"}}}`
	// The request has no ResourceConfig: trainq fills the one pool type
	// and one instance.
	if _, ferr := invoke(t, invocation("", "req-1"), h, []byte(req)); ferr != nil {
		t.Fatal(ferr.Message)
	}
	r := submitted(t, fake)[0]
	if r.ShareIdentifier == nil || *r.ShareIdentifier != "vision" || r.QuotaShareName != nil {
		t.Errorf("shareIdentifier %v quotaShareName %v, want vision and none", r.ShareIdentifier, r.QuotaShareName)
	}
	var payload struct{ ResourceConfig map[string]any }
	_ = json.Unmarshal([]byte(r.ServiceRequestPayload), &payload)
	if diff := cmp.Diff(map[string]any{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1.0}, payload.ResourceConfig); diff != "" {
		t.Errorf("ResourceConfig (-want +got):\n%s", diff)
	}
	// The default classes have no preemption-retry limit: the field is omitted.
	if r.PreemptionConfiguration != nil {
		t.Errorf("preemptionConfiguration %+v, want none", r.PreemptionConfiguration)
	}
}

func TestVersionQualifiersAreUnqualified(t *testing.T) {
	for _, q := range []string{"$LATEST", "7"} {
		t.Run("qualifier "+q+" takes the class from the payload", func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, nil, fake, fastPolicy)
			resp, ferr := invoke(t, invocation(q, "req-1"), h, fixture(t, "submit-minimal.json"))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			if resp.Class != "research" {
				t.Errorf("class %q, want the payload's research", resp.Class)
			}
		})
	}
}

func TestLoadSettingsNamesEveryMissingSetting(t *testing.T) {
	env := map[string]string{"LAMBDA_TASK_ROOT": t.TempDir()}
	_, err := submit.LoadSettings(func(k string) string { return env[k] }, "/nonexistent/bootstrap")
	if err == nil {
		t.Fatal("no error without platform file, queue and role")
	}
	for _, want := range []string{"platform.json", contract.EnvJobQueue, contract.EnvExecutionRoleARN} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
}

func TestDefaultTrainingJobNameLeavesRoomForBatchsAttemptName(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	var req map[string]any
	if err := json.Unmarshal(fixture(t, "submit-minimal.json"), &req); err != nil {
		t.Fatal(err)
	}
	req["jobName"] = "a_very_long_job_name_for_a_multi_node_llama_finetune"
	b, _ := json.Marshal(req)
	if _, ferr := invoke(t, invocation("", "req-1"), h, b); ferr != nil {
		t.Fatal(ferr.Message)
	}
	var payload struct{ TrainingJobName string }
	if err := json.Unmarshal([]byte(submitted(t, fake)[0].ServiceRequestPayload), &payload); err != nil {
		t.Fatal(err)
	}
	// Batch names each attempt "AWSBatch" + TrainingJobName + 32 hex
	// digits; SageMaker allows 63 characters.
	attempt := "AWSBatch" + payload.TrainingJobName + strings.Repeat("0", 32)
	if len(attempt) > 63 {
		t.Errorf("TrainingJobName %q gives attempt names of %d characters, over SageMaker's 63", payload.TrainingJobName, len(attempt))
	}
	// The team's prefix (8 characters), then the first 6 characters (23 -
	// 8 - 9 for "-" and the suffix), underscores made hyphens.
	want := platform.Default().TrainingJobPrefix("search-ranking") + "a-very"
	if m := suffixed.FindStringSubmatch(payload.TrainingJobName); m == nil || m[1] != want {
		t.Errorf("TrainingJobName %q, want %s plus '-' and 8 hex digits", payload.TrainingJobName, want)
	}
}
