package poll_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

// TestPollerSurvivesHostileAnswers runs the poller's hostile corpus
// (internal/hostile) against the fake Batch endpoint: one odd entry, a hung
// call or a repeated job costs only what it touches, nothing negative is
// published, every line is bounded, and a run with a hung call ends before
// its deadline. bin/poller runs the same cases under the Lambda Runtime
// Interface Emulator.
func TestPollerSurvivesHostileAnswers(t *testing.T) {
	for _, c := range hostile.PollerCases() {
		t.Run(c.Name, func(t *testing.T) {
			fake := batchtest.New(0)
			fake.SetLabel(t.Name())
			defer fake.Close()
			hostile.Serve(fake, pollClock)
			if c.Setup != nil {
				if release := c.Setup(fake, pollClock); release != nil {
					defer release()
				}
			}
			var out bytes.Buffer
			p, err := poll.NewPoller(poll.PollerConfig{
				Platform: platform.Default(), Queue: queueARN, Batch: batchClient(t, &fakeBatch{fake}), Now: fixedClock, Out: &out,
				Log: slog.New(slog.NewJSONHandler(&out, nil)), CallTimeout: 300 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err = p.Poll(ctx)
			if ctx.Err() != nil {
				t.Fatalf("the run outlived its deadline: %v", ctx.Err())
			}
			hostile.CheckPoller(t, c, out.Bytes(), err)
		})
	}
}
