package submit_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/submit"
)

// submitOne submits the minimal research fixture and returns its answer.
func submitOne(t *testing.T, h *submit.Handler) contract.Response {
	t.Helper()
	resp, ferr := invoke(t, invocation("", "req-submit"), h, fixture(t, "submit-minimal.json"))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	return resp
}

func TestDescribeReturnsWhatWasSubmitted(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	sub := submitOne(t, h)
	got, ferr := invoke(t, invocation("research-search-ranking", "req-2"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, sub.JobID)))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if got.CreatedAt == "" {
		t.Error("describe gave no createdAt")
	}
	got.CreatedAt = ""
	// A SUBMITTED job waits: describe explains why. The fake reports
	// nothing in use and no per-share usage, so the pool's 40 ml.p5.48xlarge
	// are idle for the job's one instance: next.
	if got.Explanation == nil || got.Explanation.Reason != contract.ReasonNext {
		t.Errorf("explanation %+v, want reason %s", got.Explanation, contract.ReasonNext)
	}
	got.Explanation = nil
	want := sub
	want.Status = "SUBMITTED"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("describe of a research job through the sweep alias (reading is allowed) (-want +got):\n%s", diff)
	}
}

func TestCancelAndReprioritize(t *testing.T) {
	tests := []struct {
		name     string
		alias    string
		request  string // %s is the job id
		wantType string
		// wantPriority is the job's scheduling priority afterwards.
		wantPriority int
		wantCanceled bool
	}{
		{
			name:    "an operator re-prioritizes inside the job's band",
			request: `{"action":"reprioritize","jobId":%q,"priority":0}`,
			// research band starts at 500: 500 + 0*99/99.
			wantPriority: 500,
		},
		{
			name:    "the class's alias re-prioritizes its own jobs",
			alias:   "research-search-ranking",
			request: `{"action":"reprioritize","jobId":%q,"priority":99}`,
			// 500 + 99*99/99 = 599.
			wantPriority: 599,
		},
		{
			name:     "another class's alias may not re-prioritize",
			alias:    "production-search-ranking",
			request:  `{"action":"reprioritize","jobId":%q,"priority":99}`,
			wantType: "Forbidden",
			// unchanged: the submitted 550.
			wantPriority: 550,
		},
		{
			name:     "re-prioritizing never moves a job to another class",
			request:  `{"action":"reprioritize","jobId":%q,"priority":10,"class":"production"}`,
			wantType: "Forbidden", wantPriority: 550,
		},
		{
			name:         "the class's alias cancels its own jobs",
			alias:        "research-search-ranking",
			request:      `{"action":"cancel","jobId":%q,"reason":"wrong dataset"}`,
			wantPriority: 550, wantCanceled: true,
		},
		{
			name:     "another class's alias may not cancel",
			alias:    "sweep-search-ranking",
			request:  `{"action":"cancel","jobId":%q}`,
			wantType: "Forbidden", wantPriority: 550,
		},
		{
			name:     "reprioritize without a priority is refused",
			request:  `{"action":"reprioritize","jobId":%q}`,
			wantType: "ValidationError", wantPriority: 550,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, nil, fake, fastPolicy)
			sub := submitOne(t, h)
			_, ferr := invoke(t, invocation(tt.alias, "req-2"), h, []byte(fmt.Sprintf(tt.request, sub.JobID)))
			gotType := ""
			if ferr != nil {
				gotType = ferr.Type
			}
			if gotType != tt.wantType {
				t.Fatalf("errorType %q, want %q (%+v)", gotType, tt.wantType, ferr)
			}
			job := fake.Jobs()[0]
			if p := *job.Request.SchedulingPriority; p != tt.wantPriority {
				t.Errorf("scheduling priority %d, want %d", p, tt.wantPriority)
			}
			if job.Terminated != tt.wantCanceled {
				t.Errorf("terminated %v, want %v", job.Terminated, tt.wantCanceled)
			}
			if tt.wantCanceled && job.StatusReason != contract.CancelReasonPrefix+" by role pipeline-research-search-ranking: wrong dataset" {
				t.Errorf("reason %q, want trainq's prefix and the caller's reason", job.StatusReason)
			}
		})
	}
}

func TestManageRefusals(t *testing.T) {
	tests := []struct {
		name       string
		request    string
		wantFields []string
	}{
		{"an unknown job id is refused", `{"action":"describe","jobId":"no-such-job"}`, []string{"jobId"}},
		{"a missing job id is refused", `{"action":"cancel"}`, []string{"jobId"}},
		{"submit fields on a cancel are refused", `{"action":"cancel","jobId":"x","jobName":"a","trainingJob":{}}`, []string{"jobName", "trainingJob"}},
		{"an unknown action is refused", `{"action":"delete","jobId":"x"}`, []string{"action"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, nil, fake, fastPolicy)
			_, ferr := invoke(t, invocation("", "req-1"), h, []byte(tt.request))
			if ferr == nil || ferr.Type != "ValidationError" {
				t.Fatalf("got %+v, want a ValidationError", ferr)
			}
			if diff := cmp.Diff(tt.wantFields, problemFields(ferr.Message)); diff != "" {
				t.Errorf("fields (-want +got):\n%s\n%s", diff, ferr.Message)
			}
		})
	}
}

