package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
)

const (
	queueName = "trainq-training"
	queueARN  = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
)

// clock is the fixed time the tests stamp metrics with.
var clock = time.Date(2026, 11, 29, 17, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return clock }

// perJob lists the four data points one job metric yields: per class and
// team, per class, per team and for the queue.
func perJob(name, class, team string, v float64) map[string][]float64 {
	return map[string][]float64{
		"trainq/" + name + "{Class=" + class + ",Queue=" + queueName + ",Team=" + team + "}": {v},
		"trainq/" + name + "{Class=" + class + ",Queue=" + queueName + "}":                   {v},
		"trainq/" + name + "{Queue=" + queueName + ",Team=" + team + "}":                     {v},
		"trainq/" + name + "{Queue=" + queueName + "}":                                       {v},
	}
}

// failedJob is a failure's JobsFailed: per job, and per class with whose
// fault it was (metrics.FaultPlatform or FaultJob).
func failedJob(class, team, fault string) map[string][]float64 {
	return merge(perJob("JobsFailed", class, team, 1), map[string][]float64{
		"trainq/JobsFailed{Class=" + class + ",Fault=" + fault + ",Queue=" + queueName + "}": {1},
	})
}

func rejected() map[string][]float64 {
	return map[string][]float64{"trainq/EventsRejected{Queue=" + queueName + "}": {1}}
}

func merge(ms ...map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = append(out[k], v...)
		}
	}
	return out
}

// invoke runs one fixture through the real Lambda decode path and returns
// what the observer printed.
func invoke(t *testing.T, fixture string) []byte {
	t.Helper()
	payload, err := os.ReadFile(filepath.Join("testdata", "events", fixture))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	obs, err := observe.NewObserver(platform.Default(), queueARN, fixedClock, &out)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := lambda.NewHandler(obs).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatalf("invoke %s: %v (the observer must never fail on an event)", fixture, err)
	}
	if string(resp) != "null" {
		t.Errorf("invoke %s: answer %s, want null", fixture, resp)
	}
	return out.Bytes()
}

func TestObserverTurnsEachStateIntoMetrics(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		want    map[string][]float64
	}{
		{"a submitted job yields no metric", "submitted.json", map[string][]float64{}},
		{"a pending job yields no metric", "pending.json", map[string][]float64{}},
		{"a runnable job that was never preempted yields no metric", "runnable.json", map[string][]float64{}},
		{"a scheduled job yields no metric", "scheduled.json", map[string][]float64{}},
		{"a starting job yields no metric", "starting.json", map[string][]float64{}},
		{
			// created 16:00:00, started 16:07:00: (420000-0)/1000 = 420 s.
			"a running job counts a start and its wait since creation", "running.json",
			merge(perJob("JobsStarted", "production", "search-ranking", 1),
				perJob("WaitSeconds", "production", "search-ranking", 420)),
		},
		{
			// attempt 16:07:00 to 17:07:00: 3600000/1000 = 3600 s.
			"a succeeded job counts a success and its run time", "succeeded.json",
			merge(perJob("JobsSucceeded", "production", "search-ranking", 1),
				perJob("RunSeconds", "production", "search-ranking", 3600)),
		},
		{
			// priority 550 is in research's band 500-599; attempt ran 1800500 ms = 1800.5 s.
			// "Received status from SageMaker: AlgorithmError: …": the job's own failure.
			"a failed research job counts a failure and its run time", "failed.json",
			merge(failedJob("research", "search-research", metrics.FaultJob),
				perJob("RunSeconds", "research", "search-research", 1800.5)),
		},
		{
			"a job terminated outside trainq before it ever ran counts a failure without run time", "failed-before-start.json",
			failedJob("sweep", "search-research", metrics.FaultPlatform),
		},
		{
			// priority 520 is in research's band 500-599; it never started, so no run time.
			"a job cancelled through trainq while runnable counts a cancellation, no failure, no run time", "cancelled-while-runnable.json",
			perJob("JobsCancelled", "research", "search-research", 1),
		},
		{
			// The re-router's reason (contract.ReroutedReason): the job's work
			// moved to another job; neither a failure nor a cancellation.
			"a waiting job the re-router moved to another instance type yields no metric", "rerouted-while-runnable.json",
			map[string][]float64{},
		},
		{
			// attempt 16:05:00 to 17:05:30: (1796058330000-1796054700000)/1000 = 3630 s held on instances.
			"a job cancelled through trainq while running counts a cancellation and its run time", "cancelled-while-running.json",
			merge(perJob("JobsCancelled", "production", "search-ranking", 1),
				perJob("RunSeconds", "production", "search-ranking", 3630)),
		},
		{
			"a sweep requeued by a preemption counts a preemption", "preempted-requeued.json",
			perJob("JobsPreempted", "sweep", "search-research", 1),
		},
		{
			// preempted at 17:10:00, restarted at 17:25:00: (5100000-4200000)/1000 = 900 s,
			// and the old preemption is not counted again.
			"a job restarting after a preemption waits from the preemption", "running-after-preemption.json",
			merge(perJob("JobsStarted", "sweep", "search-research", 1),
				perJob("WaitSeconds", "sweep", "search-research", 900)),
		},
		{
			// 3 preemptions > 2 preemption retries: Batch failed it; the last attempt ran
			// from 16:35:00 to 16:45:00, (2700000-2100000)/1000 = 600 s.
			"a job failed by its last allowed preemption counts a failure and a preemption", "preempted-failed.json",
			// Preemption retries exhausted: the platform's failure, not the job's.
			merge(failedJob("sweep", "search-ranking", metrics.FaultPlatform),
				perJob("JobsPreempted", "sweep", "search-ranking", 1),
				perJob("RunSeconds", "sweep", "search-ranking", 600)),
		},
		{
			// "Terminated by user" is no reason trainq knows: the platform's, so that someone looks.
			"a requeued job terminated outside trainq counts a failure, no preemption, no run time", "failed-while-requeued.json",
			failedJob("sweep", "search-research", metrics.FaultPlatform),
		},
		{
			"a running job without creation time counts the start and a partial rejection", "running-missing-created.json",
			merge(perJob("JobsStarted", "production", "search-ranking", 1), rejected()),
		},
		{
			"a succeeded job without timestamps counts the success and a partial rejection", "succeeded-missing-timestamps.json",
			merge(perJob("JobsSucceeded", "production", "search-ranking", 1), rejected()),
		},
		{
			// EventBridge's scheduled event, which the pipeline sends every minute.
			"a scheduled event is the observer's heartbeat", "heartbeat.json",
			map[string][]float64{"trainq/ObserverHeartbeats{Queue=" + queueName + "}": {1}},
		},
		{
			// AWS Batch's documented example, of this queue, with a documented reason code
			// (https://docs.aws.amazon.com/batch/latest/userguide/batch-service-job-queue-blocked-events.html).
			"a queue-blocked event counts a blocked queue, per reason code", "queue-blocked.json",
			map[string][]float64{
				"trainq/QueueBlocked{Queue=" + queueName + "}":                                                         {1},
				"trainq/QueueBlocked{Queue=" + queueName + ",Reason=MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED}": {1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := emftest.Lines(t, invoke(t, tt.fixture))
			if diff := cmp.Diff(tt.want, emftest.Values(ds)); diff != "" {
				t.Errorf("%s: data points (-want +got):\n%s", tt.fixture, diff)
			}
			for _, d := range ds {
				if !d.Time.Equal(clock) {
					t.Errorf("%s: stamped %v, want the clock's %v", d.Key(), d.Time, clock)
				}
			}
		})
	}
}

func TestObserverRejectsWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name, fixture, reason, mentions string
	}{
		{"a payload that is not JSON", "not-json.txt", observe.ReasonNotJSON, "not a JSON event"},
		{"a JSON array instead of an event", "json-array.json", observe.ReasonNotJSON, "not a JSON event"},
		{"a container job event", "wrong-detail-type.json", observe.ReasonNotBatchEvent, "Batch Job State Change"},
		{"an event without detail", "no-detail.json", observe.ReasonNoDetail, "no detail"},
		{"a job of another queue", "other-queue.json", observe.ReasonOtherQueue, "other-team-queue"},
		{"a status Batch does not have", "unknown-status.json", observe.ReasonUnknownStatus, "CANCELLED"},
		{"a share that is no team", "unknown-share.json", observe.ReasonUnknownJob, `"ads-ranking"`},
		{"a job without share", "no-share.json", observe.ReasonUnknownJob, "neither quotaShareName nor shareIdentifier"},
		{"a priority between the research and production bands", "priority-outside-bands.json", observe.ReasonUnknownJob, "700 is outside every class band"},
		{"a job without priority", "no-priority.json", observe.ReasonUnknownJob, "no schedulingPriority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := invoke(t, tt.fixture)
			if diff := cmp.Diff(rejected(), emftest.Values(emftest.Lines(t, out))); diff != "" {
				t.Errorf("data points (-want +got):\n%s", diff)
			}
			var line struct {
				Reason  string `json:"reason"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(bytes.TrimSpace(out), &line); err != nil {
				t.Fatalf("want exactly one JSON line: %v\n%s", err, out)
			}
			if line.Reason != tt.reason || !strings.Contains(line.Message, tt.mentions) {
				t.Errorf("reason %q, message %q; want reason %q and a message mentioning %q", line.Reason, line.Message, tt.reason, tt.mentions)
			}
		})
	}
}

func TestObserverKeepsJobDetailsOnTheLine(t *testing.T) {
	out := invoke(t, "running.json")
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(out), &line); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"jobId": "7d0c5a52-4d8e-4b1f-9a55-0f6a3c2e1b01", "eventId": "e-running", "status": "RUNNING",
		"instanceType": "ml.p5.48xlarge", "instanceCount": 4.0, "share": "search-ranking", "schedulingPriority": 950.0,
	}
	for k, v := range want {
		if diff := cmp.Diff(v, line[k]); diff != "" {
			t.Errorf("property %s (-want +got):\n%s", k, diff)
		}
	}
}

func TestObserverAcceptsTheQueueByName(t *testing.T) {
	payload, err := os.ReadFile(filepath.Join("testdata", "events", "running.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	obs, err := observe.NewObserver(platform.Default(), "", fixedClock, &out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.Invoke(context.Background(), payload); err != nil {
		t.Fatal(err)
	}
	got := emftest.Values(emftest.Lines(t, out.Bytes()))
	if _, ok := got["trainq/JobsStarted{Queue="+queueName+"}"]; !ok {
		t.Errorf("with no queue configured the platform's queue %s should be observed; got %v", queueName, got)
	}
}

// TestObserverEmitsEveryEventMetricWithEverySet runs all fixtures and checks
// that each metric of metrics.ObserverMetrics was published under every dimension
// set the metrics package promises, and under no other.
func TestObserverEmitsEveryEventMetricWithEverySet(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "events"))
	if err != nil {
		t.Fatal(err)
	}
	var all []metrics.Datum
	for _, e := range entries {
		all = append(all, emftest.Lines(t, invoke(t, e.Name()))...)
	}
	if diff := cmp.Diff(emftest.DeclaredSets(metrics.ObserverMetrics()), emftest.Sets(all)); diff != "" {
		t.Errorf("dimension sets (-declared +emitted):\n%s", diff)
	}
}

func TestOnlyTheTrainqCancelReasonMakesACancellation(t *testing.T) {
	tests := []struct {
		name   string
		status string
		reason string
		want   bool
	}{
		{"a failed job whose reason starts with trainq's prefix was cancelled through trainq", observe.StatusFailed, contract.CancelReasonPrefix + " by carol: done early", true},
		{"the bare prefix is enough", observe.StatusFailed, contract.CancelReasonPrefix, true},
		{"a job terminated from the console or the AWS CLI failed", observe.StatusFailed, "Terminated by user", false},
		{"the prefix in the middle of a reason is not trainq's", observe.StatusFailed, "AlgorithmError: " + contract.CancelReasonPrefix, false},
		{"the prefix is case-sensitive", observe.StatusFailed, strings.ToUpper(contract.CancelReasonPrefix), false},
		{"a failed job without reason failed", observe.StatusFailed, "", false},
		{"a succeeded job is never a cancellation", observe.StatusSucceeded, contract.CancelReasonPrefix, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &observe.Detail{Status: tt.status, StatusReason: tt.reason}
			if got := observe.Cancelled(d); got != tt.want {
				t.Errorf("Cancelled(status %s, statusReason %q) = %v, want %v", tt.status, tt.reason, got, tt.want)
			}
		})
	}
}

// TestAJobTheRerouterEndedIsNotAFailure: the re-router terminates a
// waiting job once its replacement on another instance type exists (or a
// replacement whose original started first); those FAILED events carry the
// re-router's reason and must not count as failures (which page for
// production) nor as cancellations.
func TestAJobTheRerouterEndedIsNotAFailure(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		want   bool
	}{
		{"an old job moved to another type", contract.ReroutedReason("00000002-0000-4000-8000-000000000002", "ml.p4d.24xlarge"), true},
		{"a replacement abandoned because the original started", contract.RerouteAbandonedReason("00000001-0000-4000-8000-000000000001", "RUNNING"), true},
		{"a cancel through trainq is not a move", contract.CancelReasonPrefix + " by carol", false},
		{"the prefix inside another reason is not the re-router's", "AlgorithmError: " + contract.RerouteReasonPrefix, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &observe.Detail{Status: observe.StatusFailed, StatusReason: tt.reason}
			if got := observe.Rerouted(d); got != tt.want {
				t.Errorf("Rerouted(FAILED, %q) = %v, want %v", tt.reason, got, tt.want)
			}
			if observe.Rerouted(d) && observe.Cancelled(d) {
				t.Errorf("%q is both a move and a cancel", tt.reason)
			}
		})
	}
	if observe.Rerouted(&observe.Detail{Status: observe.StatusSucceeded, StatusReason: contract.ReroutedReason("x", "ml.p5.48xlarge")}) {
		t.Error("a SUCCEEDED job is never a move")
	}
}

func TestNewObserverNamesWhatIsMissing(t *testing.T) {
	tests := []struct {
		name     string
		p        *platform.Platform
		now      func() time.Time
		out      io.Writer
		mentions []string
	}{
		{"no platform", nil, fixedClock, io.Discard, []string{"missing platform (p);"}},
		{"no clock", platform.Default(), nil, io.Discard, []string{"missing clock (now);"}},
		{"no output", platform.Default(), fixedClock, nil, []string{"missing output (out);"}},
		{"nothing at all", nil, nil, nil, []string{"missing platform (p), clock (now), output (out);"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := observe.NewObserver(tt.p, queueARN, tt.now, tt.out)
			if err == nil {
				t.Fatal("no error")
			}
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
		})
	}
}
