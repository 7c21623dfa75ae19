package submit_test

import (
	"context"
	"testing"
	"time"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/submit"
)

func TestAnswersBeforeTheInvocationDeadline(t *testing.T) {
	// The invocation has 3 s; with a 2 s margin the Batch calls stop after
	// about 1 s and the answer leaves with about 2 s to spare, whereas the
	// retry budget (1000 attempts) would run far past the deadline.
	const timeout, margin = 3 * time.Second, 2 * time.Second
	policy := submit.RetryPolicy{MaxAttempts: 1000, MaxBackoff: 20 * time.Millisecond, AttemptTimeout: time.Minute}
	tests := []struct {
		name string
		// setup misbehaves the fake; the returned func undoes it.
		setup    func(*batchtest.Server) func()
		wantType string
	}{
		{
			name: "Batch throttling every attempt is answered Throttled",
			setup: func(f *batchtest.Server) func() {
				f.Script("SubmitServiceJob", repeat(batchtest.Throttle, 1000)...)
				return func() {}
			},
			wantType: "Throttled",
		},
		{
			name: "Batch not answering is answered UpstreamError",
			setup: func(f *batchtest.Server) func() {
				release := make(chan struct{})
				f.Script("SubmitServiceJob", batchtest.Fault{Release: release, Status: 500})
				return func() { close(release) }
			},
			wantType: "UpstreamError",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			undo := tt.setup(fake)
			defer undo()
			h := newHandlerWith(t, nil, fake, policy, func(c *submit.Config) { c.DeadlineMargin = margin })
			ctx, cancel := context.WithTimeout(invocation("", "req-1"), timeout)
			defer cancel()
			_, ferr := invoke(t, ctx, h, fixture(t, "submit-minimal.json"))
			if err := ctx.Err(); err != nil {
				t.Fatalf("answered after the invocation's deadline (%v): Lambda would have killed it", err)
			}
			if ferr == nil || ferr.Type != tt.wantType {
				t.Fatalf("got %+v, want a %s function error", ferr, tt.wantType)
			}
			if n := len(fake.Jobs()); n != 0 {
				t.Errorf("%d jobs created, want none", n)
			}
			if n := len(fake.Calls("ListServiceJobs")); n < 2 {
				t.Errorf("%d job lookups, want 2: before submitting and after the failure", n)
			}
		})
	}
}

func repeat(f batchtest.Fault, n int) []batchtest.Fault {
	out := make([]batchtest.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}
