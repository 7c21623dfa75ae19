package door

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/awsmodel"
)

// TestSageMakerModelIsGenerated runs gen_sagemaker_model.py again with the
// machine's botocore and compares its output with sagemaker_model.go, so
// that the checked-in model is the generator's and nobody edits it by hand.
// Without python3 and botocore it fails in CI and is skipped elsewhere.
func TestSageMakerModelIsGenerated(t *testing.T) {
	python := os.Getenv(awsmodel.EnvPython)
	if python == "" {
		python = "python3"
	}
	out, err := exec.Command(python, "gen_sagemaker_model.py", "-").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%v: %s", err, exit.Stderr)
		}
		if awsmodel.Required() {
			t.Fatalf("gen_sagemaker_model.py: %v", err)
		}
		t.Skipf("gen_sagemaker_model.py cannot run here (%v); the model was not compared", err)
	}
	want, err := format.Source(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("sagemaker_model.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("sagemaker_model.go is not what gen_sagemaker_model.py generates from this botocore; run go generate ./door/")
	}
}

// TestSageMakerPatternsCompile compiles every pattern of the model, as Go's
// RE2 reads them (the generator rewrote the Java constructs RE2 lacks).
func TestSageMakerPatternsCompile(t *testing.T) {
	n := 0
	for _, s := range smModel {
		if s.Pattern == "" {
			continue
		}
		n++
		if _, err := regexp.Compile(`\A(?:` + s.Pattern + `)\z`); err != nil {
			t.Errorf("%s: pattern %s: %v", s.Name, s.Pattern, err)
		}
	}
	if n < 10 {
		t.Errorf("only %d patterns in the model", n)
	}
}

// validPayload is a CreateTrainingJobRequest as trainq submits it.
const validPayload = `{"TrainingJobName":"bert-base-0a1b2c3d","RoleArn":"arn:aws:iam::123456789012:role/trainq-sagemaker",` +
	`"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:latest","TrainingInputMode":"File"},` +
	`"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/bert-base/"},"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":1,"VolumeSizeInGB":100},` +
	`"StoppingCondition":{"MaxRuntimeInSeconds":3600}}`

// payloadVariants are payloads the check must judge as SageMaker's model
// does: the valid one, one of each rule broken, and, for every member of
// CreateTrainingJobRequest, a value of the wrong type.
func payloadVariants(t *testing.T) map[string]string {
	t.Helper()
	var base map[string]any
	if err := json.Unmarshal([]byte(validPayload), &base); err != nil {
		t.Fatal(err)
	}
	with := func(edit func(m map[string]any)) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(validPayload), &m)
		edit(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	sub := func(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }
	hp := func(n int) map[string]any {
		out := map[string]any{}
		for i := 0; i < n; i++ {
			out[fmt.Sprintf("k%d", i)] = "v"
		}
		return out
	}
	v := map[string]string{
		"valid":                          validPayload,
		"hyperparameters within limits":  with(func(m map[string]any) { m["HyperParameters"] = hp(100) }),
		"hyperparameters over 100":       with(func(m map[string]any) { m["HyperParameters"] = hp(101) }),
		"hyperparameter value of 2500 é": with(func(m map[string]any) { m["HyperParameters"] = map[string]any{"k": strings.Repeat("é", 2500)} }),
		"hyperparameter value of 2501":   with(func(m map[string]any) { m["HyperParameters"] = map[string]any{"k": strings.Repeat("é", 2501)} }),
		"hyperparameters a list":         with(func(m map[string]any) { m["HyperParameters"] = []any{[]any{"a"}} }),
		"missing output":                 with(func(m map[string]any) { delete(m, "OutputDataConfig") }),
		"missing input mode":             with(func(m map[string]any) { delete(sub(m, "AlgorithmSpecification"), "TrainingInputMode") }),
		"input mode not in the enum":     with(func(m map[string]any) { sub(m, "AlgorithmSpecification")["TrainingInputMode"] = "Stream" }),
		"output path not s3":             with(func(m map[string]any) { sub(m, "OutputDataConfig")["S3OutputPath"] = "ftp://x/y" }),
		"unknown member":                 with(func(m map[string]any) { m["roleArn"] = "x" }),
		"unknown nested member":          with(func(m map[string]any) { sub(m, "ResourceConfig")["instanceCount"] = 1 }),
		"name ending in a hyphen":        with(func(m map[string]any) { m["TrainingJobName"] = "bert-" }),
		"name of 64 characters":          with(func(m map[string]any) { m["TrainingJobName"] = strings.Repeat("a", 64) }),
		"algorithm name ending in -":     with(func(m map[string]any) { sub(m, "AlgorithmSpecification")["AlgorithmName"] = "algo-" }),
		"algorithm name":                 with(func(m map[string]any) { sub(m, "AlgorithmSpecification")["AlgorithmName"] = "algo-1" }),
		"runtime 0":                      with(func(m map[string]any) { sub(m, "StoppingCondition")["MaxRuntimeInSeconds"] = 0 }),
		"runtime a fraction":             with(func(m map[string]any) { sub(m, "StoppingCondition")["MaxRuntimeInSeconds"] = 1.5 }),
		"keep alive over 21600":          with(func(m map[string]any) { sub(m, "ResourceConfig")["KeepAlivePeriodInSeconds"] = 21601 }),
		"instance type not in the enum":  with(func(m map[string]any) { sub(m, "ResourceConfig")["InstanceType"] = "ml.nope.large" }),
		"a boolean as a string":          with(func(m map[string]any) { m["EnableNetworkIsolation"] = "true" }),
		"a boolean":                      with(func(m map[string]any) { m["EnableNetworkIsolation"] = true }),
		"51 tags":                        with(func(m map[string]any) { m["Tags"] = tags(51) }),
		"50 tags":                        with(func(m map[string]any) { m["Tags"] = tags(50) }),
		"a tag without value": with(func(m map[string]any) {
			m["Tags"] = []any{map[string]any{"Key": "k"}}
		}),
		"17 subnets": with(func(m map[string]any) {
			m["VpcConfig"] = map[string]any{"SecurityGroupIds": []any{"sg-0123456789abcdef0"}, "Subnets": strs(17, "subnet-%017d")}
		}),
		"environment key with a space": with(func(m map[string]any) { m["Environment"] = map[string]any{"A B": "v"} }),
		"environment":                  with(func(m map[string]any) { m["Environment"] = map[string]any{"A_B": "v"} }),
		"retry attempts 31":            with(func(m map[string]any) { m["RetryStrategy"] = map[string]any{"MaximumRetryAttempts": 31} }),
		"a credentials provider (a Java \\p{Alnum} pattern)": with(func(m map[string]any) {
			sub(m, "AlgorithmSpecification")["TrainingImageConfig"] = map[string]any{"TrainingRepositoryAccessMode": "Vpc",
				"TrainingRepositoryAuthConfig": map[string]any{"TrainingRepositoryCredentialsProviderArn": "arn:aws:lambda:us-east-1:123456789012:function:creds"}}
		}),
		"a credentials provider that is no Lambda function": with(func(m map[string]any) {
			sub(m, "AlgorithmSpecification")["TrainingImageConfig"] = map[string]any{"TrainingRepositoryAccessMode": "Vpc",
				"TrainingRepositoryAuthConfig": map[string]any{"TrainingRepositoryCredentialsProviderArn": "arn:aws:s3:::bucket"}}
		}),
	}
	for _, mem := range smModel[0].Members {
		wrong := any("a string")
		if smModel[mem.Shape].Kind == smString {
			wrong = 12
		}
		name := mem.Name
		v["wrong type of "+name] = with(func(m map[string]any) { m[name] = wrong })
	}
	return v
}

