// Package door_test holds the door's parity test: every refusal is asked
// of the submission function's handler and of the built CLI's
// submit --dry-run, which must give the same answer.
package door_test

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

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// The deployment both sides are told about: the function through its
// configuration, the CLI through --artifacts-bucket, --account and
// --region.
const (
	account   = "123456789012"
	region    = "us-east-1"
	artifacts = "trainq-artifacts-0123"
	queue     = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	function  = "arn:aws:lambda:us-east-1:123456789012:function:trainq-submit"
	dlc       = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311"
	subnet    = "subnet-0a1b2c3d4e5f60718"
	group     = "sg-0123456789abcdef0"
	key       = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
)

// doorPlatform is the default platform (40 ml.p5.48xlarge, 60
// ml.p4d.24xlarge; search-ranking's quota 24 and 30, lend-and-borrow 100%)
// with a training section: a public dataset, a VPC and a KMS key.
func doorPlatform() *platform.Platform {
	p := platform.Default()
	p.Training.S3Read = []string{"s3://public-datasets/imagenet/"}
	p.Training.ECRRepositories = []string{"ml/trainer"}
	p.Training.VPC = &platform.TrainingVPC{Subnets: []string{subnet}, SecurityGroups: []string{group}}
	p.Training.KMSKeys = []string{key}
	return p
}

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "trainq-door")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "trainq")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/trainq/trainq/bin/trainq").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("go build ./bin/trainq: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// job is a training job valid on doorPlatform for search-ranking, edited.
func job(edit func(tj map[string]any)) map[string]any {
	tj := map[string]any{
		"AlgorithmSpecification": map[string]any{"TrainingImage": dlc, "TrainingInputMode": "File"},
		"InputDataConfig": []any{map[string]any{"ChannelName": "train", "DataSource": map[string]any{
			"S3DataSource": map[string]any{"S3DataType": "S3Prefix", "S3Uri": "s3://public-datasets/imagenet/train/"}}}},
		"OutputDataConfig":  map[string]any{"S3OutputPath": "s3://" + artifacts + "/search-ranking/models/"},
		"ResourceConfig":    map[string]any{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 2, "VolumeSizeInGB": 100},
		"StoppingCondition": map[string]any{"MaxRuntimeInSeconds": 3600},
		"VpcConfig":         map[string]any{"Subnets": []any{subnet}, "SecurityGroupIds": []any{group}},
	}
	if edit != nil {
		edit(tj)
	}
	return tj
}

func sub(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }

