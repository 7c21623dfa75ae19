package reroutebench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	queue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	p5    = "ml.p5.48xlarge"
)

// BenchmarkRun times one run of the re-router (the real SDK client over
// loopback to batchtest, no submission limit) with 1,000 runnable research
// jobs of alpha waiting past the threshold on p5:
//
//   - nothing-to-move: p5 and p4d are both full for alpha, so the run lists
//     and describes all 1,000 jobs, plans, and moves none (a saturated
//     queue, on a cold instance);
//   - nothing-to-move-warm: the same, timed on the instance's second run,
//     which plans from the descriptions it cached (a saturated queue's
//     steady state);
//   - moves: p4d has room, so the run moves as many as the per-minute bound
//     allows (120: 120 submissions, re-descriptions and terminations on top
//     of the reading).
func BenchmarkRun(b *testing.B) {
	p, err := platformfile.Parse([]byte(`
pools: [{instanceType: ml.p5.48xlarge, instances: 100}, {instanceType: ml.p4d.24xlarge, instances: 2000}]
classes:
  - {name: production, priority: {min: 900, max: 999}}
  - {name: research, priority: {min: 500, max: 599}, reroute: {afterSeconds: 60, instanceTypes: [ml.p5.48xlarge, ml.p4d.24xlarge]}}
teams:
  - {name: alpha, sharing: lend, capacity: [{instanceType: ml.p5.48xlarge, instances: 50}, {instanceType: ml.p4d.24xlarge, instances: 1500}]}
  - {name: beta, sharing: lend, capacity: [{instanceType: ml.p5.48xlarge, instances: 50}, {instanceType: ml.p4d.24xlarge, instances: 500}]}
rerouting: {maxMovesPerMinute: 120}
`))
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		p4dUsed float64
		moves   int
		warm    bool
	}{{"nothing-to-move", 1500, 0, false}, {"nothing-to-move-warm", 1500, 0, true}, {"moves", 0, 120, false}} {
		b.Run(fmt.Sprintf("runnable=1000/%s", tc.name), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				fake, r := setup(b, p, tc.p4dUsed)
				if tc.warm {
					if _, err := r.Handle(context.Background(), json.RawMessage(`{}`)); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				s, err := r.Handle(context.Background(), json.RawMessage(`{}`))
				b.StopTimer()
				fake.Close()
				if err != nil || s.Moved < tc.moves || tc.moves == 0 && s.Moved != 0 {
					b.Fatalf("run: %+v, %v; want %d moved (more as the bucket refills during the run)", s, err, tc.moves)
				}
			}
		})
	}
}

// setup is a fake holding 1,000 runnable jobs and a re-router over it.
func setup(b *testing.B, p *platform.Platform, p4dUsed float64) (*batchtest.Server, *reroute.Rerouter) {
	fake := batchtest.New(0)
	fake.SetUsed(map[string]float64{p5: 50, "ml.p4d.24xlarge": p4dUsed})
	fake.SetShareUsed(map[string]map[string]float64{"alpha": {p5: 50, "ml.p4d.24xlarge": p4dUsed}})
	created := time.Now().Add(-time.Hour).UnixMilli()
	prio, team := 550, "alpha"
	for i := 0; i < 1000; i++ {
		fake.Add(batchtest.Job{Request: batchtest.SubmitRequest{
			JobName: fmt.Sprintf("train-%04d-%08x", i, i), JobQueue: queue, ServiceJobType: "SAGEMAKER_TRAINING",
			ServiceRequestPayload: fmt.Sprintf(`{"AlgorithmSpecification":{"TrainingImage":"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://artifacts/alpha/"},"ResourceConfig":{"InstanceCount":1,"InstanceType":%q,"VolumeSizeInGB":50},"RoleArn":"arn:aws:iam::123456789012:role/trainq-sagemaker","StoppingCondition":{"MaxRuntimeInSeconds":3600},"TrainingJobName":"train-%04d"}`, p5, i),
			SchedulingPriority:    &prio, QuotaShareName: &team,
			Tags: map[string]string{contract.TagPlatform: p.Name, contract.TagClass: "research", contract.TagTeam: team},
		}, Status: "RUNNABLE", CreatedAt: created})
	}
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(fake.URL)}
	// Every team's jobs run as the queue's role; each replacement passes the
	// door as in the deployed function.
	r, err := reroute.New(reroute.Config{Platform: p, JobQueue: queue, Batch: reroute.NewBatchClient(cfg, reroute.DefaultRetryPolicy),
		Door: door.DeployedEnv(p, queue, "artifacts", "arn:aws:iam::123456789012:role/trainq-sagemaker", nil), Now: time.Now, Metrics: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	return fake, r
}
