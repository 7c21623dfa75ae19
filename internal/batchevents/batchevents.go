// Package batchevents writes the EventBridge events AWS Batch sends for a
// service job's life ("Batch Service Job State Change", source aws.batch),
// with the detail shapes of observe/testdata/events (DescribeServiceJob's
// answer without tags and serviceRequestPayload): RUNNABLE once submitted,
// then for each attempt SCHEDULED, STARTING and RUNNING, RUNNABLE again
// after a preemption or a retried timeout, and SUCCEEDED or FAILED at the
// end. Tests and benchmarks feed them to the observer, in order, shuffled
// and repeated.
//
// It is test support: only tests and benchmarks import it. It must never
// import the AWS CDK, jsii or constructs.
package batchevents

import (
	"encoding/json"
	"fmt"
	"time"
)

// Job is a job's life. Times are Unix milliseconds.
type Job struct {
	ID, Name     string
	Queue        string // the job queue's ARN
	Share        string // quotaShareName (the team)
	Priority     int    // schedulingPriority
	InstanceType string
	Instances    int
	CreatedAt    int64
	// TimeoutSeconds is timeoutConfig.attemptDurationSeconds.
	TimeoutSeconds int
	// PreemptionRetries is preemptionRetriesBeforeTermination.
	PreemptionRetries int
	Attempts          []Attempt
	// Succeeded: the last attempt completed; else the job failed, with
	// Reason as its statusReason.
	Succeeded bool
	Reason    string
	// EndedAt is when a job that never started failed.
	EndedAt int64
}

// Attempt is one attempt: scheduled, started, stopped, and why it stopped
// when it did not complete.
type Attempt struct {
	ScheduledAt, StartedAt, StoppedAt int64
	Preempted                         bool
}

// Reasons Batch and SageMaker give, as in observe/testdata/events.
const (
	ReasonCompleted = "Received status from SageMaker: Training job completed"
	ReasonPreempted = "Preempted to restore capacity to quota share"
	ReasonRequeued  = "Job preempted and requeued"
	ReasonTimedOut  = "Job attempt duration exceeded timeout"
)

type attempt struct {
	ServiceResourceID map[string]string `json:"serviceResourceId"`
	StartedAt         int64             `json:"startedAt"`
	StoppedAt         *int64            `json:"stoppedAt,omitempty"`
	StatusReason      string            `json:"statusReason,omitempty"`
}

type detail struct {
	JobARN                  string           `json:"jobArn"`
	JobID                   string           `json:"jobId"`
	JobName                 string           `json:"jobName"`
	JobQueue                string           `json:"jobQueue"`
	ServiceJobType          string           `json:"serviceJobType"`
	Status                  string           `json:"status"`
	StatusReason            string           `json:"statusReason,omitempty"`
	CreatedAt               int64            `json:"createdAt"`
	ScheduledAt             *int64           `json:"scheduledAt,omitempty"`
	StartedAt               *int64           `json:"startedAt,omitempty"`
	StoppedAt               *int64           `json:"stoppedAt,omitempty"`
	SchedulingPriority      int              `json:"schedulingPriority"`
	QuotaShareName          string           `json:"quotaShareName"`
	CapacityUsage           []map[string]any `json:"capacityUsage"`
	PreemptionConfiguration map[string]int   `json:"preemptionConfiguration"`
	TimeoutConfig           map[string]int   `json:"timeoutConfig,omitempty"`
	Attempts                []attempt        `json:"attempts"`
	PreemptionSummary       *preemptionSumm  `json:"preemptionSummary,omitempty"`
	IsTerminated            bool             `json:"isTerminated"`
}

type preemptionSumm struct {
	PreemptedAttemptCount   int       `json:"preemptedAttemptCount"`
	RecentPreemptedAttempts []attempt `json:"recentPreemptedAttempts"`
}

type event struct {
	Version    string   `json:"version"`
	ID         string   `json:"id"`
	DetailType string   `json:"detail-type"`
	Source     string   `json:"source"`
	Account    string   `json:"account"`
	Time       string   `json:"time"`
	Region     string   `json:"region"`
	Resources  []string `json:"resources"`
	Detail     detail   `json:"detail"`
}

