package reroute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/reroute"
)

const (
	testQueue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	p5        = "ml.p5.48xlarge"
	p4d       = "ml.p4d.24xlarge"
	g5        = "ml.g5.48xlarge"
	// testRole is every team's execution role, the RoleArn of every
	// payload; testBucket the artifacts bucket.
	testRole   = "arn:aws:iam::123456789012:role/trainq-sagemaker"
	testBucket = "artifacts"
	// testImage is one of AWS's training images of the queue's region,
	// which every team's role may pull (platform.ReachOf).
	testImage = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311"
)

// testDoor is what the door knows of the tests' deployment: the queue's
// account and region, the artifacts bucket and testRole for every team.
func testDoor(p *platform.Platform) door.Env {
	return door.DeployedEnv(p, testQueue, testBucket, testRole, nil)
}

// t0 is the tests' clock: every job's wait is counted to it.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// fastPolicy retries like production but with short waits.
var fastPolicy = reroute.RetryPolicy{MaxAttempts: 3, MaxBackoff: time.Millisecond, AttemptTimeout: 2 * time.Second}

// testPlatform is testdata/platform.yaml: pools p5 8, p4d 8, g5 4; teams
// alpha and beta each p5 4, p4d 4, g5 2, both lending (never borrowing);
// research reroutes over [p5, p4d, g5] and sweep over [p5, p4d], after
// 600 s, at most 2 moves; production does not reroute; 3 moves a minute.
func testPlatform(t *testing.T) *platform.Platform {
	t.Helper()
	p, err := platformfile.LoadFile("testdata/platform.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// env is a fake endpoint, a re-router over it and its outputs.
type env struct {
	p       *platform.Platform
	fake    *batchtest.Server
	r       *reroute.Rerouter
	now     time.Time
	metrics bytes.Buffer
	log     bytes.Buffer
}

// newEnv starts a fake (no submission limit) and a re-router for p (the
// test platform when nil) whose clock is e.now (t0 to start with).
func newEnv(t *testing.T, p *platform.Platform) *env {
	t.Helper()
	if p == nil {
		p = testPlatform(t)
	}
	e := &env{fake: batchtest.New(0), now: t0}
	e.fake.SetLabel(t.Name())
	e.fake.SetClock(func() time.Time { return e.now })
	t.Cleanup(e.fake.Close)
	e.p = p
	e.r = e.againWith(t, func() time.Time { return e.now })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("log:\n%s", e.log.String())
		}
	})
	return e
}

// again is another function instance (a cold start) over the same fake,
// platform, clock and outputs.
func (e *env) again(t *testing.T) *reroute.Rerouter {
	return e.againWith(t, func() time.Time { return e.now })
}

// againWith is again with the clock now.
func (e *env) againWith(t *testing.T, now func() time.Time) *reroute.Rerouter {
	t.Helper()
	return e.instance(t, now, testDoor(e.p))
}

// withDoor is another function instance over e's fake whose door knows d
// (a redeployment that changed the teams' roles, say).
func (e *env) withDoor(t *testing.T, d door.Env) *reroute.Rerouter {
	t.Helper()
	return e.instance(t, func() time.Time { return e.now }, d)
}

