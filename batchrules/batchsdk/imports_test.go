package batchsdk_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBatchsdkImportsOnlyTheSDKAndBatchrules keeps the adapter thin: the
// standard library, the AWS SDK's aws (with its retry and HTTP transport)
// and Batch packages, smithy's errors, and batchrules.
func TestBatchsdkImportsOnlyTheSDKAndBatchrules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/trainq/trainq/batchrules/batchsdk").Output()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"github.com/aws/aws-sdk-go-v2/aws":                true,
		"github.com/aws/aws-sdk-go-v2/aws/ratelimit":      true,
		"github.com/aws/aws-sdk-go-v2/aws/retry":          true,
		"github.com/aws/aws-sdk-go-v2/aws/transport/http": true,
		"github.com/aws/aws-sdk-go-v2/service/batch":      true,
		"github.com/aws/smithy-go":                        true,
		"github.com/trainq/trainq/batchrules":             true,
	}
	for _, imp := range strings.Fields(string(out)) {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !allowed[imp] {
			t.Errorf("batchsdk imports %s; it imports the standard library, the Batch SDK and batchrules only", imp)
		}
	}
}