func TestResponseFieldNamesAreTheContract(t *testing.T) {
	b, err := json.Marshal(contract.Response{JobID: "j", JobARN: "a", JobName: "n", JobQueue: "q", Team: "t", Class: "c", SchedulingPriority: 1, InstanceType: "i"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	want := map[string]any{"jobId": "j", "jobArn": "a", "jobName": "n", "jobQueue": "q", "team": "t", "class": "c",
		"schedulingPriority": 1.0, "instanceType": "i"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("submit answer keys (-want +got):\n%s", diff)
	}
}

func TestCancelReasonStartsWithTheObserversPrefix(t *testing.T) {
	tests := []struct {
		name    string
		request string // %s is the job id
		// wantReason is the reason on the wire: the prefix the observer
		// matches, then the caller's reason or the default.
		wantReason string
	}{
		{"the caller's reason follows the prefix", `{"action":"cancel","jobId":%q,"reason":"wrong dataset"}`, "trainq: cancelled by role pipeline-research-search-ranking: wrong dataset"},
		{"without a reason the default follows the prefix", `{"action":"cancel","jobId":%q}`, "trainq: cancelled by role pipeline-research-search-ranking: through trainq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, nil, fake, fastPolicy)
			sub := submitOne(t, h)
			if _, ferr := invoke(t, invocation("research-search-ranking", "req-2"), h, []byte(fmt.Sprintf(tt.request, sub.JobID))); ferr != nil {
				t.Fatal(ferr.Message)
			}
			calls := fake.Calls("TerminateServiceJob")
			if len(calls) != 1 {
				t.Fatalf("%d TerminateServiceJob calls, want 1", len(calls))
			}
			var body struct{ JobID, Reason string }
			if err := json.Unmarshal(calls[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(struct{ JobID, Reason string }{sub.JobID, tt.wantReason}, body); diff != "" {
				t.Errorf("TerminateServiceJob request (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(body.Reason, contract.CancelReasonPrefix) {
				t.Errorf("reason %q does not start with contract.CancelReasonPrefix %q", body.Reason, contract.CancelReasonPrefix)
			}
		})
	}
}

func TestDescribeErrorsOtherThanNotFoundAreUpstream(t *testing.T) {
	tests := []struct {
		name     string
		fault    batchtest.Fault
		wantType string
	}{
		{"a missing permission is the platform's problem, not the request's", batchtest.Fault{Status: http.StatusForbidden}, "UpstreamError"},
		{"an unrecognized client is the platform's problem", batchtest.Fault{Status: http.StatusForbidden, Code: "UnrecognizedClientException"}, "UpstreamError"},
		{"a job Batch does not know is the request's problem", batchtest.Fault{Status: http.StatusBadRequest, Code: "ClientException"}, "ValidationError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			fake.Script("DescribeServiceJob", tt.fault)
			h := newHandler(t, nil, fake, fastPolicy)
			_, ferr := invoke(t, invocation("", "req-1"), h, []byte(`{"action":"cancel","jobId":"4f2a9c1e-0000-4000-8000-000000000001"}`))
			if ferr == nil || ferr.Type != tt.wantType {
				t.Fatalf("got %+v, want a %s function error", ferr, tt.wantType)
			}
			if tt.wantType == "UpstreamError" && strings.Contains(ferr.Message, "existing job") {
				t.Errorf("message blames the job id:\n%s", ferr.Message)
			}
		})
	}
}

func TestJobIDMessageDescribesThePattern(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	// A job ARN is accepted (it passes the pattern and reaches Batch, which
	// does not know it); a space is not, and the message says what is.
	_, ferr := invoke(t, invocation("", "req-1"), h, []byte(`{"action":"describe","jobId":"arn:aws:batch:us-east-1:123456789012:service-job/a_b.c"}`))
	if ferr == nil || !strings.Contains(ferr.Message, "an existing job") {
		t.Fatalf("got %+v, want the ARN to pass the pattern and be unknown to Batch", ferr)
	}
	_, ferr = invoke(t, invocation("", "req-2"), h, []byte(`{"action":"describe","jobId":"no such job"}`))
	want := `jobId: got "no such job", want a Batch job id (letters, digits, '-', '_' and '.', as submit returns it) or the job's ARN (arn:aws:batch:REGION:ACCOUNT:service-job/ID)`
	if ferr == nil || !strings.Contains(ferr.Message, want) {
		t.Errorf("got %+v, want the message %q", ferr, want)
	}
}
