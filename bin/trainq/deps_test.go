package main

import (
	"testing"

	"github.com/trainq/trainq/internal/deptest"
)

// TestCLILinksNeitherTheHandlerNorBatch keeps the CLI small: it speaks the
// submission function's wire contract (package contract) and links neither
// the handler, nor the Batch SDK, nor the Lambda runtime.
func TestCLILinksNeitherTheHandlerNorBatch(t *testing.T) {
	deptest.Forbid(t, "github.com/trainq/trainq/bin/trainq", "github.com/trainq/trainq/contract",
		"github.com/trainq/trainq/submit",
		"github.com/aws/aws-sdk-go-v2/service/batch",
		"github.com/aws/aws-lambda-go/lambda",
	)
}
