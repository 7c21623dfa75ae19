package submit_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/submit"
)

// answers lists the HTTP statuses the fake sent for op, in order.
func answers(fake *batchtest.Server, op string) []int {
	var out []int
	for _, c := range fake.Calls(op) {
		out = append(out, c.Answer)
	}
	return out
}

// sameBodies reports whether every call of op carried the same body, which
// is what makes Batch's clientToken check apply.
func sameBodies(t *testing.T, fake *batchtest.Server, op string) {
	t.Helper()
	calls := fake.Calls(op)
	for i := 1; i < len(calls); i++ {
		if !bytes.Equal(calls[i].Body, calls[0].Body) {
			t.Errorf("attempt %d of %s differs from the first:\n%s\n%s", i+1, op, calls[0].Body, calls[i].Body)
		}
	}
}

func TestRetriesNeverDuplicate(t *testing.T) {
	const ok, throttled, serverError, rejected = http.StatusOK, http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadRequest
	tests := []struct {
		name   string
		faults []batchtest.Fault
		// listFaults are scripted for ListServiceJobs.
		listFaults []batchtest.Fault
		// wantAnswers are the fake's answers to SubmitServiceJob, in order.
		wantAnswers []int
	}{
		{
			name:        "throttling is retried until Batch accepts",
			faults:      []batchtest.Fault{batchtest.Throttle, batchtest.Throttle},
			wantAnswers: []int{throttled, throttled, ok},
		},
		{
			name:        "server errors are retried until Batch accepts",
			faults:      []batchtest.Fault{batchtest.ServerError, batchtest.ServerError},
			wantAnswers: []int{serverError, serverError, ok},
		},
		{
			name: "an answer lost after the job was created makes the retry's repeated token rejected, and the job is found",
			// The retry repeats the token with an identical request: the
			// fake rejects it as Batch documents, and the handler finds
			// the job by name and token.
			faults:      []batchtest.Fault{{LoseAnswer: true}},
			wantAnswers: []int{serverError, rejected},
		},
		{
			name: "the job is found even when the listing lags just after the rejected repeat",
			// List calls: the look before submitting (nothing yet), then a
			// stale listing after the rejection, then the job.
			faults:      []batchtest.Fault{{LoseAnswer: true}},
			listFaults:  []batchtest.Fault{{}, {Stale: true}},
			wantAnswers: []int{serverError, rejected},
		},
		{
			name: "a job created before every retry failed is still returned",
			// fastPolicy makes 4 attempts: one lost answer, three 500s.
			faults:      []batchtest.Fault{{LoseAnswer: true}, batchtest.ServerError, batchtest.ServerError, batchtest.ServerError},
			wantAnswers: []int{serverError, serverError, serverError, serverError},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			fake.Script("SubmitServiceJob", tt.faults...)
			fake.Script("ListServiceJobs", tt.listFaults...)
			h := newHandler(t, nil, fake, fastPolicy)
			resp, ferr := invoke(t, invocation("", "req-1"), h, fixture(t, "submit-minimal.json"))
			if ferr != nil {
				t.Fatalf("function error %s: %s", ferr.Type, ferr.Message)
			}
			if diff := cmp.Diff(tt.wantAnswers, answers(fake, "SubmitServiceJob")); diff != "" {
				t.Errorf("SubmitServiceJob answers (-want +got):\n%s", diff)
			}
			sameBodies(t, fake, "SubmitServiceJob")
			jobs := fake.Jobs()
			if len(jobs) != 1 {
				t.Fatalf("%d jobs created, want exactly 1", len(jobs))
			}
			if resp.JobID != jobs[0].ID {
				t.Errorf("answered job %q, want the one created, %q", resp.JobID, jobs[0].ID)
			}
		})
	}
}

