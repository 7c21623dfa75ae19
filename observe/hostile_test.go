package observe_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

// TestObserverSurvivesHostileEvents runs the hostile corpus
// (internal/hostile) through the Lambda decode path: no event fails the
// invocation, each keeps the metrics it can, every line is bounded and
// every rejection names the event, the job and the reason. bin/observer
// runs the same cases under the Lambda Runtime Interface Emulator.
func TestObserverSurvivesHostileEvents(t *testing.T) {
	for _, c := range hostile.ObserverCases(clock) {
		t.Run(c.Name, func(t *testing.T) {
			var out bytes.Buffer
			obs, err := observe.NewObserver(platform.Default(), queueARN, fixedClock, &out)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lambda.NewHandler(obs).Invoke(context.Background(), c.Event); err != nil {
				t.Fatalf("invoke: %v (the observer must never fail on an event)", err)
			}
			hostile.CheckObserver(t, c, out.Bytes())
		})
	}
}
