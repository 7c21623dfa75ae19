package hostile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
)

// RoleARN is the execution role the submitter is given in every case.
const RoleARN = "arn:aws:iam::123456789012:role/trainq-sagemaker"

// SubmitterCase is one request to the submission function and what it must
// answer.
type SubmitterCase struct {
	Name string
	// Alias is the (class, team) alias invoked; "" is unqualified.
	Alias string
	// Setup prepares the fake Batch endpoint; it returns the ARN of a job it
	// added (for the request to name), and what releases what it holds.
	Setup   func(s *batchtest.Server) (jobARN string, release func())
	Request func(jobARN string) []byte
	// Deadline is the invocation's time. Default: 60 s.
	Deadline time.Duration
	// WantType is the answer's errorType; "" is a job answer.
	WantType string
	// WantFields must each be named by a problem of the message.
	WantFields []string
	Mentions   []string
	// Avoids are words the message must not say.
	Avoids []string
	// Check looks at what reached Batch.
	Check func(t testing.TB, s *batchtest.Server, resp contract.Response)
}

// SubmitterAnswer is an invocation's answer: a job, or an error.
type SubmitterAnswer struct {
	Response                contract.Response
	ErrorType, ErrorMessage string
}

// request builds a request: top-level members (raw "name": value pairs)
// and, unless noJob, a trainingJob of the given members.
func request(top []string, tj []string) []byte {
	return []byte("{" + strings.Join(append(append([]string(nil), top...), `"trainingJob":{`+strings.Join(tj, ",")+`}`), ",") + "}")
}

var (
	baseTop = []string{`"jobName":"bert-base"`, `"team":"search-ranking"`, `"class":"research"`}
	// A training job valid on the default platform: AWS's PyTorch image
	// of us-east-1 and an output under the team's artifacts prefix.
	baseTJ = []string{`"AlgorithmSpecification":{"TrainingImage":"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311","TrainingInputMode":"File"}`,
		`"OutputDataConfig":{"S3OutputPath":"s3://trainq-artifacts-0123/search-ranking/models/bert-base/"}`}
)

func top(extra ...string) []string { return append(append([]string(nil), baseTop...), extra...) }
func tj(extra ...string) []string  { return append(append([]string(nil), baseTJ...), extra...) }

// replace returns members with the member named name replaced by m.
func replace(members []string, name, m string) []string {
	return append(without(members, name), m)
}

func fixed(b []byte) func(string) []byte { return func(string) []byte { return b } }

// addJob adds a research job of search-ranking to the fake.
func addJob(s *batchtest.Server, status, reason string, terminated bool) string {
	p := 550
	share := "search-ranking"
	j := s.Add(batchtest.Job{Status: status, StatusReason: reason, Terminated: terminated, Request: batchtest.SubmitRequest{
		JobName: "bert-base-0a1b2c3d", JobQueue: QueueARN, ServiceRequestPayload: "{}", SchedulingPriority: &p, QuotaShareName: &share,
		Tags: map[string]string{contract.TagClass: "research", contract.TagTeam: "search-ranking"},
	}})
	return j.ARN
}

func existing(status, reason string, terminated bool) func(*batchtest.Server) (string, func()) {
	return func(s *batchtest.Server) (string, func()) { return addJob(s, status, reason, terminated), nil }
}

func action(a, extra string) func(string) []byte {
	return func(arn string) []byte {
		return []byte(fmt.Sprintf(`{"action":%q,"jobId":%q%s}`, a, arn, extra))
	}
}

