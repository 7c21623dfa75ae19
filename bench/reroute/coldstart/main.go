// Command coldstart measures the cold start of the re-router's bootstrap
// under the AWS Lambda Runtime Interface Emulator next to a hello-world Go
// Lambda (bench/submit/hello), in the same run: for each, it starts a fresh
// emulator n times, invokes once, and reports the emulator's INIT REPORT
// (the init phase) and the first invocation's round trip, as medians. The
// re-router's first invocation is a whole run against a local Batch
// endpoint with an empty queue (seven listings and nothing to move).
//
// It must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/lambdatest"
)

func main() {
	n := flag.Int("n", 10, "cold starts per function")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "trainq-reroute-coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rie, err := lambdatest.Build(ctx, lambdatest.RIEPackage, dir, "aws-lambda-rie")
	if err != nil {
		return err
	}
	boot, err := lambdatest.Build(ctx, lambdatest.RerouterPackage, dir, "bootstrap")
	if err != nil {
		return err
	}
	if err := lambdatest.WritePlatform(dir, nil); err != nil {
		return err
	}
	hello, err := lambdatest.Build(ctx, "github.com/trainq/trainq/bench/submit/hello", dir, "hello")
	if err != nil {
		return err
	}
	fake := batchtest.New(0)
	defer fake.Close()
	env := lambdatest.Env("AWS_ENDPOINT_URL_BATCH="+fake.URL, "LAMBDA_TASK_ROOT="+dir,
		contract.EnvJobQueue+"=arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training")
	payload := []byte(`{"source":"aws.events","detail-type":"Scheduled Event","detail":{}}`)
	for _, fn := range []struct{ name, path string }{{"hello-world Go Lambda", hello}, {"trainq rerouter", boot}} {
		var inits, firsts []time.Duration
		for i := 0; i < n; i++ {
			e, err := lambdatest.Start(ctx, rie, fn.path, env)
			if err != nil {
				return err
			}
			t0 := time.Now()
			status, body, err := e.Invoke(ctx, payload)
			first := time.Since(t0)
			var init time.Duration
			ok := false
			for j := 0; j < 50 && !ok; j++ {
				if init, ok = e.InitDuration(); !ok {
					time.Sleep(10 * time.Millisecond)
				}
			}
			e.Close()
			if err != nil || !ok || status != 200 {
				return fmt.Errorf("%s: invoke %d %s %v, init report found %v:\n%s", fn.name, status, body, err, ok, e.Log())
			}
			inits, firsts = append(inits, init), append(firsts, first)
		}
		fmt.Printf("| cold start, %s: init (median of %d) | %.1f ms |\n", fn.name, n, ms(median(inits)))
		fmt.Printf("| cold start, %s: first invoke round trip (median of %d) | %.1f ms |\n", fn.name, n, ms(median(firsts)))
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
