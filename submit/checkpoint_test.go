package submit_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

const checkpointBucket = "trainq-artifacts-123456789012"

// checkpointOf submits req (the minimal fixture with class, key and
// trainingJob.CheckpointConfig changed by edit) and returns the
// CheckpointConfig of the payload Batch received (nil: none).
func checkpointOf(t *testing.T, bucket string, edit func(req map[string]any)) (map[string]any, string) {
	t.Helper()
	fake := newFake(t)
	defer fake.Close()
	var logs bytes.Buffer
	h := newHandlerWith(t, nil, fake, fastPolicy, func(c *submit.Config) {
		c.CheckpointBucket = bucket
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	var req map[string]any
	if err := json.Unmarshal(fixture(t, "submit-minimal.json"), &req); err != nil {
		t.Fatal(err)
	}
	req["idempotencyKey"] = "ckpt-1"
	edit(req)
	b, _ := json.Marshal(req)
	if _, ferr := invoke(t, invocation("", "req-1"), h, b); ferr != nil {
		t.Fatal(ferr.Message)
	}
	var payload struct{ CheckpointConfig map[string]any }
	if err := json.Unmarshal([]byte(submitted(t, fake)[0].ServiceRequestPayload), &payload); err != nil {
		t.Fatal(err)
	}
	return payload.CheckpointConfig, logs.String()
}

// TestCheckpointsUnderTheTeamsPrefix: a job of a class with checkpoints
// (the default platform's research and sweep) gets a CheckpointConfig under
// its team's prefix, named after its Batch job (the name and the
// idempotency suffix: every attempt of the job gets the same location);
// other classes get none; a caller's own is kept. The payloads pass
// SageMaker's model (TestMain checks every one).
func TestCheckpointsUnderTheTeamsPrefix(t *testing.T) {
	if _, on := mustClass(t, "research").CheckpointInterval(); !on {
		t.Fatal("the default platform's research class has no checkpoints; the cases below assume it")
	}
	if _, on := mustClass(t, "production").CheckpointInterval(); on {
		t.Fatal("the default platform's production class has checkpoints; the cases below assume none")
	}
	tests := []struct {
		name string
		edit func(req map[string]any)
		want map[string]any
	}{
		{
			// The suffix is the first 8 hex digits of
			// sha256("key2\x00search-ranking\x00research\x00ckpt-1") = a5367de8…
			name: "a research job's checkpoints go under its team's prefix, named after its Batch job",
			edit: func(map[string]any) {},
			want: map[string]any{"S3Uri": "s3://trainq-artifacts-123456789012/search-ranking/checkpoints/bert-base-a5367de8/"},
		},
		{
			name: "a production job (no checkpoints) gets none",
			edit: func(req map[string]any) { req["class"] = "production" },
		},
		{
			name: "the caller's own CheckpointConfig is kept",
			edit: func(req map[string]any) {
				req["trainingJob"].(map[string]any)["CheckpointConfig"] = map[string]any{"S3Uri": "s3://ml-artifacts/search-ranking/mine/", "LocalPath": "/opt/ml/ckpt"}
			},
			want: map[string]any{"S3Uri": "s3://ml-artifacts/search-ranking/mine/", "LocalPath": "/opt/ml/ckpt"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := checkpointOf(t, checkpointBucket, tt.edit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckpointConfig (-want +got):\n%s", diff)
			}
		})
	}
	if got := submit.CheckpointURI("b", "vision", "vit-0a1b2c3d"); got != "s3://b/vision/checkpoints/vit-0a1b2c3d/" {
		t.Errorf("CheckpointURI = %q", got)
	}
}

// TestNoCheckpointBucketNoCheckpoints: without the bucket nothing is set,
// and New says so once, naming the classes and the variable.
func TestNoCheckpointBucketNoCheckpoints(t *testing.T) {
	got, logs := checkpointOf(t, "", func(map[string]any) {})
	if got != nil {
		t.Errorf("CheckpointConfig %v without a bucket, want none", got)
	}
	if n := strings.Count(logs, "no checkpoint bucket"); n != 1 || !strings.Contains(logs, `"classes":"research,sweep"`) || !strings.Contains(logs, contract.EnvCheckpointBucket) {
		t.Errorf("%d log lines about it, want 1 naming research,sweep and %s:\n%s", n, contract.EnvCheckpointBucket, logs)
	}
}

// TestCheckpointBucketMustBeABucketName: the setting and the config refuse
// what is no S3 bucket name, naming it.
func TestCheckpointBucketMustBeABucketName(t *testing.T) {
	_, err := submit.New(submit.Config{Platform: declareFixtures(platform.Default()), JobQueue: testQueue, ExecutionRoleARN: testRole, Batch: stubBatch{},
		CheckpointBucket: "s3://Bucket/x"})
	if err == nil || !strings.Contains(err.Error(), `CheckpointBucket: got "s3://Bucket/x", want an S3 bucket name`) {
		t.Errorf("New: %v", err)
	}
	env := map[string]string{contract.EnvJobQueue: testQueue, contract.EnvExecutionRoleARN: testRole, contract.EnvCheckpointBucket: "Bucket_1",
		contract.EnvPlatformFile: "../platform/default.json", "AWS_REGION": "us-east-1"}
	_, err = submit.LoadSettings(func(k string) string { return env[k] }, "/nonexistent/bootstrap")
	if err == nil || !strings.Contains(err.Error(), contract.EnvCheckpointBucket+`: got "Bucket_1"`) {
		t.Errorf("LoadSettings: %v", err)
	}
	env[contract.EnvCheckpointBucket] = checkpointBucket
	s, err := submit.LoadSettings(func(k string) string { return env[k] }, "/nonexistent/bootstrap")
	if err != nil || s.CheckpointBucket != checkpointBucket {
		t.Errorf("LoadSettings: %+v, %v", s.CheckpointBucket, err)
	}
}

func mustClass(t *testing.T, name string) platform.Class {
	t.Helper()
	c, ok := platform.Default().Class(name)
	if !ok {
		t.Fatalf("no class %s", name)
	}
	return c
}