// request is a research request of search-ranking around tj, as JSON.
func request(tj map[string]any, extra map[string]any) []byte {
	r := map[string]any{"jobName": "bert-base", "team": "search-ranking", "class": "research", "trainingJob": tj}
	for k, v := range extra {
		r[k] = v
	}
	b, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

// answer is a refusal: its kind and the fields it names ("" kind: none).
type answer struct {
	kind   string
	fields []string
}

func TestDoorAnswersAlikeInTheFunctionAndTheCLI(t *testing.T) {
	dir := t.TempDir()
	p := doorPlatform()
	platformFile := filepath.Join(dir, "platform.json")
	if err := os.WriteFile(platformFile, p.JSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name    string
		request []byte
		// want is the answer both must give, from the rule each case
		// breaks (its comment): never the code's output pasted.
		want answer
	}
	invalid := func(fields ...string) answer { return answer{"ValidationError", fields} }
	cases := []tc{
		{"a job valid on the platform is accepted by both", request(job(nil), nil), answer{}},
		// Pool of 40 ml.p5.48xlarge; search-ranking may hold 24 + 24
		// borrowed (100% of 24) = 48, within the pool of 40: at most 40.
		{"41 ml.p5.48xlarge never fit the pool of 40", request(job(func(tj map[string]any) { sub(tj, "ResourceConfig")["InstanceCount"] = 41 }), nil),
			invalid("trainingJob.ResourceConfig.InstanceCount")},
		{"1000000 instances never fit", request(job(func(tj map[string]any) { sub(tj, "ResourceConfig")["InstanceCount"] = 1000000 }), nil),
			invalid("trainingJob.ResourceConfig.InstanceCount")},
		// SageMaker: MaxWaitTimeInSeconds >= MaxRuntimeInSeconds.
		{"spot with MaxWait 60 below MaxRuntime 3600", request(job(func(tj map[string]any) {
			tj["EnableManagedSpotTraining"] = true
			sub(tj, "StoppingCondition")["MaxWaitTimeInSeconds"] = 60
		}), nil), invalid("trainingJob.StoppingCondition.MaxWaitTimeInSeconds")},
		// Only MaxWait 86400: trainq sets MaxRuntime to research's 259200.
		{"spot with only MaxWait 86400, below the class's runtime trainq sets", request(job(func(tj map[string]any) {
			tj["EnableManagedSpotTraining"] = true
			tj["StoppingCondition"] = map[string]any{"MaxWaitTimeInSeconds": 86400}
		}), nil), invalid("trainingJob.StoppingCondition.MaxWaitTimeInSeconds")},
		{"MaxWait without spot", request(job(func(tj map[string]any) { sub(tj, "StoppingCondition")["MaxWaitTimeInSeconds"] = 7200 }), nil),
			invalid("trainingJob.StoppingCondition.MaxWaitTimeInSeconds")},
		{"spot without MaxWait", request(job(func(tj map[string]any) { tj["EnableManagedSpotTraining"] = true }), nil),
			invalid("trainingJob.StoppingCondition.MaxWaitTimeInSeconds")},
		{"ImageUri and InstanceType at the top level are no members", request(job(func(tj map[string]any) {
			tj["ImageUri"] = dlc
			tj["InstanceType"] = "ml.p5.48xlarge"
		}), nil), invalid("trainingJob.ImageUri", "trainingJob.InstanceType")},
		{"another role is forbidden", request(job(func(tj map[string]any) { tj["RoleArn"] = "arn:aws:iam::123456789012:role/admin" }), nil),
			answer{"Forbidden", []string{"trainingJob.RoleArn"}}},
		{"another team's output prefix", request(job(func(tj map[string]any) {
			sub(tj, "OutputDataConfig")["S3OutputPath"] = "s3://" + artifacts + "/search-research/models/"
		}), nil), invalid("trainingJob.OutputDataConfig.S3OutputPath")},
		{"another team's checkpoint, debug and TensorBoard prefixes", request(job(func(tj map[string]any) {
			tj["CheckpointConfig"] = map[string]any{"S3Uri": "s3://" + artifacts + "/search-research/checkpoints/x/"}
			tj["DebugHookConfig"] = map[string]any{"S3OutputPath": "s3://" + artifacts + "/search-research/debug/"}
			tj["TensorBoardOutputConfig"] = map[string]any{"S3OutputPath": "s3://" + artifacts + "/search-research/tb/"}
		}), nil), invalid("trainingJob.CheckpointConfig.S3Uri", "trainingJob.DebugHookConfig.S3OutputPath", "trainingJob.TensorBoardOutputConfig.S3OutputPath")},
		{"a bucket nobody declared", request(job(func(tj map[string]any) {
			sub(tj["InputDataConfig"].([]any)[0].(map[string]any)["DataSource"].(map[string]any), "S3DataSource")["S3Uri"] = "s3://datasets/text/train/"
		}), nil), invalid("trainingJob.InputDataConfig[0].DataSource.S3DataSource.S3Uri")},
		{"writing to a dataset declared read-only", request(job(func(tj map[string]any) {
			sub(tj, "OutputDataConfig")["S3OutputPath"] = "s3://public-datasets/imagenet/out/"
		}), nil), invalid("trainingJob.OutputDataConfig.S3OutputPath")},
		{"an undeclared subnet and security group", request(job(func(tj map[string]any) {
			tj["VpcConfig"] = map[string]any{"Subnets": []any{"subnet-0fffffffffffffff0"}, "SecurityGroupIds": []any{"sg-0fffffffffffffff0"}}
		}), nil), invalid("trainingJob.VpcConfig.SecurityGroupIds[0]", "trainingJob.VpcConfig.Subnets[0]")},
		{"no VpcConfig on a platform with a VPC (it would get internet access)", request(job(func(tj map[string]any) { delete(tj, "VpcConfig") }), nil),
			invalid("trainingJob.VpcConfig")},
		{"an image of another account", request(job(func(tj map[string]any) {
			sub(tj, "AlgorithmSpecification")["TrainingImage"] = "999999999999.dkr.ecr.us-east-1.amazonaws.com/ml/trainer:1"
		}), nil), invalid("trainingJob.AlgorithmSpecification.TrainingImage")},
		{"a KMS key of another account", request(job(func(tj map[string]any) {
			sub(tj, "OutputDataConfig")["KmsKeyId"] = "arn:aws:kms:us-east-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab"
		}), nil), invalid("trainingJob.OutputDataConfig.KmsKeyId")},
		{"an EFS source", request(job(func(tj map[string]any) {
			tj["InputDataConfig"] = []any{map[string]any{"ChannelName": "train", "DataSource": map[string]any{"FileSystemDataSource": map[string]any{
				"FileSystemId": "fs-0123456789abcdef0", "FileSystemAccessMode": "ro", "FileSystemType": "EFS", "DirectoryPath": "/data"}}}}
		}), nil), invalid("trainingJob.InputDataConfig[0].DataSource.FileSystemDataSource")},
		{"invalid UTF-8 in a hyperparameter value is never repaired",
			[]byte(strings.Replace(string(request(job(func(tj map[string]any) { tj["HyperParameters"] = map[string]any{"lr": "LR"} }), nil)), `"LR"`, "\"0.1\xff\"", 1)),
			invalid("trainingJob.HyperParameters.lr")},
		{"a lone surrogate in a tag value is never repaired",
			[]byte(strings.Replace(string(request(job(nil), map[string]any{"tags": map[string]any{"project": "P"}})), `"P"`, `"bert\ud800"`, 1)),
			invalid("tags.project")},
		{"99.0 instances: a whole number, but not written as SageMaker's integer",
			[]byte(strings.Replace(string(request(job(nil), nil)), `"InstanceCount":2`, `"InstanceCount":99.0`, 1)),
			invalid("trainingJob.ResourceConfig.InstanceCount")},
		// Batch names an attempt "AWSBatch" + TrainingJobName + 32 hex
		// digits within SageMaker's 63 characters, and trainq puts the
		// team's 8-character prefix in front: 63 - 8 - 32 - 8 = 15 of the
		// caller's own fit, 16 do not.
		{"a TrainingJobName of 15 characters fits after the team's prefix", request(job(func(tj map[string]any) { tj["TrainingJobName"] = "bert-base-v2-ok" }), nil),
			answer{}},
		{"a TrainingJobName of 16 characters leaves an attempt's name over SageMaker's 63", request(job(func(tj map[string]any) { tj["TrainingJobName"] = "bert-base-v2-nok" }), nil),
			invalid("trainingJob.TrainingJobName")},
		{"a priority of 1e400", []byte(strings.Replace(string(request(job(nil), map[string]any{"priority": 7})), `"priority":7`, `"priority":1e400`, 1)),
			invalid("priority")},
	}

	fake := batchtest.New(0)
	defer fake.Close()
	// The caller is the pipeline role granted research-search-ranking, its
	// signature verified by a loopback STS, as the deployed function does.
	sts := ststest.New(region)
	defer sts.Close()
	g := ststest.Grants(p)
	cfg := submit.Config{Platform: p, JobQueue: queue, CheckpointBucket: artifacts,
		ExecutionRoleARNs: map[string]string{"search-ranking": "arn:aws:iam::123456789012:role/trainq-sagemaker-search-ranking",
			"search-research": "arn:aws:iam::123456789012:role/trainq-sagemaker-search-research"},
		Batch:    batch.New(batch.Options{Region: region, Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(fake.URL)}),
		Identity: &submit.STSVerifier{Endpoint: sts.URL}, Operators: g.Operators}
	for _, s := range g.Submitters {
		cfg.Submitters = append(cfg.Submitters, platform.Submitter{RoleARN: s.RoleARN, Classes: []string{s.Class}, Teams: []string{s.Team}})
	}
	h, err := submit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	caller := sts.CallerOf("research-search-ranking")
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(fake.Calls("SubmitServiceJob"))
			fn := handlerAnswer(t, h, sts.Sign(t, caller, function, c.request))
			if got := len(fake.Calls("SubmitServiceJob")) - before; c.want.kind != "" && got != 0 {
				t.Errorf("the function sent %d jobs to Batch for a refused request", got)
			}
			file := filepath.Join(dir, "request"+string(rune('a'+i%26))+".json")
			if err := os.WriteFile(file, c.request, 0o600); err != nil {
				t.Fatal(err)
			}
			cli := cliAnswer(t, "--platform", platformFile, "--file", file, "--class", "research", "--team", "search-ranking",
				"--dry-run", "--artifacts-bucket", artifacts, "--account", account, "--region", region)
			sort.Strings(c.want.fields)
			if fn.kind != c.want.kind || strings.Join(fn.fields, ",") != strings.Join(c.want.fields, ",") {
				t.Errorf("function: %s %v, want %s %v", fn.kind, fn.fields, c.want.kind, c.want.fields)
			}
			if cli.kind != fn.kind || strings.Join(cli.fields, ",") != strings.Join(fn.fields, ",") {
				t.Errorf("CLI --dry-run: %s %v; the function: %s %v", cli.kind, cli.fields, fn.kind, fn.fields)
			}
		})
	}
}

