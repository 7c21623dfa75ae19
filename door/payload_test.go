package door_test

import (
	"testing"

	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/platform"
)

// TestCheckPayloadRefusesAMoveThatNeverFits: the re-router's check of a
// filled-in payload refuses, on the default platform, 41 ml.p5.48xlarge
// (a pool of 40) and accepts 2.
func TestCheckPayloadRefusesAMoveThatNeverFits(t *testing.T) {
	env := door.Env{ArtifactsBucket: "trainq-artifacts-0123", Account: "123456789012", Region: "us-east-1",
		ExecutionRoles: map[string]string{"search-ranking": "arn:aws:iam::123456789012:role/r"}}
	p := platform.Default()
	// A moved job's payload carries the name the function gave it: the
	// team's prefix, then jobName-XXXXXXXX, 23 characters in all.
	name := p.TrainingJobPrefix("search-ranking") + "bert-b-0a1b2c3d"
	payload := func(n string) []byte {
		return []byte(`{"TrainingJobName":"` + name + `","RoleArn":"arn:aws:iam::123456789012:role/r",` +
			`"AlgorithmSpecification":{"TrainingImage":"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311","TrainingInputMode":"File"},` +
			`"OutputDataConfig":{"S3OutputPath":"s3://trainq-artifacts-0123/search-ranking/out/"},` +
			`"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":` + n + `,"VolumeSizeInGB":100},"StoppingCondition":{"MaxRuntimeInSeconds":3600}}`)
	}
	if v := door.CheckPayload(p, env, "search-ranking", "research", payload("2")); v.Refused() {
		t.Errorf("2 instances refused: %s", v.Report())
	}
	v := door.CheckPayload(p, env, "search-ranking", "research", payload("41"))
	if !v.Refused() || len(v.Invalid) != 1 || v.Invalid[0].Field != "trainingJob.ResourceConfig.InstanceCount" {
		t.Errorf("41 instances: %s, want one problem of trainingJob.ResourceConfig.InstanceCount", v.Report())
	}
}