// Account and Region of every event.
const (
	Account = "123456789012"
	Region  = "us-east-1"
)

// Events returns the job's events in the order Batch sends them.
func Events(j Job) [][]byte {
	arn := fmt.Sprintf("arn:aws:batch:%s:%s:service-job/%s", Region, Account, j.ID)
	var out [][]byte
	var done []attempt // attempts that stopped
	var preempted []attempt
	emit := func(status, reason string, at int64, sched, start, stop *int64, current *attempt) {
		d := detail{JobARN: arn, JobID: j.ID, JobName: j.Name, JobQueue: j.Queue, ServiceJobType: "SAGEMAKER_TRAINING",
			Status: status, StatusReason: reason, CreatedAt: j.CreatedAt, ScheduledAt: sched, StartedAt: start, StoppedAt: stop,
			SchedulingPriority: j.Priority, QuotaShareName: j.Share,
			CapacityUsage:           []map[string]any{{"capacityUnit": j.InstanceType, "quantity": j.Instances}},
			PreemptionConfiguration: map[string]int{"preemptionRetriesBeforeTermination": j.PreemptionRetries},
			Attempts:                append([]attempt{}, done...), IsTerminated: status == "FAILED" && reason != ""}
		if j.TimeoutSeconds > 0 {
			d.TimeoutConfig = map[string]int{"attemptDurationSeconds": j.TimeoutSeconds}
		}
		if current != nil {
			d.Attempts = append(d.Attempts, *current)
		}
		if len(preempted) > 0 {
			d.PreemptionSummary = &preemptionSumm{PreemptedAttemptCount: len(preempted), RecentPreemptedAttempts: append([]attempt{}, preempted...)}
		}
		e := event{Version: "0", ID: fmt.Sprintf("%s-%d", j.ID, len(out)), DetailType: "Batch Service Job State Change",
			Source: "aws.batch", Account: Account, Region: Region, Time: time.UnixMilli(at).UTC().Format(time.RFC3339),
			Resources: []string{arn}, Detail: d}
		b, err := json.Marshal(e)
		if err != nil {
			panic(err) // plain values: cannot happen
		}
		out = append(out, b)
	}
	emit("RUNNABLE", "", j.CreatedAt, nil, nil, nil, nil)
	var lastSched, lastStart *int64
	for i, a := range j.Attempts {
		sched, start, stop := a.ScheduledAt, a.StartedAt, a.StoppedAt
		lastSched, lastStart = &sched, &start
		tj := map[string]string{"name": "TrainingJobArn",
			"value": fmt.Sprintf("arn:aws:sagemaker:%s:%s:training-job/AWSBatch%s-%d", Region, Account, j.Name, i+1)}
		cur := attempt{ServiceResourceID: tj, StartedAt: start}
		emit("SCHEDULED", "", sched, &sched, nil, nil, nil)
		emit("STARTING", "", sched, &sched, nil, nil, nil)
		emit("RUNNING", "", start, &sched, &start, nil, &cur)
		last := i == len(j.Attempts)-1
		switch {
		case last && j.Succeeded:
			cur.StoppedAt, cur.StatusReason = &stop, ReasonCompleted
			done = append(done, cur)
			emit("SUCCEEDED", ReasonCompleted, stop, &sched, &start, &stop, nil)
			return out
		case a.Preempted:
			cur.StoppedAt, cur.StatusReason = &stop, ReasonPreempted+" "+j.Share
			done = append(done, cur)
			preempted = append(preempted, cur)
		default:
			cur.StoppedAt, cur.StatusReason = &stop, ReasonTimedOut
			done = append(done, cur)
		}
		if !last {
			reason := ""
			if a.Preempted {
				reason = ReasonRequeued
			}
			emit("RUNNABLE", reason, stop, &sched, &start, nil, nil)
		}
	}
	var stop *int64
	if n := len(j.Attempts); n > 0 {
		s := j.Attempts[n-1].StoppedAt
		stop = &s
	} else if j.EndedAt > 0 {
		stop = &j.EndedAt
	}
	at := j.CreatedAt
	if stop != nil {
		at = *stop
	}
	emit("FAILED", j.Reason, at, lastSched, lastStart, stop, nil)
	return out
}