func TestThrottledWhenRetriesAreSpentThenTheSameKeySucceeds(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	// fastPolicy makes 4 attempts.
	fake.Script("SubmitServiceJob", batchtest.Throttle, batchtest.Throttle, batchtest.Throttle, batchtest.Throttle)
	h := newHandler(t, nil, fake, fastPolicy)
	payload := fixture(t, "submit-full.json")
	_, ferr := invoke(t, invocation("", "req-1"), h, payload)
	if ferr == nil || ferr.Type != "Throttled" {
		t.Fatalf("got %+v, want a Throttled function error", ferr)
	}
	if n := len(fake.Calls("SubmitServiceJob")); n != 4 {
		t.Errorf("%d attempts, want 4 (fastPolicy.MaxAttempts)", n)
	}
	if len(fake.Jobs()) != 0 {
		t.Fatal("a throttled submission created a job")
	}
	// The caller retries later: a new invocation, the same idempotencyKey.
	resp, ferr := invoke(t, invocation("", "req-2"), h, payload)
	if ferr != nil {
		t.Fatalf("retry failed: %s", ferr.Message)
	}
	if jobs := fake.Jobs(); len(jobs) != 1 || jobs[0].ID != resp.JobID {
		t.Errorf("jobs %+v, want exactly the one answered (%s)", jobs, resp.JobID)
	}
}

func TestSlowAnswerIsRetriedWithoutDuplicate(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	// The first attempt is held at the fake until the function has answered:
	// the client gives up on it after the attempt timeout and retries, and
	// the retry creates the job. Only then is the held call let through; it
	// takes effect after the retry, whatever the machine's load, and must
	// meet the token check.
	release, done := make(chan struct{}), make(chan struct{})
	fake.Script("SubmitServiceJob", batchtest.Fault{Release: release, Done: done})
	policy := submit.RetryPolicy{MaxAttempts: 3, MaxBackoff: 5 * time.Millisecond, AttemptTimeout: 100 * time.Millisecond}
	h := newHandler(t, nil, fake, policy)
	resp, ferr := invoke(t, invocation("", "req-1"), h, fixture(t, "submit-minimal.json"))
	close(release)
	if ferr != nil {
		t.Fatalf("function error %s: %s", ferr.Type, ferr.Message)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the held call never finished at the fake")
	}
	sameBodies(t, fake, "SubmitServiceJob")
	if diff := cmp.Diff([]int{http.StatusOK, http.StatusBadRequest}, answers(fake, "SubmitServiceJob")); diff != "" {
		t.Errorf("answers (-want +got): the retry creates the job, the held original is rejected\n%s", diff)
	}
	if jobs := fake.Jobs(); len(jobs) != 1 || jobs[0].ID != resp.JobID {
		t.Errorf("jobs %+v, want exactly the one answered (%s)", jobs, resp.JobID)
	}
}

func TestRepeatedInvocationReturnsTheExistingJob(t *testing.T) {
	tests := []struct {
		name        string
		fixture     string
		first, then string // request ids
		wantJobs    int
	}{
		{
			name:    "Lambda's retry of an asynchronous invocation (same request id) finds the job even when the snapshot now picks another instance type",
			fixture: "submit-minimal.json", first: "req-1", then: "req-1", wantJobs: 1,
		},
		{
			name:    "the same idempotencyKey in a new invocation finds the job",
			fixture: "submit-full.json", first: "req-1", then: "req-2", wantJobs: 1,
		},
		{
			name:    "without an idempotencyKey a new invocation is a new job",
			fixture: "submit-minimal.json", first: "req-1", then: "req-2", wantJobs: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, nil, fake, fastPolicy)
			first, ferr := invoke(t, invocation("", tt.first), h, fixture(t, tt.fixture))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			// The pool's first type is now full: a fresh choice would differ.
			fake.SetUsed(map[string]float64{"ml.p5.48xlarge": 40})
			second, ferr := invoke(t, invocation("", tt.then), h, fixture(t, tt.fixture))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			if n := len(fake.Jobs()); n != tt.wantJobs {
				t.Fatalf("%d jobs, want %d", n, tt.wantJobs)
			}
			if tt.wantJobs == 1 {
				want := first
				want.Existing = true
				// describe adds the status and creation time.
				second.Status, second.CreatedAt = "", ""
				if diff := cmp.Diff(want, second); diff != "" {
					t.Errorf("second answer (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestIdempotencyKeysAreScopedToTheTeam(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	var req map[string]any
	if err := json.Unmarshal(fixture(t, "submit-full.json"), &req); err != nil {
		t.Fatal(err)
	}
	for i, team := range []string{"search-research", "search-ranking"} {
		req["team"] = team
		b, _ := json.Marshal(req)
		if _, ferr := invoke(t, invocation("", "req-"+team), h, b); ferr != nil {
			t.Fatalf("submission %d: %s", i, ferr.Message)
		}
	}
	if n := len(fake.Jobs()); n != 2 {
		t.Errorf("%d jobs, want 2: two teams using the same key are different submissions", n)
	}
}
