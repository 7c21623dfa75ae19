package main

import (
	"testing"

	"github.com/trainq/trainq/internal/deptest"
)

// TestObserverLinksNeitherThePollerNorBatch keeps the event observer small:
// it reads events, so it links neither the snapshot poller nor the Batch
// SDK nor the submission handler.
func TestObserverLinksNeitherThePollerNorBatch(t *testing.T) {
	deptest.Forbid(t, "github.com/trainq/trainq/bin/observer", "github.com/trainq/trainq/observe",
		"github.com/trainq/trainq/poll",
		"github.com/trainq/trainq/submit",
		"github.com/aws/aws-sdk-go-v2/service/batch",
	)
}
