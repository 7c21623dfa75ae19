package simulate_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// benchCSV is a generated trace (seed 7, default load) for platform p, as
// CSV bytes.
func benchCSV(b *testing.B, p *platform.Platform, jobs int) []byte {
	b.Helper()
	var csv bytes.Buffer
	w, err := trace.NewWriter(&csv)
	if err != nil {
		b.Fatal(err)
	}
	if err := trace.Generate(p, trace.GenerateOptions{Seed: 7, Jobs: jobs}, w.Write); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return csv.Bytes()
}

// benchRuns streams the trace from CSV once per policy, as `trainq
// simulate` does, and reports trace jobs per minute for all policies
// together.
func benchRuns(b *testing.B, p *platform.Platform, jobs int, policies ...simulate.Policy) {
	csv := benchCSV(b, p, jobs)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, pol := range policies {
			r, err := trace.NewReader(bytes.NewReader(csv))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := simulate.Run(p, r, simulate.Options{Policy: pol}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Minutes(), "jobs/min")
}

// BenchmarkPolicyAndFIFO100k simulates the 100,000-job generated trace on
// the default platform under its quota policy and FIFO.
func BenchmarkPolicyAndFIFO100k(b *testing.B) {
	benchRuns(b, platform.Default(), 100_000, simulate.PolicyPlatform, simulate.PolicyFIFO)
}

// BenchmarkPolicyAndFIFO1M is the same with 1,000,000 jobs.
func BenchmarkPolicyAndFIFO1M(b *testing.B) {
	benchRuns(b, platform.Default(), 1_000_000, simulate.PolicyPlatform, simulate.PolicyFIFO)
}

// BenchmarkQuotaBacklog100k simulates 100,000 jobs offered at 1.5 times the
// pools' capacity, so that the queues only grow: the cost per event must
// stay O(log n) with any backlog.
func BenchmarkQuotaBacklog100k(b *testing.B) {
	p := platform.Default()
	var csv bytes.Buffer
	w, _ := trace.NewWriter(&csv)
	if err := trace.Generate(p, trace.GenerateOptions{Seed: 7, Jobs: 100_000, Load: 1.5}, w.Write); err != nil {
		b.Fatal(err)
	}
	w.Flush()
	b.ResetTimer()
	for b.Loop() {
		r, _ := trace.NewReader(bytes.NewReader(csv.Bytes()))
		if _, err := simulate.Run(p, r, simulate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Minutes(), "jobs/min")
}

// BenchmarkFairShare100k simulates the 100,000-job trace on a fair-share
// variant of the default platform (weights 1 and 2, decay 3600 s,
// reservation 20).
func BenchmarkFairShare100k(b *testing.B) {
	p, err := platformfile.Parse([]byte(`pools: [{instanceType: ml.p5.48xlarge, instances: 40}, {instanceType: ml.p4d.24xlarge, instances: 60}]
scheduling: {mode: fairshare, shareDecaySeconds: 3600, computeReservation: 20}
teams: [{name: search_ranking}, {name: search_research, weight: 2}]
`))
	if err != nil {
		b.Fatal(err)
	}
	benchRuns(b, p, 100_000, simulate.PolicyPlatform)
}

// benchReroutePlatform is bench/simulate/reroute.yaml: the default platform with
// research and sweep re-routed between the two types.
func benchReroutePlatform(b testing.TB) *platform.Platform {
	p, err := platformfile.LoadFileOrDefault("../bench/simulate/reroute.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRerouteAndCheckpoints100k simulates the 100,000-job trace on
// bench/simulate/reroute.yaml (checkpoints and re-routing on) and FIFO.
func BenchmarkRerouteAndCheckpoints100k(b *testing.B) {
	benchRuns(b, benchReroutePlatform(b), 100_000, simulate.PolicyPlatform, simulate.PolicyFIFO)
}

// BenchmarkRerouteBacklog100k is the re-routing platform at offered load
// 1.5, where the queues only grow: each run of the re-router must cost a
// constant of the platform, not of the backlog.
func BenchmarkRerouteBacklog100k(b *testing.B) {
	p := benchReroutePlatform(b)
	var csv bytes.Buffer
	w, _ := trace.NewWriter(&csv)
	if err := trace.Generate(p, trace.GenerateOptions{Seed: 7, Jobs: 100_000, Load: 1.5}, w.Write); err != nil {
		b.Fatal(err)
	}
	w.Flush()
	b.ResetTimer()
	for b.Loop() {
		r, _ := trace.NewReader(bytes.NewReader(csv.Bytes()))
		if _, err := simulate.Run(p, r, simulate.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Minutes(), "jobs/min")
}
