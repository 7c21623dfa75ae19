package submit_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/submit"
)

// The queue's name is the last part of testQueue's ARN.
const testQueueName = "trainq-training"

func TestOneMetricLinePerRequest(t *testing.T) {
	submitted := func(class, team string) map[string][]float64 {
		// JobsSubmitted under each of its four dimension sets, value 1.
		k := func(dims string) string { return "trainq/JobsSubmitted{" + dims + "}" }
		q := "Queue=" + testQueueName
		return map[string][]float64{
			k("Class=" + class + "," + q + ",Team=" + team): {1},
			k("Class=" + class + "," + q):                   {1},
			k(q + ",Team=" + team):                          {1},
			k(q):                                            {1},
		}
	}
	failed := func(errorType string) map[string][]float64 {
		return map[string][]float64{
			"trainq/SubmissionErrors{ErrorType=" + errorType + ",Queue=" + testQueueName + "}": {1},
			"trainq/SubmissionErrors{Queue=" + testQueueName + "}":                             {1},
		}
	}
	tests := []struct {
		name    string
		alias   string
		payload string
		// throttle makes every SubmitServiceJob attempt throttled.
		throttle bool
		want     map[string][]float64
	}{
		{name: "a created job counts one submission per class and team", payload: "submit-minimal.json", want: submitted("research", "search-ranking")},
		{name: "a created job through an alias counts the alias's class", alias: "production-search-ranking", payload: "submit-alias.json", want: submitted("production", "search-ranking")},
		{name: "a malformed request counts a ValidationError", payload: "bad-everything.json", want: failed("ValidationError")},
		{name: "a request that is not JSON counts a ValidationError", payload: "bad-not-json.txt", want: failed("ValidationError")},
		{name: "another class than the alias's counts Forbidden", alias: "sweep-search-ranking", payload: "submit-minimal.json", want: failed("Forbidden")},
		{name: "throttling after every retry counts Throttled", payload: "submit-minimal.json", throttle: true, want: failed("Throttled")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			if tt.throttle {
				// fastPolicy makes 4 attempts.
				fake.Script("SubmitServiceJob", batchtest.Throttle, batchtest.Throttle, batchtest.Throttle, batchtest.Throttle)
			}
			var out bytes.Buffer
			now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
			h := newHandlerWith(t, nil, fake, fastPolicy, func(c *submit.Config) {
				c.Metrics = &out
				c.Now = func() time.Time { return now }
			})
			invoke(t, invocation(tt.alias, "req-1"), h, fixture(t, tt.payload))
			if n := bytes.Count(out.Bytes(), []byte("\n")); n != 1 {
				t.Fatalf("%d metric lines, want 1:\n%s", n, out.String())
			}
			ds := emftest.Lines(t, out.Bytes())
			if diff := cmp.Diff(tt.want, emftest.Values(ds)); diff != "" {
				t.Errorf("data points (-want +got):\n%s", diff)
			}
			for _, d := range ds {
				if !d.Time.Equal(now) {
					t.Errorf("%s stamped %v, want the handler's clock %v", d.Key(), d.Time, now)
				}
			}
		})
	}
}

func TestSubmittedMetricsUseEveryDeclaredDimensionSet(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	var out bytes.Buffer
	h := newHandlerWith(t, nil, fake, fastPolicy, func(c *submit.Config) { c.Metrics = &out })
	invoke(t, invocation("", "req-1"), h, fixture(t, "submit-minimal.json"))
	invoke(t, invocation("", "req-2"), h, fixture(t, "bad-everything.json"))
	got := emftest.Sets(emftest.Lines(t, out.Bytes()))
	want := emftest.DeclaredSets([]metrics.Metric{metrics.JobsSubmitted, metrics.SubmissionErrors})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dimension sets (-declared +emitted):\n%s", diff)
	}
}

func TestAnswersThatCreateNoJobCountNothing(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	var out bytes.Buffer
	h := newHandlerWith(t, nil, fake, fastPolicy, func(c *submit.Config) { c.Metrics = &out })
	first, ferr := invoke(t, invocation("", "req-1"), h, fixture(t, "submit-full.json"))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	out.Reset()
	for i, payload := range [][]byte{
		// The same idempotency key in a new invocation: the existing job.
		fixture(t, "submit-full.json"),
		[]byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, first.JobID)),
		[]byte(fmt.Sprintf(`{"action":"reprioritize","jobId":%q,"priority":1}`, first.JobID)),
		[]byte(fmt.Sprintf(`{"action":"cancel","jobId":%q}`, first.JobID)),
	} {
		if _, ferr := invoke(t, invocation("", fmt.Sprintf("req-%d", i+2)), h, payload); ferr != nil {
			t.Fatalf("request %d: %s", i, ferr.Message)
		}
	}
	if out.Len() != 0 {
		t.Errorf("metric lines for answers that created no job, want none:\n%s", out.String())
	}
}
