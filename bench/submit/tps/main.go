// Command tps measures the submissions per second the submission handler
// sustains against a local Batch endpoint that, like AWS Batch, allows about
// 5 submissions a second (a token bucket of depth 5 refilled at 5/s). Each
// worker stands for one concurrent Lambda execution environment: its own
// handler and SDK client with the production retry policy. It reports the
// rate, what the callers saw and whether any submission was duplicated.
//
// It must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

func main() {
	workers := flag.Int("workers", 8, "concurrent submitters (Lambda execution environments)")
	seconds := flag.Int("seconds", 30, "how long new submissions are started")
	limit := flag.Float64("limit", 5, "Batch submissions per second the endpoint allows")
	flag.Parse()
	if err := run(*workers, time.Duration(*seconds)*time.Second, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "tps:", err)
		os.Exit(1)
	}
}

type result struct {
	latency time.Duration
	kind    string // "" for success, else the function error type
}

func run(workers int, window time.Duration, limit float64) error {
	fake := batchtest.New(limit)
	defer fake.Close()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""), BaseEndpoint: aws.String(fake.URL)}
	tj := json.RawMessage(`{"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/bench/"},"ResourceConfig":{"InstanceCount":1,"VolumeSizeInGB":100}}`)

	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(window)
	// Every request is signed by the operator and verified by a loopback
	// STS, as the function verifies each caller: the figures include it.
	sts := ststest.New("us-east-1")
	defer sts.Close()
	operator := sts.CallerOf("")
	for w := 0; w < workers; w++ {
		h, err := submit.New(submit.Config{Platform: platform.Default(), JobQueue: "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training",
			ExecutionRoleARN: "arn:aws:iam::123456789012:role/trainq-sagemaker", Batch: submit.NewBatchClient(cfg, submit.DefaultRetryPolicy),
			Identity: &submit.STSVerifier{Endpoint: sts.URL}, Operators: []string{ststest.OperatorRole}})
		if err != nil {
			return err
		}
		lh := lambda.NewHandler(h)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				plain, _ := json.Marshal(contract.Request{JobName: fmt.Sprintf("bench-%d-%d", w, i), Team: "search-ranking", Class: "sweep",
					IdempotencyKey: fmt.Sprintf("bench/%d/%d", w, i), TrainingJob: tj})
				req, err := sts.SignedPayload(operator, "trainq-submit", plain)
				if err != nil {
					panic(err)
				}
				ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{
					AwsRequestID: fmt.Sprintf("req-%d-%d", w, i), InvokedFunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:trainq-submit"})
				ctx, cancel := context.WithTimeout(ctx, time.Minute)
				t0 := time.Now()
				_, err = lh.Invoke(ctx, req)
				cancel()
				r := result{latency: time.Since(t0)}
				var fe messages.InvokeResponse_Error
				if errors.As(err, &fe) {
					r.kind = fe.Type
				} else if err != nil {
					r.kind = err.Error()
				}
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)

	jobs := fake.Jobs()
	tokens := map[string]int{}
	dups := 0
	for _, j := range jobs {
		tokens[j.Request.ClientToken]++
		if tokens[j.Request.ClientToken] == 2 {
			dups++
		}
	}
	throttles := 0
	for _, c := range fake.Calls("SubmitServiceJob") {
		if c.Answer == http.StatusTooManyRequests {
			throttles++
		}
	}
	kinds := map[string]int{}
	var lat []time.Duration
	for _, r := range results {
		kinds[r.kind]++
		if r.kind == "" {
			lat = append(lat, r.latency)
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	inWindow := 0
	for _, j := range jobs {
		if j.CreatedAt <= deadline.UnixMilli() {
			inWindow++
		}
	}
	// The bucket starts full (limit jobs) and refills at limit per second:
	// at most limit*(1+window) jobs can be accepted in the window.
	fmt.Printf("| submissions/s sustained, %d workers for %s against a %g/s limit | %.2f/s (%d jobs created in the window; ceiling %.0f = %g × (1 + %.0f s)) |\n",
		workers, window, limit, float64(inWindow)/window.Seconds(), inWindow, limit*(1+window.Seconds()), limit, window.Seconds())
	fmt.Printf("| all jobs, including those in flight at the end | %d in %.1f s |\n", len(jobs), elapsed.Seconds())
	fmt.Printf("| callers' answers: jobs / Throttled / other errors | %d / %d / %d |\n", kinds[""], kinds["Throttled"], len(results)-kinds[""]-kinds["Throttled"])
	fmt.Printf("| 429s answered by the endpoint (all retried) | %d |\n", throttles)
	fmt.Printf("| duplicate jobs (same clientToken twice) | %d |\n", dups)
	if len(lat) > 0 {
		fmt.Printf("| submission latency under throttling: median / p95 | %.2f s / %.2f s |\n", lat[len(lat)/2].Seconds(), lat[len(lat)*95/100].Seconds())
	}
	for k, n := range kinds {
		if k != "" && k != "Throttled" {
			fmt.Fprintf(os.Stderr, "tps: %d answers of %q\n", n, k)
		}
	}
	return nil
}
