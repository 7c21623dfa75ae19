package submit_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"

	"github.com/trainq/trainq/internal/hostile"
	"github.com/trainq/trainq/submit"
)

// TestSubmitterAnswersHostileRequestsExactly runs the submitter's hostile
// corpus (internal/hostile) through the Lambda decode path against the fake
// Batch endpoint, with the production retry policy: each request gets the
// exact error kind (Throttled for throttled look-ups cut by the deadline,
// ValidationError for a finished job, a repeated key or a payload SageMaker
// would refuse), a bounded message, and log and metric lines of at most 256
// KiB. bin/submitter runs the same cases under the Lambda Runtime Interface
// Emulator.
func TestSubmitterAnswersHostileRequestsExactly(t *testing.T) {
	for _, c := range hostile.SubmitterCases() {
		t.Run(c.Name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			var jobARN string
			if c.Setup != nil {
				var release func()
				jobARN, release = c.Setup(fake)
				if release != nil {
					defer release()
				}
			}
			var out bytes.Buffer
			h := newHandlerWith(t, nil, fake, submit.DefaultRetryPolicy, func(cfg *submit.Config) {
				cfg.Metrics = &out
				cfg.Logger = slog.New(slog.NewJSONHandler(&out, nil))
			})
			deadline := c.Deadline
			if deadline == 0 {
				deadline = time.Minute
			}
			ctx, cancel := context.WithTimeout(invocation(c.Alias, "req-hostile"), deadline)
			defer cancel()
			body, err := lambda.NewHandler(h).Invoke(ctx, signed(t, ctx, callerOf(ctx), c.Request(jobARN)))
			if ctx.Err() != nil {
				t.Fatalf("answered after the invocation's deadline")
			}
			var a hostile.SubmitterAnswer
			var fe messages.InvokeResponse_Error
			switch {
			case errors.As(err, &fe):
				a.ErrorType, a.ErrorMessage = fe.Type, fe.Message
			case err != nil:
				t.Fatalf("invoke: %T %v", err, err)
			default:
				if a, err = hostile.ParseAnswer(body); err != nil {
					t.Fatal(err)
				}
			}
			hostile.CheckSubmitter(t, c, fake, a)
			hostile.Lines(t, out.Bytes())
		})
	}
}