func tags(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"Key": fmt.Sprintf("k%d", i), "Value": "v"}
	}
	return out
}

func strs(n int, format string) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

// TestPayloadCheckAgreesWithBotocore asks botocore's own validation of
// SageMaker's model (internal/awsmodel) about every variant and checks that
// checkSageMaker refuses exactly the payloads botocore refuses.
func TestPayloadCheckAgreesWithBotocore(t *testing.T) {
	variants := payloadVariants(t)
	var names []string
	var reqs []awsmodel.Request
	for name, payload := range variants {
		body, _ := json.Marshal(map[string]any{
			"jobName": "bert-base-0a1b2c3d", "jobQueue": "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training",
			"serviceJobType": "SAGEMAKER_TRAINING", "serviceRequestPayload": payload,
		})
		names = append(names, name)
		reqs = append(reqs, awsmodel.Request{Service: "batch", Operation: "SubmitServiceJob", Method: "POST", Path: "/v1/submitservicejob", Body: body, Label: name})
	}
	r, err := awsmodel.Check(context.Background(), reqs)
	switch {
	case errors.Is(err, awsmodel.ErrUnavailable) && !awsmodel.Required():
		t.Skipf("%v: botocore was not asked", err)
	case err != nil:
		t.Fatal(err)
	}
	botocore := map[string][]string{}
	for _, p := range r.Problems {
		botocore[p.Label] = append(botocore[p.Label], p.Member+": "+p.Message)
	}
	// Patterns Python's re cannot compile (Java's \p{Alnum}) are skipped by
	// the botocore side; trainq's RE2 form still applies them.
	skipped := map[string]bool{}
	for _, sp := range r.SkippedPatterns {
		for _, shape := range sp.Shapes {
			skipped[strings.TrimPrefix(shape, "sagemaker.")] = true
		}
	}
	javaOnly := map[string]string{"a credentials provider that is no Lambda function": "TrainingRepositoryCredentialsProviderArn"}
	refused := 0
	for _, name := range names {
		d := json.NewDecoder(strings.NewReader(variants[name]))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var ps contract.Problems
		checkSageMaker(&ps, "trainingJob", v, nil)
		if shape, ok := javaOnly[name]; ok {
			if !skipped[shape] || len(ps) == 0 || len(botocore[name]) > 0 {
				t.Errorf("%s: want refused by trainq only, botocore skipping %s's pattern; trainq %v, botocore %v, skipped %v", name, shape, ps, botocore[name], skipped)
			}
			refused++
			continue
		}
		if (len(ps) > 0) != (len(botocore[name]) > 0) {
			t.Errorf("%s: trainq found %d problems %v, botocore %d %v", name, len(ps), ps, len(botocore[name]), botocore[name])
		}
		if len(ps) > 0 {
			refused++
		}
	}
	if refused < len(names)/2 {
		t.Errorf("only %d of %d variants refused: the variants do not exercise the check", refused, len(names))
	}
	t.Logf("%d payload variants: %d refused by both, %d accepted by both (%s)", len(names), refused, len(names)-refused, smSource)
}
