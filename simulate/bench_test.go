package simulate_test

import (
	"io"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

func generated(b *testing.B, n int) []trace.Job {
	b.Helper()
	var jobs []trace.Job
	if err := trace.Generate(platform.Default(), trace.GenerateOptions{Seed: 7, Jobs: n}, func(j trace.Job) error {
		jobs = append(jobs, j)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return jobs
}

func benchRun(b *testing.B, pol simulate.Policy) {
	jobs := generated(b, 100000)
	p := platform.Default()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: pol}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkQuota100k simulates a 100,000-job generated trace under the
// default platform's quota policy.
func BenchmarkQuota100k(b *testing.B) { benchRun(b, simulate.PolicyPlatform) }

// BenchmarkFIFO100k simulates the same trace under the FIFO baseline.
func BenchmarkFIFO100k(b *testing.B) { benchRun(b, simulate.PolicyFIFO) }

var _ = io.EOF