// instance is a function instance over e's fake with the clock now and
// the door's facts d.
func (e *env) instance(t *testing.T, now func() time.Time, d door.Env) *reroute.Rerouter {
	t.Helper()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(e.fake.URL)}
	r, err := reroute.New(reroute.Config{
		Platform:     e.p,
		JobQueue:     testQueue,
		Batch:        reroute.NewBatchClient(cfg, fastPolicy),
		Now:          now,
		Metrics:      &e.metrics,
		Door:         d,
		Logger:       newLogger(&e.log),
		RelookDelays: []time.Duration{0, 0, 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runWith is one invocation of r.
func (e *env) runWith(t *testing.T, r *reroute.Rerouter) reroute.Summary {
	t.Helper()
	s, err := r.Handle(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// run is one invocation (the scheduled event's payload is ignored).
func (e *env) run(t *testing.T) reroute.Summary {
	t.Helper()
	s, err := e.r.Handle(context.Background(), json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// spec is a job of the platform for add.
type spec struct {
	name     string
	class    string // tag trainq:class ("" for none)
	team     string
	priority int
	it       string
	count    int
	waited   time.Duration // before t0
	status   string        // default RUNNABLE
	reason   string        // statusReason
	platform string        // default trainq
	moves    int           // tag trainq:moves when > 0
}

// payload is a SageMaker CreateTrainingJob request of team alpha as the
// submission function writes it (members sorted, compact).
func payload(it string, count int) string { return payloadOf("alpha", it, count) }

// payloadOf is payload of team, writing under the team's prefix of the
// artifacts bucket, as the door requires.
func payloadOf(team, it string, count int) string {
	return fmt.Sprintf(`{"AlgorithmSpecification":{"TrainingImage":%q,"TrainingInputMode":"File"},`+
		`"HyperParameters":{"lr":"0.001","note":"a<b&c"},"OutputDataConfig":{"S3OutputPath":"s3://%s/%s/out/"},`+
		`"ResourceConfig":{"InstanceCount":%d,"InstanceType":%q,"VolumeSizeInGB":100},"RoleArn":%q,`+
		`"StoppingCondition":{"MaxRuntimeInSeconds":86400},"TrainingJobName":"train-1a2b3c4d"}`, testImage, testBucket, team, count, it, testRole)
}

// add puts a job described by s into the fake and returns its id.
func (e *env) add(s spec) string {
	if s.status == "" {
		s.status = "RUNNABLE"
	}
	if s.platform == "" {
		s.platform = "trainq"
	}
	if s.count == 0 {
		s.count = 1
	}
	if s.name == "" {
		s.name = "job-" + strconv.Itoa(len(e.fake.Jobs())) + "-1a2b3c4d"
	}
	tags := map[string]string{contract.TagPlatform: s.platform, contract.TagTeam: s.team, contract.TagToken: "tok-" + s.name}
	if s.class != "" {
		tags[contract.TagClass] = s.class
	}
	if s.moves > 0 {
		tags[contract.TagMoves] = strconv.Itoa(s.moves)
	}
	attempts, runtime, retries := 2, 86400, 5
	j := e.fake.Add(batchtest.Job{
		Request: batchtest.SubmitRequest{
			JobName: s.name, JobQueue: testQueue, ServiceJobType: "SAGEMAKER_TRAINING",
			ServiceRequestPayload: payloadOf(s.team, s.it, s.count), ClientToken: "tok-" + s.name,
			SchedulingPriority: &s.priority, QuotaShareName: &s.team,
			RetryStrategy:           &batchtest.RetryStrategy{Attempts: attempts},
			TimeoutConfig:           &batchtest.TimeoutConfig{AttemptDurationSeconds: runtime},
			PreemptionConfiguration: &batchtest.PreemptionConfig{PreemptionRetriesBeforeTermination: &retries},
			Tags:                    tags,
		},
		Status: s.status, StatusReason: s.reason, CreatedAt: t0.Add(-s.waited).UnixMilli(),
	})
	return j.ID
}

// use sets the snapshot's usage: instances per (team, type); the queue's
// use per type is their sum.
func (e *env) use(byTeam map[string]map[string]float64) {
	total := map[string]float64{}
	for _, m := range byTeam {
		for it, n := range m {
			total[it] += n
		}
	}
	e.fake.SetUsed(total)
	e.fake.SetShareUsed(byTeam)
}

// submitted returns the SubmitServiceJob requests the fake took (answered
// 200 or with the answer lost), decoded.
func (e *env) submitted(t *testing.T) []batchtest.SubmitRequest {
	t.Helper()
	var out []batchtest.SubmitRequest
	for _, j := range e.fake.Jobs() {
		if _, isReplacement := j.Request.Tags[contract.TagReroutedFrom]; isReplacement {
			out = append(out, j.Request)
		}
	}
	return out
}

// instanceType reads a payload's ResourceConfig.InstanceType.
func instanceType(t *testing.T, payload string) string {
	t.Helper()
	var tj struct{ ResourceConfig struct{ InstanceType string } }
	if err := json.Unmarshal([]byte(payload), &tj); err != nil {
		t.Fatal(err)
	}
	return tj.ResourceConfig.InstanceType
}

// jobWithShareIdentifier is a research job of team on p5 of a fair-share
// queue, waiting an hour.
func jobWithShareIdentifier(team string) batchtest.Job {
	prio := 550
	return batchtest.Job{
		Request: batchtest.SubmitRequest{
			JobName: "fair-1a2b3c4d", JobQueue: testQueue, ServiceJobType: "SAGEMAKER_TRAINING",
			ServiceRequestPayload: payloadOf(team, p5, 1), SchedulingPriority: &prio, ShareIdentifier: &team,
			Tags: map[string]string{contract.TagPlatform: "trainq", contract.TagTeam: team, contract.TagClass: "research"},
		},
		Status: "RUNNABLE", CreatedAt: t0.Add(-time.Hour).UnixMilli(),
	}
}