// handlerAnswer invokes the handler through the Lambda library's path, as
// the research-search-ranking alias.
func handlerAnswer(t *testing.T, h *submit.Handler, payload []byte) answer {
	t.Helper()
	ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req-1", InvokedFunctionArn: function + ":research-search-ranking"})
	_, err := lambda.NewHandler(h).Invoke(ctx, payload)
	if err == nil {
		return answer{}
	}
	var fe messages.InvokeResponse_Error
	if !errors.As(err, &fe) {
		t.Fatalf("invoke returned %T %v, want a function error", err, err)
	}
	t.Logf("function: %s: %s", fe.Type, fe.Message)
	return answer{fe.Type, fields(fe.Message)}
}

// cliAnswer runs the built CLI; a refusal is "trainq submit: KIND: message"
// on stderr, exit 1.
func cliAnswer(t *testing.T, args ...string) answer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"submit"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		if !strings.HasPrefix(stdout.String(), "dry run:") {
			t.Errorf("CLI exit 0 without a dry run: %q", stdout.String())
		}
		return answer{}
	}
	rest, ok := strings.CutPrefix(stderr.String(), "trainq submit: ")
	kind, msg, _ := strings.Cut(rest, ": ")
	if !ok || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("CLI: exit %d, stderr %q", cmd.ProcessState.ExitCode(), stderr.String())
	}
	return answer{kind, fields(msg)}
}

// fields lists the fields a message names, one per "  - field: got …"
// line, sorted.
func fields(msg string) []string {
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			field, _, _ := strings.Cut(f, ": got ")
			out = append(out, field)
		}
	}
	sort.Strings(out)
	return out
}
