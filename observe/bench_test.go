package observe_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

// BenchmarkObserverEvent measures the observer's handling of one event, from
// the raw payload to the EMF line written, for typical events.
func BenchmarkObserverEvent(b *testing.B) {
	for _, fixture := range []string{"running.json", "succeeded.json", "preempted-failed.json", "scheduled.json", "unknown-share.json"} {
		payload, err := os.ReadFile(filepath.Join("testdata", "events", fixture))
		if err != nil {
			b.Fatal(err)
		}
		obs, err := observe.NewObserver(platform.Default(), queueARN, fixedClock, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fixture, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if _, err := obs.Invoke(context.Background(), payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGauges measures the poller's computation and encoding of its
// gauges for 5000 runnable jobs (no network).
func BenchmarkGauges(b *testing.B) {
	p := platform.Default()
	jobs := make([]observe.RunnableJob, 5000)
	classes, teams := p.ClassNames(), p.TeamNames()
	for i := range jobs {
		jobs[i] = observe.RunnableJob{Class: classes[i%len(classes)], Team: teams[i%len(teams)], Since: t0}
	}
	usage := &observe.Usage{
		ByType:  map[string]float64{"ml.p5.48xlarge": 36, "ml.p4d.24xlarge": 15},
		ByShare: map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 30}},
	}
	b.ReportAllocs()
	for b.Loop() {
		g := observe.Gauges{Platform: p, Queue: queueName, Now: pollClock, Runnable: jobs, RunnableKnown: true, Usage: usage}
		for _, r := range g.Records() {
			if _, err := r.Encode(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
