// Package hostile is the hostile-input corpus of trainq's functions: events,
// Batch answers and requests that are malformed, oversized, ambiguous or
// implausible, each with what the function must make of it. The same cases
// run in process (the functions' packages) and under the Lambda Runtime
// Interface Emulator (bin/observer, bin/poller, bin/submitter), so that the
// deployed bootstrap is held to what the package promises.
//
// It is test support: only tests import it. It must never import the AWS
// CDK, jsii or constructs.
package hostile

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Queue is the queue every case is of: the default platform's.
const (
	QueueName = "trainq-training"
	QueueARN  = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
)

// MaxLineBytes is the longest log line any function may write for any
// input: 256 KiB (CloudWatch Logs keeps 262,144 bytes of one event).
const MaxLineBytes = 256 * 1024

// ObserverCase is one event and what the observer must write for it.
type ObserverCase struct {
	Name  string
	Event []byte
	// Want are the data points, as emftest.Values keys them.
	Want map[string][]float64
	// Reason is the reason property of the line ("" when none).
	Reason string
	// Mentions must each appear in the output.
	Mentions []string
	// JobID, when set, must be the jobId property of every line.
	JobID string
}

// PerJob is the four data points one job metric yields: per class and
// team, per class, per team and for the queue.
func PerJob(name, class, team string, v float64) map[string][]float64 {
	return map[string][]float64{
		"trainq/" + name + "{Class=" + class + ",Queue=" + QueueName + ",Team=" + team + "}": {v},
		"trainq/" + name + "{Class=" + class + ",Queue=" + QueueName + "}":                   {v},
		"trainq/" + name + "{Queue=" + QueueName + ",Team=" + team + "}":                     {v},
		"trainq/" + name + "{Queue=" + QueueName + "}":                                       {v},
	}
}

// PlatformFailure is the JobsFailed of a production job of search-ranking
// whose failure was the platform's (any reason that is not the job's own).
func PlatformFailure() map[string][]float64 {
	return Merge(PerJob("JobsFailed", "production", "search-ranking", 1), map[string][]float64{
		"trainq/JobsFailed{Class=production,Fault=PLATFORM,Queue=" + QueueName + "}": {1},
	})
}

// Rejected is the one data point of a rejected or partly read event.
func Rejected() map[string][]float64 {
	return map[string][]float64{"trainq/EventsRejected{Queue=" + QueueName + "}": {1}}
}

// Merge adds data point maps together.
func Merge(ms ...map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = append(out[k], v...)
		}
	}
	return out
}

const jobID = "7d0c5a52-4d8e-4b1f-9a55-0f6a3c2e1b01"

// event is an EventBridge event of detail type dt whose detail holds the
// members given, in order (raw "name": value pairs, repeats allowed).
func event(id, dt string, members ...string) []byte {
	return []byte(fmt.Sprintf(`{"version":"0","id":%q,"detail-type":%q,"source":"aws.batch","account":"123456789012",`+
		`"time":"2026-11-30T16:07:00Z","region":"us-east-1","resources":[],"detail":{%s}}`, id, dt, strings.Join(members, ",")))
}

const stateChange = "Batch Service Job State Change"

// job is a production job of team search-ranking (priority 950) in status,
// created at created and started (attempt and job) at started, Unix ms.
func job(status string, created, started int64, extra ...string) []string {
	return append([]string{
		`"jobId":"` + jobID + `"`, `"jobName":"llm-pretrain-7b"`, `"jobQueue":"` + QueueARN + `"`,
		`"serviceJobType":"SAGEMAKER_TRAINING"`, `"status":"` + status + `"`,
		fmt.Sprintf(`"createdAt":%d`, created), `"schedulingPriority":950`, `"quotaShareName":"search-ranking"`,
		`"capacityUsage":[{"capacityUnit":"ml.p5.48xlarge","quantity":4}]`,
		fmt.Sprintf(`"attempts":[{"startedAt":%d}]`, started), fmt.Sprintf(`"startedAt":%d`, started),
	}, extra...)
}

// without drops the member named name from members.
func without(members []string, name string) []string {
	var out []string
	for _, m := range members {
		if !strings.HasPrefix(m, `"`+name+`":`) {
			out = append(out, m)
		}
	}
	return out
}