// SubmitterCases are the hostile requests.
func SubmitterCases() []SubmitterCase {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	many := func(n int, f func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ",")
	}
	submittedOnce := func(t testing.TB, s *batchtest.Server, _ contract.Response) {
		if n := len(s.Jobs()); n != 1 {
			t.Errorf("%d jobs created, want 1", n)
		}
	}
	none := func(op string) func(testing.TB, *batchtest.Server, contract.Response) {
		return func(t testing.TB, s *batchtest.Server, _ contract.Response) {
			if n := len(s.Calls(op)); n != 0 {
				t.Errorf("%d %s calls, want none", n, op)
			}
		}
	}
	return []SubmitterCase{
		{Name: "a well-formed request is submitted", Request: fixed(request(top(), tj())), Check: submittedOnce},
		{
			Name: "throttled look-ups near a short deadline answer Throttled, not UpstreamError",
			Setup: func(s *batchtest.Server) (string, func()) {
				faults := make([]batchtest.Fault, 1000)
				for i := range faults {
					faults[i] = batchtest.Throttle
				}
				s.Script("ListServiceJobs", faults...)
				return "", nil
			},
			Request: fixed(request(top(), tj())), Deadline: 8 * time.Second, WantType: "Throttled", Check: none("SubmitServiceJob"),
		},
		{
			Name:    "a job ARN is accepted as jobId, and Batch is asked by the job's id",
			Setup:   existing("RUNNABLE", "", false),
			Request: action("describe", ""),
			Check: func(t testing.TB, s *batchtest.Server, resp contract.Response) {
				for _, c := range s.Calls("DescribeServiceJob") {
					if strings.Contains(string(c.Body), "arn:") {
						t.Errorf("Batch was asked with the ARN: %s", c.Body)
					}
				}
				if resp.JobID == "" || resp.Status != "RUNNABLE" {
					t.Errorf("answer %+v, want the job", resp)
				}
			},
		},
		{
			Name:     "a job ARN of another account is refused before Batch is asked",
			Request:  fixed([]byte(`{"action":"describe","jobId":"arn:aws:batch:us-east-1:210987654321:service-job/4c7599ae-0a82-49aa-ba5a-4727fcce14a8"}`)),
			WantType: "ValidationError", WantFields: []string{"jobId"}, Mentions: []string{"account 123456789012"}, Check: none("DescribeServiceJob"),
		},
		{
			Name:    "an idempotency key of 200 'é' is 200 characters, within 256",
			Request: fixed(request(top(`"idempotencyKey":"`+strings.Repeat("é", 200)+`"`), tj())), Check: submittedOnce,
		},
		{
			Name:     "an idempotency key of 257 characters is refused",
			Request:  fixed(request(top(`"idempotencyKey":"`+strings.Repeat("é", 257)+`"`), tj())),
			WantType: "ValidationError", WantFields: []string{"idempotencyKey"},
		},
		{
			Name:    "a tag key of 128 'é' and a value of 256 'é' are within Batch's limits in characters",
			Request: fixed(request(top(`"tags":{"`+strings.Repeat("é", 128)+`":"`+strings.Repeat("é", 256)+`"}`), tj())), Check: submittedOnce,
		},
		{
			Name:     "a tag key of 129 characters is refused",
			Request:  fixed(request(top(`"tags":{"`+strings.Repeat("é", 129)+`":"v"}`), tj())),
			WantType: "ValidationError", WantFields: []string{"tags"},
		},
		{
			Name:     "a 300-character job name is shown cut on a character boundary",
			Request:  fixed(request(replace(top(), "jobName", `"jobName":"`+strings.Repeat("é", 300)+`"`), tj())),
			WantType: "ValidationError", WantFields: []string{"jobName"}, Mentions: []string{"é…"},
		},
		{
			Name:     "a member given twice is refused, never last-wins",
			Request:  fixed(request(top(`"team":"search-research"`), tj())),
			WantType: "ValidationError", WantFields: []string{"team"}, Mentions: []string{"given twice"}, Check: none("SubmitServiceJob"),
		},
		{
			Name:     "a RoleArn given twice in the payload is refused",
			Request:  fixed(request(top(), tj(`"RoleArn":"arn:aws:iam::999999999999:role/admin"`, `"RoleArn":"`+RoleARN+`"`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.RoleArn"}, Check: none("SubmitServiceJob"),
		},
		{
			Name:     "roleArn in lower case is an unknown member, never a second role",
			Request:  fixed(request(top(), tj(`"roleArn":"arn:aws:iam::999999999999:role/admin"`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.roleArn"}, Mentions: []string{"SageMaker's CreateTrainingJobRequest"}, Check: none("SubmitServiceJob"),
		},
		{
			Name:    "re-prioritizing a finished job is a ValidationError that says so",
			Setup:   existing("SUCCEEDED", "", false),
			Request: action("reprioritize", `,"priority":10`), WantType: "ValidationError", WantFields: []string{"jobId"},
			Mentions: []string{"has not finished", "SUCCEEDED"}, Check: none("UpdateServiceJob"),
		},
		{
			Name:    "cancelling a cancelled job is a ValidationError, not success",
			Setup:   existing("FAILED", contract.CancelReasonPrefix+": done", true),
			Request: action("cancel", ""), WantType: "ValidationError", WantFields: []string{"jobId"},
			Mentions: []string{"already cancelled"}, Check: none("TerminateServiceJob"),
		},
		{
			Name:    "cancelling a job whose termination is under way is a ValidationError",
			Setup:   existing("RUNNING", "", true),
			Request: action("cancel", ""), WantType: "ValidationError", WantFields: []string{"jobId"},
			Mentions: []string{"being terminated"}, Check: none("TerminateServiceJob"),
		},
		{
			Name: "Batch refusing an update of the job is the request's problem, with Batch's reason",
			Setup: func(s *batchtest.Server) (string, func()) {
				s.Handle("UpdateServiceJob", func([]byte) (int, any) {
					return batchtest.Error(http.StatusBadRequest, "ClientException", "Job cannot be updated in status RUNNING")
				})
				return addJob(s, "RUNNING", "", false), nil
			},
			Request: action("reprioritize", `,"priority":10`), WantType: "ValidationError", WantFields: []string{"jobId"},
			Mentions: []string{"Batch answered ClientException: Job cannot be updated in status RUNNING"},
		},
		{
			Name:     "HyperParameters as a 300-deep list are refused",
			Request:  fixed(request(top(), tj(`"HyperParameters":`+deep(300)))),
			WantType: "ValidationError", Mentions: []string{"trainingJob.HyperParameters", "nested more than 32 levels"}, Check: none("SubmitServiceJob"),
		},
		{
			Name:     "HyperParameters as a list are refused by SageMaker's model",
			Request:  fixed(request(top(), tj(`"HyperParameters":[["a"]]`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.HyperParameters"}, Mentions: []string{"SageMaker's HyperParameters"},
		},
		{
			Name:     "JSON nested deeper than 10,000 levels is named as such, not called not JSON",
			Request:  fixed(request(top(`"tags":`+deep(10_001)), tj())),
			WantType: "ValidationError", WantFields: []string{"tags" + strings.Repeat("[0]", 31)}, Mentions: []string{"nested more than 32 levels"},
		},
		{
			Name:     "HyperParameters of 101 entries break SageMaker's limit of 100",
			Request:  fixed(request(top(), tj(`"HyperParameters":{`+many(101, func(i int) string { return fmt.Sprintf(`"k%d":"v"`, i) })+`}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.HyperParameters"}, Mentions: []string{"101 entries"},
		},
		{
			Name:     "a TrainingInputMode SageMaker does not have is refused",
			Request:  fixed(request(top(), replace(tj(), "AlgorithmSpecification", `"AlgorithmSpecification":{"TrainingImage":"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311","TrainingInputMode":"Stream"}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.AlgorithmSpecification.TrainingInputMode"}, Mentions: []string{"Pipe, File, FastFile"},
		},
		{
			Name:     "an S3OutputPath that is no S3 or HTTPS URI is refused",
			Request:  fixed(request(top(), replace(tj(), "OutputDataConfig", `"OutputDataConfig":{"S3OutputPath":"ftp://x/y"}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.OutputDataConfig.S3OutputPath"},
		},
		{
			Name: "a VpcConfig (of 17 subnets) on a platform that declares no VPC: the role may create no network interface",
			Request: fixed(request(top(), tj(`"VpcConfig":{"SecurityGroupIds":["sg-0123456789abcdef0"],"Subnets":[`+
				many(17, func(i int) string { return fmt.Sprintf(`"subnet-%017d"`, i) })+`]}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.VpcConfig"},
		},
		{
			Name:     "member names are case-sensitive at every depth",
			Request:  fixed(request(top(), replace(tj(), "OutputDataConfig", `"OutputDataConfig":{"s3OutputPath":"s3://ml-artifacts/x/"}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.OutputDataConfig.s3OutputPath", "trainingJob.OutputDataConfig.S3OutputPath"},
		},
		{
			Name:     "five thousand unknown fields give a bounded message",
			Request:  fixed(request(top(many(5000, func(i int) string { return fmt.Sprintf(`"f%d":1`, i) })), tj())),
			WantType: "ValidationError", Mentions: []string{"the first 25 shown", "… and 4975 more"},
		},
		{
			Name:     "an InstanceCount beyond any integer SageMaker takes is refused",
			Request:  fixed(request(top(), tj(`"ResourceConfig":{"InstanceCount":1000000000000,"VolumeSizeInGB":100}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.ResourceConfig.InstanceCount"},
		},
		{
			Name:     "the class of the alias cannot be escaped by the request's class",
			Alias:    "sweep-search-ranking",
			Request:  fixed(request(replace(top(), "class", `"class":"production"`), tj())),
			WantType: "Forbidden", WantFields: []string{"class"}, Check: none("SubmitServiceJob"),
		},
		{
			Name:     "a reserved tag key is refused whatever its case",
			Request:  fixed(request(top(`"tags":{"TRAINQ:team":"other"}`), tj())),
			WantType: "ValidationError", WantFields: []string{"tags.TRAINQ:team"},
		},
		{
			Name:     "a priority beyond any integer is refused",
			Request:  fixed(request(top(`"priority":1e20`), tj())),
			WantType: "ValidationError", WantFields: []string{"priority"},
		},
		// The door: what can never run, or cannot reach its data, is
		// refused before anything reaches Batch (CheckSubmitter requires
		// no SubmitServiceJob for every refusal).
		{
			// The default pool has 40 ml.p5.48xlarge.
			Name:     "41 ml.p5.48xlarge never fit the pool of 40",
			Request:  fixed(request(top(), tj(`"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":41,"VolumeSizeInGB":100}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.ResourceConfig.InstanceCount"}, Mentions: []string{"the pool has 40"},
		},
		{
			Name:     "1000000 instances of no named type never fit",
			Request:  fixed(request(top(), tj(`"ResourceConfig":{"InstanceCount":1000000,"VolumeSizeInGB":100}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.ResourceConfig.InstanceCount"},
		},
		{
			Name:     "spot with MaxWait 60 below MaxRuntime 3600",
			Request:  fixed(request(top(), tj(`"EnableManagedSpotTraining":true`, `"StoppingCondition":{"MaxRuntimeInSeconds":3600,"MaxWaitTimeInSeconds":60}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.StoppingCondition.MaxWaitTimeInSeconds"}, Mentions: []string{"3600"},
		},
		{
			// research's maximum runtime, which trainq sets, is 259200.
			Name:     "spot with only MaxWait 86400, below the runtime trainq would set",
			Request:  fixed(request(top(), tj(`"EnableManagedSpotTraining":true`, `"StoppingCondition":{"MaxWaitTimeInSeconds":86400}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.StoppingCondition.MaxWaitTimeInSeconds"}, Mentions: []string{"259200"},
		},
		{
			Name:     "MaxWait without spot",
			Request:  fixed(request(top(), tj(`"StoppingCondition":{"MaxWaitTimeInSeconds":86400}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.StoppingCondition.MaxWaitTimeInSeconds"},
		},
		{
			Name:     "ImageUri and InstanceType at the top level name the members they are",
			Request:  fixed(request(top(), tj(`"ImageUri":"x"`, `"InstanceType":"ml.p5.48xlarge"`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.ImageUri", "trainingJob.InstanceType"},
			Mentions: []string{"AlgorithmSpecification.TrainingImage", "ResourceConfig.InstanceType"},
		},
		{
			Name:     "another role is forbidden",
			Request:  fixed(request(top(), tj(`"RoleArn":"arn:aws:iam::123456789012:role/admin"`))),
			WantType: "Forbidden", WantFields: []string{"trainingJob.RoleArn"},
		},
		{
			Name: "another team's output, checkpoint, debug and TensorBoard prefixes",
			Request: fixed(request(top(), replace(tj(`"CheckpointConfig":{"S3Uri":"s3://trainq-artifacts-123456789012/search-research/checkpoints/x/"}`,
				`"DebugHookConfig":{"S3OutputPath":"s3://trainq-artifacts-123456789012/search-research/debug/"}`,
				`"TensorBoardOutputConfig":{"S3OutputPath":"s3://trainq-artifacts-123456789012/search-research/tb/"}`),
				"OutputDataConfig", `"OutputDataConfig":{"S3OutputPath":"s3://trainq-artifacts-123456789012/search-research/models/"}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.OutputDataConfig.S3OutputPath", "trainingJob.CheckpointConfig.S3Uri",
				"trainingJob.DebugHookConfig.S3OutputPath", "trainingJob.TensorBoardOutputConfig.S3OutputPath"},
		},
		{
			Name:     "a bucket nobody declared",
			Request:  fixed(request(top(), tj(`"InputDataConfig":[{"ChannelName":"train","DataSource":{"S3DataSource":{"S3DataType":"S3Prefix","S3Uri":"s3://datasets/text/train/"}}}]`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.InputDataConfig[0].DataSource.S3DataSource.S3Uri"},
		},
		{
			Name:     "an image of another account",
			Request:  fixed(request(top(), replace(tj(), "AlgorithmSpecification", `"AlgorithmSpecification":{"TrainingImage":"999999999999.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.AlgorithmSpecification.TrainingImage"},
		},
		{
			Name:     "a KMS key of another account",
			Request:  fixed(request(top(), replace(tj(), "OutputDataConfig", `"OutputDataConfig":{"S3OutputPath":"s3://trainq-artifacts-0123/search-ranking/models/","KmsKeyId":"arn:aws:kms:us-east-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab"}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.OutputDataConfig.KmsKeyId"},
		},
		{
			Name:     "an EFS source",
			Request:  fixed(request(top(), tj(`"InputDataConfig":[{"ChannelName":"train","DataSource":{"FileSystemDataSource":{"FileSystemId":"fs-0123456789abcdef0","FileSystemAccessMode":"ro","FileSystemType":"EFS","DirectoryPath":"/data"}}}]`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.InputDataConfig[0].DataSource.FileSystemDataSource"},
		},
		{
			Name:     "invalid UTF-8 in a hyperparameter value is refused, never repaired",
			Request:  fixed(request(top(), tj("\"HyperParameters\":{\"lr\":\"0.1\xff\"}"))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.HyperParameters.lr"},
		},
		{
			Name:     "a lone surrogate in a tag value is refused, never repaired",
			Request:  fixed(request(top(`"tags":{"project":"bert\ud800"}`), tj())),
			WantType: "ValidationError", WantFields: []string{"tags.project"},
		},
		{
			Name:     "99.0 and 5E1 instances are named as written, not as no whole number",
			Request:  fixed(request(top(), tj(`"ResourceConfig":{"InstanceCount":99.0,"VolumeSizeInGB":5E1}`))),
			WantType: "ValidationError", WantFields: []string{"trainingJob.ResourceConfig.InstanceCount", "trainingJob.ResourceConfig.VolumeSizeInGB"},
			Mentions: []string{"99.0 (written with a decimal point or exponent)", "5E1 (written with a decimal point or exponent)"},
		},
		{
			Name:     "a priority of 1e400 is JSON, named as given",
			Request:  fixed(request(top(`"priority":1e400`), tj())),
			WantType: "ValidationError", WantFields: []string{"priority"}, Mentions: []string{"got 1e400"},
		},
		{
			Name:     "a Forbidden team names no alias that cannot exist",
			Alias:    "research-search-ranking",
			Request:  fixed(request(replace(top(), "team", `"team":"nobody"`), tj())),
			WantType: "Forbidden", WantFields: []string{"team"}, Avoids: []string{"research-nobody"},
		},
		{
			Name:     "an unknown team is named once; no role of nothing (RoleArn got 0 characters) is reported",
			Request:  fixed(request(replace(top(), "team", `"team":"nobody"`), tj())),
			WantType: "ValidationError", WantFields: []string{"team"}, Avoids: []string{"RoleArn"},
		},
		{
			Name:     "a 60 kB job name gives a bounded message",
			Request:  fixed(request(replace(top(), "jobName", `"jobName":"`+strings.Repeat("ü", 30_000)+`"`), tj())),
			WantType: "ValidationError", WantFields: []string{"jobName"},
		},
	}
}

// CheckSubmitter checks an answer to c: its errorType, the fields and words
// of its message, a bounded message of valid UTF-8, and c.Check.
func CheckSubmitter(t testing.TB, c SubmitterCase, s *batchtest.Server, a SubmitterAnswer) {
	t.Helper()
	if a.ErrorType != c.WantType {
		t.Fatalf("got %q %.2000s, want errorType %q", a.ErrorType, a.ErrorMessage, c.WantType)
	}
	msg := a.ErrorMessage
	if !utf8.ValidString(msg) {
		t.Errorf("message is not valid UTF-8: %q", msg)
	}
	// Heading, MaxProblemsShown problems and the count of the others.
	if lines := strings.Count(msg, "\n") + 1; lines > contract.MaxProblemsShown+2 {
		t.Errorf("message of %d lines", lines)
	}
	if len(msg) > 64*1024 {
		t.Errorf("message of %d bytes", len(msg))
	}
	for _, line := range strings.Split(msg, "\n") {
		if n := utf8.RuneCountInString(line); n > 4+2*contract.MaxShownChars+contract.MaxLoggedChars+20 {
			t.Errorf("a message line of %d characters", n)
		}
	}
	for _, f := range c.WantFields {
		if !strings.Contains(msg, "  - "+f+": got ") {
			t.Errorf("message does not name %s:\n%.3000s", f, msg)
		}
	}
	for _, m := range c.Mentions {
		if !strings.Contains(msg, m) {
			t.Errorf("message does not say %q:\n%.3000s", m, msg)
		}
	}
	for _, m := range c.Avoids {
		if strings.Contains(msg, m) {
			t.Errorf("message says %q:\n%.3000s", m, msg)
		}
	}
	if c.WantType == string(contract.KindValidation) || c.WantType == string(contract.KindForbidden) {
		if n := len(s.Calls("SubmitServiceJob")); n != 0 {
			t.Errorf("a refused request reached Batch: %d SubmitServiceJob calls", n)
		}
	}
	if strings.Contains(msg, "not JSON") {
		t.Errorf("well-formed JSON called not JSON:\n%.2000s", msg)
	}
	if c.Check != nil {
		c.Check(t, s, a.Response)
	}
}

// ParseAnswer reads an emulator's answer: a function error's JSON, or a job.
func ParseAnswer(body []byte) (SubmitterAnswer, error) {
	var a struct {
		contract.Response
		ErrorType    string `json:"errorType"`
		ErrorMessage string `json:"errorMessage"`
	}
	err := json.Unmarshal(body, &a)
	return SubmitterAnswer{Response: a.Response, ErrorType: a.ErrorType, ErrorMessage: a.ErrorMessage}, err
}
