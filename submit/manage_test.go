package submit_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/submit"
	"github.com/trainq/trainq/submit/batchfake"
)

// submitOne submits the minimal research fixture and returns its answer.
func submitOne(t *testing.T, h *submit.Handler) submit.Response {
	t.Helper()
	resp, ferr := invoke(t, invocation("", "req-submit"), h, fixture(t, "submit-minimal.json"))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	return resp
}

func TestDescribeReturnsWhatWasSubmitted(t *testing.T) {
	fake := batchfake.New(0)
	defer fake.Close()
	h := newHandler(t, nil, fake, fastPolicy)
	sub := submitOne(t, h)
	got, ferr := invoke(t, invocation("sweep", "req-2"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, sub.JobID)))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if got.CreatedAt == "" {
		t.Error("describe gave no createdAt")
	}
	got.CreatedAt = ""
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
			alias:   "research",
			request: `{"action":"reprioritize","jobId":%q,"priority":99}`,
			// 500 + 99*99/99 = 599.
			wantPriority: 599,
		},
		{
			name:     "another class's alias may not re-prioritize",
			alias:    "production",
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
			alias:        "research",
			request:      `{"action":"cancel","jobId":%q,"reason":"wrong dataset"}`,
			wantPriority: 550, wantCanceled: true,
		},
		{
			name:     "another class's alias may not cancel",
			alias:    "sweep",
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
			fake := batchfake.New(0)
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
			if tt.wantCanceled && job.StatusReason != "wrong dataset" {
				t.Errorf("reason %q, want the caller's", job.StatusReason)
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
			fake := batchfake.New(0)
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
	b, err := json.Marshal(submit.Response{JobID: "j", JobARN: "a", JobName: "n", JobQueue: "q", Team: "t", Class: "c", SchedulingPriority: 1, InstanceType: "i"})
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
