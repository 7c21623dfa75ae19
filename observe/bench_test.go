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
