package submit_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
)

// TestQueueAndExplanationAreBoundedWhateverBatchAnswers: Batch answers with
// names and reasons of 100,000 characters and invalid UTF-8, a front of
// 5,001 jobs, shares the platform lacks and a capacity unit that is no
// instance type. Every string of the answers is valid UTF-8 of at most
// contract.MaxShownChars characters (the messages, built by trainq, at most
// contract.MaxLoggedChars), and every list within its bound.
func TestQueueAndExplanationAreBoundedWhateverBatchAnswers(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := queueHandler(t, fake)
	long := strings.Repeat("é", 100_000) + "\xff"
	job := fake.Add(batchtest.Job{Status: "RUNNABLE", StatusReason: long, Request: batchtest.SubmitRequest{JobName: long, JobQueue: testQueue,
		QuotaShareName: strp("vision"), SchedulingPriority: intp(550),
		ServiceRequestPayload: `{"ResourceConfig":{"InstanceType":"` + long + `","InstanceCount":1e300}}`,
		Tags:                  map[string]string{contract.TagTeam: "vision", contract.TagClass: long}}})
	front := []map[string]any{{"jobArn": "arn:aws:batch:us-east-1:123456789012:service-job/" + long, "earliestTimeAtPosition": -1}}
	for i := range 5000 {
		front = append(front, map[string]any{"jobArn": fmt.Sprintf("arn:aws:batch:us-east-1:123456789012:service-job/j%d", i), "earliestTimeAtPosition": i})
	}
	fake.Handle("GetJobQueueSnapshot", func([]byte) (int, any) {
		return 200, map[string]any{
			"frontOfQueue":       map[string]any{"jobs": front},
			"frontOfQuotaShares": map[string]any{"quotaShares": map[string]any{"vision": front, long: front}},
			"queueUtilization": map[string]any{
				"totalCapacityUsage":    []any{map[string]any{"capacityUnit": long, "quantity": 1e300}, map[string]any{"capacityUnit": p5, "quantity": 3}},
				"quotaShareUtilization": map[string]any{"topCapacityUtilization": []any{map[string]any{"quotaShareName": long, "capacityUsage": []any{map[string]any{"capacityUnit": p5, "quantity": 2}}}}},
			},
		}
	})
	var answers [][]byte
	for _, req := range []string{`{"action":"queue"}`, fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)} {
		resp, ferr := invoke(t, invocation("", "req-1"), h, []byte(req))
		if ferr != nil {
			t.Fatal(ferr.Message)
		}
		if resp.Queue != nil && len(resp.Queue.Usage) > contract.MaxUsageRows {
			t.Errorf("%d usage rows, more than %d", len(resp.Queue.Usage), contract.MaxUsageRows)
		}
		if e := resp.Explanation; e != nil && (e.QueueListed > 100 || len(e.Usage) > contract.MaxUsageRows) {
			t.Errorf("explanation lists %d front jobs, %d usage rows", e.QueueListed, len(e.Usage))
		}
		// The whole answer: the describe's own fields (name, status
		// reason, class) as well as the queue and the explanation.
		b, _ := json.Marshal(resp)
		answers = append(answers, b)
	}
	for _, b := range answers {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		walk(v, func(path, s string) {
			limit := contract.MaxShownChars
			if strings.HasSuffix(path, "message") || strings.HasSuffix(path, "note") || strings.HasSuffix(path, "scope") || path == ".statusReason" || strings.HasSuffix(path, "/statusReason") {
				limit = contract.MaxLoggedChars
			}
			if n := utf8.RuneCountInString(s); n > limit || !utf8.ValidString(s) {
				t.Errorf("%s: %d characters (valid UTF-8: %v), want at most %d", path, n, utf8.ValidString(s), limit)
			}
		})
	}
}

// walk calls f with every string in v and its path.
func walk(v any, f func(path, s string)) {
	var rec func(string, any)
	rec = func(path string, v any) {
		switch x := v.(type) {
		case string:
			f(path, x)
		case []any:
			for i, e := range x {
				rec(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			for k, e := range x {
				rec(path+"."+k, e)
			}
		}
	}
	rec("", v)
}
