package submit_test

import (
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// BenchmarkInvoke measures one request through the Lambda decode/encode
// path with a Batch stub that answers at once: the handler's own time per
// request, excluding the Batch calls (lookup, snapshot, submit).
func BenchmarkInvoke(b *testing.B) {
	h, err := submit.New(testConfig(declareFixtures(platform.Default()), stubBatch{}))
	if err != nil {
		b.Fatal(err)
	}
	for _, fx := range []string{"submit-minimal.json", "submit-full.json", "bad-everything.json"} {
		b.Run(fx, func(b *testing.B) {
			ctx := invocation("", "req-bench")
			payload := signed(b, ctx, callerOf(ctx), fixture(b, fx))
			lh := lambda.NewHandler(h)
			b.ReportAllocs()
			for b.Loop() {
				_, _ = lh.Invoke(ctx, payload)
			}
		})
	}
}
