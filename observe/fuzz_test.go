package observe_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

// FuzzObserver feeds the observer arbitrary payloads, seeded with every
// fixture and the hostile corpus: it must never panic nor fail the
// invocation, whatever it writes must be valid EMF in lines of at most 256
// KiB, and every rejection line names the event id and the reason. `go
// test` runs the seeds; bench/fuzz/run.sh explores further.
func FuzzObserver(f *testing.F) {
	entries, err := os.ReadDir(filepath.Join("testdata", "events"))
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata", "events", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, c := range hostile.ObserverCases(clock) {
		if len(c.Event) < 4096 {
			f.Add(c.Event)
		}
	}
	f.Add([]byte(`{"source":"aws.batch","detail-type":"Batch Service Job State Change","detail":{"jobQueue":"trainq-training","status":"RUNNING","quotaShareName":"search-ranking","schedulingPriority":950,"attempts":[{"startedAt":-5}],"createdAt":9223372036854775807}}`))
	p := platform.Default()
	f.Fuzz(func(t *testing.T, payload []byte) {
		var out bytes.Buffer
		obs, err := observe.NewObserver(p, queueARN, fixedClock, &out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obs.Invoke(context.Background(), payload); err != nil {
			t.Fatalf("invoke failed on %q: %v", payload, err)
		}
		// Every line is checked: at most 256 KiB, valid UTF-8, and, when it
		// is EMF, valid EMF (emftest.ValidateLine).
		lines, _ := hostile.MetricLines(t, out.Bytes())
		if len(lines) == 0 && out.Len() > 0 {
			t.Fatalf("output without an EMF line: %q", out.Bytes())
		}
		for _, l := range lines {
			if _, rejected := l["EventsRejected"]; !rejected {
				continue
			}
			if _, ok := l["eventId"].(string); !ok {
				t.Fatalf("rejection line without eventId for %q", payload)
			}
			if r, _ := l["reason"].(string); r == "" {
				t.Fatalf("rejection line without reason for %q", payload)
			}
		}
	})
}
