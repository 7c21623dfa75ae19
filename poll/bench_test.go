package poll_test

import (
	"testing"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

// BenchmarkGauges measures the poller's computation and encoding of its
// gauges for 5000 runnable jobs (no network).
func BenchmarkGauges(b *testing.B) {
	p := platform.Default()
	jobs := make([]poll.RunnableJob, 5000)
	classes, teams := p.ClassNames(), p.TeamNames()
	for i := range jobs {
		jobs[i] = poll.RunnableJob{Class: classes[i%len(classes)], Team: teams[i%len(teams)], Since: t0}
	}
	usage := &batchrules.Usage{
		ByType:  map[string]float64{"ml.p5.48xlarge": 36, "ml.p4d.24xlarge": 15},
		ByShare: map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 30}},
	}
	b.ReportAllocs()
	for b.Loop() {
		g := poll.Gauges{Platform: p, Queue: queueName, Now: pollClock, Runnable: jobs, RunnableKnown: true, Usage: usage}
		for _, r := range g.Records() {
			if _, err := r.Encode(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