// ObserverCases are the hostile events, timed around now (the observer's
// clock): a job created an hour before now started ten minutes later.
func ObserverCases(now time.Time) []ObserverCase {
	created := now.Add(-time.Hour).UnixMilli()
	started := created + 600_000 // wait 600 s
	stopped := started + 1_800_000
	running := func(extra ...string) []string { return job("RUNNING", created, started, extra...) }
	startAndWait := Merge(PerJob("JobsStarted", "production", "search-ranking", 1), PerJob("WaitSeconds", "production", "search-ranking", 600))
	failed := func(extra ...string) []string {
		return append(job("FAILED", created, started), append([]string{fmt.Sprintf(`"stoppedAt":%d`, stopped)}, extra...)...)
	}
	failedWithRun := Merge(PlatformFailure(), perJobAttemptRun())
	runnable := []string{`"jobId":"` + jobID + `"`, `"jobName":"event-test"`, `"jobQueue":"` + QueueARN + `"`,
		`"serviceJobType":"SAGEMAKER_TRAINING"`, `"status":"RUNNABLE"`, fmt.Sprintf(`"createdAt":%d`, created), `"attempts":[]`}
	huge := strings.Repeat("é", 200_000) // 400 kB
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	blocked := "Batch Service Job Queue Blocked"

	return []ObserverCase{
		{
			Name:  "a 400 kB statusReason is cut, and the failure still counts",
			Event: event("e-huge-reason", stateChange, failed(`"statusReason":"`+huge+`"`)...),
			Want:  failedWithRun, JobID: jobID, Mentions: []string{`"statusReason":"ééé`},
		},
		{
			Name:  "an unused member of the wrong type costs no metric",
			Event: event("e-is-terminated", stateChange, running(`"isTerminated":"false"`)...),
			Want:  startAndWait, JobID: jobID, Mentions: []string{"detail.isTerminated: got \\\"false\\\", want true or false"},
		},
		{
			Name:  "member names are case-sensitive: STATUS after status is another member",
			Event: event("e-status-case", stateChange, append(job("SUCCEEDED", created, started, fmt.Sprintf(`"stoppedAt":%d`, stopped)), `"STATUS":"FAILED"`)...),
			Want:  Merge(PerJob("JobsSucceeded", "production", "search-ranking", 1), perJobAttemptRun()),
			JobID: jobID,
		},
		{
			Name:   "a status given twice is unreadable, and the rejection names event, job and field",
			Event:  event("e-status-twice", stateChange, append(job("SUCCEEDED", created, started), `"status":"FAILED"`)...),
			Want:   Rejected(),
			Reason: "unreadable-field", JobID: jobID, Mentions: []string{`"eventId":"e-status-twice"`, "detail.status: given twice"},
		},
		{
			Name:   "an int64 overflow in createdAt drops the wait, not the start",
			Event:  event("e-overflow", stateChange, append(without(running(), "createdAt"), fmt.Sprintf(`"createdAt":%d`, int64(math.MinInt64)))...),
			Want:   Merge(PerJob("JobsStarted", "production", "search-ranking", 1), Rejected()),
			Reason: "incomplete", JobID: jobID, Mentions: []string{"WaitSeconds dropped", "createdAt -9223372036854775808 is not a time"},
		},
		{
			Name:   "a time beyond int64 is unreadable: the run time is dropped, the failure counts",
			Event:  event("e-beyond-int64", stateChange, append(job("FAILED", created, started), `"stoppedAt":1e20`)...),
			Want:   Merge(PlatformFailure(), Rejected()),
			Reason: "incomplete", JobID: jobID, Mentions: []string{"RunSeconds dropped", "detail.stoppedAt"},
		},
		{
			Name:   "times in seconds instead of milliseconds are named as such",
			Event:  event("e-seconds", stateChange, job("RUNNING", created/1000, started/1000)...),
			Want:   Merge(PerJob("JobsStarted", "production", "search-ranking", 1), Rejected()),
			Reason: "incomplete", JobID: jobID, Mentions: []string{"it reads as seconds, not milliseconds"},
		},
		{
			Name:   "a start far in the future is implausible",
			Event:  event("e-future", stateChange, job("RUNNING", created, now.Add(72*time.Hour).UnixMilli())...),
			Want:   Merge(PerJob("JobsStarted", "production", "search-ranking", 1), Rejected()),
			Reason: "incomplete", JobID: jobID, Mentions: []string{"WaitSeconds dropped"},
		},
		{
			Name:   "attempts that are no list drop the wait only",
			Event:  event("e-attempts-object", stateChange, append(without(running(), "attempts"), `"attempts":{"startedAt":1}`)...),
			Want:   Merge(PerJob("JobsStarted", "production", "search-ranking", 1), Rejected()),
			Reason: "incomplete", JobID: jobID, Mentions: []string{"detail.attempts: not a list"},
		},
		{
			Name:  "a member nested 20,000 levels deep that trainq does not read is ignored",
			Event: event("e-deep-unused", stateChange, running(`"retryStrategy":`+deep)...),
			Want:  startAndWait, JobID: jobID,
		},
		{
			Name:   "attempts nested 20,000 levels deep drop the wait only",
			Event:  event("e-deep-attempts", stateChange, append(without(running(), "attempts"), `"attempts":`+deep)...),
			Want:   Merge(PerJob("JobsStarted", "production", "search-ranking", 1), Rejected()),
			Reason: "incomplete", JobID: jobID, Mentions: []string{"detail.attempts"},
		},
		{
			Name:   "a schedulingPriority beyond any integer is unreadable and named",
			Event:  event("e-priority-huge", stateChange, append(without(running(), "schedulingPriority"), `"schedulingPriority":1e30`)...),
			Want:   Rejected(),
			Reason: "unreadable-field", JobID: jobID, Mentions: []string{"detail.schedulingPriority"},
		},
		{
			Name:  "a negative instance count is not published, the metrics are",
			Event: event("e-negative-count", stateChange, append(without(running(), "capacityUsage"), `"capacityUsage":[{"capacityUnit":"ml.p5.48xlarge","quantity":-4}]`)...),
			Want:  startAndWait, JobID: jobID, Mentions: []string{"detail.capacityUsage[0].quantity"},
		},
		{
			Name: "megabytes of job name and id are cut on the line, the metrics kept",
			Event: event("e-huge-names", stateChange, append(without(without(running(), "jobName"), "jobId"),
				`"jobName":"`+strings.Repeat("n", 300_000)+`"`, `"jobId":"`+strings.Repeat("😀", 100_000)+`"`)...),
			Want: startAndWait, Mentions: []string{`"jobName":"nnnn`},
		},
		{
			Name:   "a detail that is a string is no detail, and the line names the event",
			Event:  []byte(`{"id":"e-detail-string","source":"aws.batch","detail-type":"Batch Service Job State Change","detail":"{}"}`),
			Want:   Rejected(),
			Reason: "no-detail", Mentions: []string{`"eventId":"e-detail-string"`, "detail: not an object"},
		},
		{
			Name:   "Detail is not detail",
			Event:  []byte(`{"id":"e-Detail","source":"aws.batch","detail-type":"Batch Service Job State Change","Detail":{"status":"FAILED"}}`),
			Want:   Rejected(),
			Reason: "no-detail", Mentions: []string{`"eventId":"e-Detail"`},
		},
		{
			Name:   "a source spelt in capitals is not Batch's",
			Event:  []byte(`{"id":"e-source","source":"AWS.BATCH","detail-type":"Batch Service Job State Change","detail":{}}`),
			Want:   Rejected(),
			Reason: "not-a-batch-service-job-event", Mentions: []string{`"eventId":"e-source"`},
		},
		{
			Name:   "an id of the wrong type still leaves a rejection line with a reason",
			Event:  []byte(`{"id":7,"source":"aws.batch","detail-type":"Batch Service Job State Change"}`),
			Want:   Rejected(),
			Reason: "no-detail", Mentions: []string{`"eventId":""`},
		},
		{
			Name:   "a megabyte that is not JSON is rejected on a short line",
			Event:  []byte(strings.Repeat("{", 1<<20)),
			Want:   Rejected(),
			Reason: "not-json", Mentions: []string{`"eventId":""`},
		},
		{
			Name:  "a queue-blocked event counts QueueBlocked by reason code",
			Event: event("e-blocked", blocked, append(runnable, `"statusReason":"blocked-reason"`, `"timeoutConfig":{"attemptDurationSeconds":60}`)...),
			Want:  map[string][]float64{"trainq/QueueBlocked{Queue=" + QueueName + "}": {1}, "trainq/QueueBlocked{Queue=" + QueueName + ",Reason=OTHER}": {1}},
			JobID: jobID,
		},
		{
			Name: "a queue blocked by a quota misconfiguration names the reason",
			Event: event("e-blocked-quota", blocked, append(runnable,
				`"statusReason":"MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Quota share limits cannot meet the capacity requirement of the job."`)...),
			Want: map[string][]float64{"trainq/QueueBlocked{Queue=" + QueueName + "}": {1},
				"trainq/QueueBlocked{Queue=" + QueueName + ",Reason=MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED}": {1}},
			JobID: jobID,
		},
		{
			Name: "a queue-blocked event of another queue is rejected",
			Event: event("e-blocked-other", blocked, `"jobId":"j-other"`, `"status":"RUNNABLE"`,
				`"jobQueue":"arn:aws:batch:us-east-1:123456789012:job-queue/HappyPathJobQueue"`, `"statusReason":"blocked-reason"`),
			Want:   Rejected(),
			Reason: "other-queue", JobID: "j-other", Mentions: []string{"HappyPathJobQueue"},
		},
		{
			Name: "a job a time limit action terminated is a failure that says so",
			Event: event("e-time-limit", stateChange, append(without(without(job("FAILED", created, started), "attempts"), "startedAt"),
				`"statusReason":"Terminated by JobStateTimeLimit action due to reason: MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"`)...),
			Want:  PlatformFailure(),
			JobID: jobID, Mentions: []string{`"endedByTimeLimit":"MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"`, `"failureCause":"TIME_LIMIT"`},
		},
	}
}

// perJobAttemptRun is the run time of the jobs above: 1,800 s.
func perJobAttemptRun() map[string][]float64 {
	return PerJob("RunSeconds", "production", "search-ranking", 1800)
}
