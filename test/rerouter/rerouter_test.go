package rerouter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/lambdatest"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/reroute"
)

const (
	queueARN = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	p5       = "ml.p5.48xlarge"
	p4d      = "ml.p4d.24xlarge"
)

// bin is built once for the package: bootstrap, platform.json next to it
// (testdata/platform.yaml) and the emulator.
var bin struct{ dir, bootstrap, rie string }

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "trainq-rerouter-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	bin.dir = dir
	p, err := platformfile.LoadFile("testdata/platform.yaml")
	if err == nil {
		err = lambdatest.WritePlatform(dir, p)
	}
	if err == nil {
		bin.bootstrap, err = lambdatest.Build(ctx, lambdatest.RerouterPackage, dir, "bootstrap")
	}
	if err == nil {
		bin.rie, err = lambdatest.Build(ctx, lambdatest.RIEPackage, dir, "aws-lambda-rie")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "build for the end-to-end test:", err)
		return 1
	}
	return m.Run()
}

// start runs the bootstrap under a fresh emulator (a cold start: a new
// function instance, whose per-minute bucket is full) against fake.
func start(t *testing.T, fake *batchtest.Server) *lambdatest.Emulator {
	t.Helper()
	env := lambdatest.Env(
		"AWS_ENDPOINT_URL_BATCH="+fake.URL,
		"AWS_LAMBDA_FUNCTION_NAME=trainq-rerouter",
		"AWS_LAMBDA_FUNCTION_TIMEOUT=60",
		"LAMBDA_TASK_ROOT="+bin.dir,
		contract.EnvJobQueue+"="+queueARN,
		// Every team's jobs run as the queue's role, the RoleArn of every
		// payload; the door checks each replacement against it.
		contract.EnvExecutionRoleARN+"=arn:aws:iam::123456789012:role/trainq-sagemaker",
		contract.EnvCheckpointBucket+"=artifacts",
	)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := lambdatest.Start(ctx, bin.rie, bin.bootstrap, env)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// originals is how many jobs wait on p5 at the start; a few of them start
// on their own during the test (Batch found room after all), the others
// must all move.
const (
	originals = 1100
	maxRounds = 60
	// maxCleanRounds bounds the rounds without faults at the end.
	maxCleanRounds = 5
	startEvery     = 3 // every third round, startPerRound originals start
	startCount     = 5
	killEvery      = 4 // every fourth run is killed in the middle
)

// TestThousandMovesUnderFaults moves 1,100 research jobs of alpha from a
// saturated p5 (alpha holds its 50 of 50) to p4d (room 1,500) through the
// real function under the emulator, against an endpoint that allows 50
// submissions a second and, each round, throttles, fails and loses the
// answers of a random share of calls and serves stale listings; every
// fourth run is killed at a random moment. Between rounds, a few waiting
// originals start (as Batch would when room appears). It runs until a run
// without faults finds nothing to do, then checks:
//
//   - at least 1,000 moves (old jobs terminated as moved);
//   - every lineage (an original and the jobs that replaced it, by
//     trainq:rerouted-from) has exactly one live job: no job lost, none
//     running twice;
//   - no job that had started was terminated, and no job was replaced
//     twice.
func TestThousandMovesUnderFaults(t *testing.T) {
	fake := batchtest.New(50)
	defer fake.Close()
	// The test's runs come seconds apart, production's a period apart: the
	// fake's clock runs two minutes behind the function's, so that each
	// run (a cold start) sees the replacements earlier runs made as older
	// than a minute, as a run a period later would, and starts with a full
	// bucket. The cold-start bucket is tested in reroute.
	fake.SetClock(func() time.Time { return time.Now().Add(-2 * time.Minute) })
	fake.SetUsed(map[string]float64{p5: 50})
	fake.SetShareUsed(map[string]map[string]float64{"alpha": {p5: 50}})
	created := time.Now().Add(-time.Hour).UnixMilli() // past afterSeconds (60)
	for i := 0; i < originals; i++ {
		fake.Add(original(i, created))
	}
	rng := rand.New(rand.NewPCG(14, 1))
	started := map[string]bool{}
	var lines []byte
	rounds, killed, resumed := 0, 0, 0
	// Faulty rounds until one finds nothing left to do, then clean rounds
	// until one finds nothing left either: that one proves the state at
	// rest.
	faulty, clean := true, 0
	for ; rounds < maxRounds && clean < maxCleanRounds; rounds++ {
		fake.ClearScripts()
		if faulty {
			script(fake, rng)
		}
		if rounds%startEvery == 1 {
			startSome(fake, rng, started)
		}
		e := start(t, fake)
		if faulty && rounds%killEvery == killEvery-1 {
			killed++
			go func() { _, _, _ = e.Invoke(context.Background(), []byte(`{}`)) }()
			time.Sleep(time.Duration(200+rng.IntN(2300)) * time.Millisecond)
			e.Kill()
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		inv, err := e.Call(ctx, []byte(`{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`))
		cancel()
		e.Close()
		if err != nil || inv.Status != 200 {
			t.Fatalf("round %d: status %d, %v\n%s", rounds, inv.Status, err, e.Log())
		}
		var s reroute.Summary
		if err := json.Unmarshal(inv.Body, &s); err != nil {
			t.Fatalf("round %d: answer %s: %v\n%s", rounds, inv.Body, err, e.Log())
		}
		lines = append(lines, emfLines(inv.Log)...)
		resumed += bytes.Count(inv.Log, []byte(`"submitted":false`)) // an earlier run submitted the replacement
		t.Logf("round %d (faults %v): %+v", rounds, faulty, s)
		idle := s.Moved+s.Refused+s.Skipped+s.Deferred == 0 && s.Stopped == ""
		switch {
		case faulty && idle:
			faulty = false
		case !faulty:
			clean++
			if idle {
				clean = maxCleanRounds
			}
		}
	}
	if clean == 0 || !faulty && clean < maxCleanRounds {
		t.Fatalf("no run found the queue at rest after %d rounds", rounds)
	}
	t.Logf("%d rounds, %d runs killed, %d moves finished by a later run, %d originals started on their own", rounds, killed, resumed, len(started))

	jobs := fake.Jobs()
	byID := map[string]batchtest.Job{}
	children := map[string][]string{}
	for _, j := range jobs {
		byID[j.ID] = j
		if from := j.Request.Tags[contract.TagReroutedFrom]; from != "" {
			children[from] = append(children[from], j.ID)
		}
	}
	moved, lost, duplicated, replacedTwice, startedTerminated := 0, 0, 0, 0, 0
	for _, j := range jobs {
		if len(children[j.ID]) > 1 {
			replacedTwice++
			t.Errorf("job %s replaced %d times: %v", j.ID, len(children[j.ID]), children[j.ID])
		}
		if j.Terminated && j.StartedAt != 0 {
			startedTerminated++
			t.Errorf("job %s had started and was terminated (%q)", j.ID, j.StatusReason)
		}
		if j.Terminated && strings.HasPrefix(j.StatusReason, contract.ReroutedReasonPrefix) {
			moved++
		}
		if j.Request.Tags[contract.TagReroutedFrom] != "" {
			continue
		}
		live := 0
		for _, id := range lineage(j.ID, children) {
			if s := byID[id].Status; s != "FAILED" && s != "SUCCEEDED" {
				live++
			}
		}
		switch {
		case live == 0:
			lost++
			t.Errorf("lineage of %s has no live job", j.ID)
		case live > 1:
			duplicated++
			t.Errorf("lineage of %s has %d live jobs", j.ID, live)
		}
	}
	for id := range started {
		if j := byID[id]; j.Status != "RUNNING" {
			t.Errorf("started job %s is %s", id, j.Status)
		}
	}
	t.Logf("moves %d, lineages %d, lost %d, duplicate live %d, replaced twice %d, started and terminated %d, submissions %d",
		moved, originals, lost, duplicated, replacedTwice, startedTerminated, len(fake.Calls("SubmitServiceJob")))
	if resumed == 0 {
		t.Error("no run finished a move an earlier one left half done: the crash path was not exercised")
	}
	if moved < 1000 {
		t.Errorf("%d moves, want at least 1000", moved)
	}
	// The metric lines of the runs that ended are valid EMF.
	if ds := emftest.Lines(t, lines); len(ds) == 0 {
		t.Error("no metric line")
	}
}

// original is the i-th job the test starts with: research (priority 550)
// of alpha on one p5 instance, as the submission function writes it.
func original(i int, createdAt int64) batchtest.Job {
	prio, team, attempts := 550, "alpha", 1
	name := fmt.Sprintf("train-%04d-%08x", i, i)
	return batchtest.Job{
		Request: batchtest.SubmitRequest{
			JobName: name, JobQueue: queueARN, ServiceJobType: "SAGEMAKER_TRAINING",
			ServiceRequestPayload: fmt.Sprintf(`{"AlgorithmSpecification":{"TrainingImage":"763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://artifacts/alpha/"},"ResourceConfig":{"InstanceCount":1,"InstanceType":%q,"VolumeSizeInGB":50},"RoleArn":"arn:aws:iam::123456789012:role/trainq-sagemaker","StoppingCondition":{"MaxRuntimeInSeconds":3600},"TrainingJobName":"train-%04d"}`, p5, i),
			ClientToken:           fmt.Sprintf("tok-%d", i),
			SchedulingPriority:    &prio, QuotaShareName: &team,
			RetryStrategy: &batchtest.RetryStrategy{Attempts: attempts},
			Tags: map[string]string{contract.TagPlatform: "trainq", contract.TagClass: "research", contract.TagTeam: team,
				contract.TagToken: fmt.Sprintf("tok-%d", i)},
		},
		Status: "RUNNABLE", CreatedAt: createdAt,
	}
}

// script queues this round's faults: for each operation a run may call,
// a random mix of answers lost after the effect, throttling, server errors
// and stale listings, each call drawn independently.
func script(fake *batchtest.Server, rng *rand.Rand) {
	lost := batchtest.Fault{LoseAnswer: true}
	draw := func(n int, odds ...struct {
		p float64
		f batchtest.Fault
	}) []batchtest.Fault {
		out := make([]batchtest.Fault, n)
		for i := range out {
			x := rng.Float64()
			for _, o := range odds {
				if x < o.p {
					out[i] = o.f
					break
				}
				x -= o.p
			}
		}
		return out
	}
	type odd = struct {
		p float64
		f batchtest.Fault
	}
	fake.Script("SubmitServiceJob", draw(400, odd{0.06, lost}, odd{0.03, batchtest.Throttle}, odd{0.02, batchtest.ServerError})...)
	// Terminations also fail in bursts (an outage): 15 server errors in a
	// row make 5 moves fail to terminate after all the SDK's attempts,
	// leaving old job and replacement both live, as a crash would, for a
	// later run to finish.
	terminate := draw(400, odd{0.06, lost}, odd{0.03, batchtest.ServerError}, odd{0.01, batchtest.Throttle})
	at := rng.IntN(100) // within the first run's terminations
	for i := at; i < at+15; i++ {
		terminate[i] = batchtest.ServerError
	}
	fake.Script("TerminateServiceJob", terminate...)
	fake.Script("ListServiceJobs", draw(600, odd{0.03, batchtest.Fault{Stale: true}}, odd{0.01, batchtest.ServerError})...)
	fake.Script("DescribeServiceJob", draw(4000, odd{0.002, batchtest.ServerError}, odd{0.0005, batchtest.Throttle})...)
	fake.Script("GetJobQueueSnapshot", draw(4, odd{0.1, batchtest.ServerError})...)
}

// startSome starts a few originals still waiting, as Batch would.
func startSome(fake *batchtest.Server, rng *rand.Rand, started map[string]bool) {
	var waiting []string
	for _, j := range fake.Jobs() {
		if j.Status == "RUNNABLE" && j.Request.Tags[contract.TagReroutedFrom] == "" {
			waiting = append(waiting, j.ID)
		}
	}
	for i := 0; i < startCount && len(waiting) > 0; i++ {
		k := rng.IntN(len(waiting))
		fake.SetStatus(waiting[k], "RUNNING")
		started[waiting[k]] = true
		waiting = append(waiting[:k], waiting[k+1:]...)
	}
}

// lineage is id and every job that replaced it, transitively.
func lineage(id string, children map[string][]string) []string {
	out := []string{id}
	for i := 0; i < len(out) && i < 100; i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// emfLines keeps the EMF lines of a function's log.
func emfLines(log []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(log, []byte("\n")) {
		if bytes.HasPrefix(line, []byte(`{"`)) && bytes.Contains(line, []byte(`"_aws"`)) {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}
