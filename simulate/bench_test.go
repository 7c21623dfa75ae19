package simulate_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// benchTrace is the 100,000-job generated trace (seed 7, default platform).
func benchTrace(b *testing.B, p *platform.Platform) ([]trace.Job, []byte) {
	b.Helper()
	var jobs []trace.Job
	var csv bytes.Buffer
	w, err := trace.NewWriter(&csv)
	if err != nil {
		b.Fatal(err)
	}
	if err := trace.Generate(p, trace.GenerateOptions{Seed: 7, Jobs: 100000}, func(j trace.Job) error {
		jobs = append(jobs, j)
		return w.Write(j)
	}); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return jobs, csv.Bytes()
}

func benchRun(b *testing.B, pol simulate.Policy, fromCSV bool) {
	p := platform.Default()
	jobs, csv := benchTrace(b, p)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var src simulate.Source = &simulate.SliceSource{Jobs: jobs}
		if fromCSV {
			r, err := trace.NewReader(bytes.NewReader(csv))
			if err != nil {
				b.Fatal(err)
			}
			src = r
		}
		if _, err := simulate.Run(p, src, simulate.Options{Policy: pol}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-MiB")
}

// BenchmarkQuota100k simulates a 100,000-job generated trace under the
// default platform's quota policy, jobs already in memory.
func BenchmarkQuota100k(b *testing.B) { benchRun(b, simulate.PolicyPlatform, false) }

// BenchmarkQuota100kCSV is the same run streaming the trace from CSV, as
// `trainq simulate` does.
func BenchmarkQuota100kCSV(b *testing.B) { benchRun(b, simulate.PolicyPlatform, true) }

// BenchmarkFIFO100kCSV simulates the same CSV under the FIFO baseline.
func BenchmarkFIFO100kCSV(b *testing.B) { benchRun(b, simulate.PolicyFIFO, true) }

// BenchmarkFairShare100k simulates the same jobs on a fair-share variant of
// the default platform (weights 1 and 2, decay 3600 s, reservation 20).
func BenchmarkFairShare100k(b *testing.B) {
	p, err := platform.Parse([]byte(`pools: [{instanceType: ml.p5.48xlarge, instances: 40}, {instanceType: ml.p4d.24xlarge, instances: 60}]
scheduling: {mode: fairshare, shareDecaySeconds: 3600, computeReservation: 20}
teams: [{name: search_ranking}, {name: search_research, weight: 2}]
`))
	if err != nil {
		b.Fatal(err)
	}
	jobs, _ := benchTrace(b, p)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
