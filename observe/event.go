package observe

import (
	"fmt"
	"time"

	"github.com/trainq/trainq/batchrules"
)

// Service job statuses, as AWS Batch spells them.
const (
	StatusSubmitted = "SUBMITTED"
	StatusPending   = "PENDING"
	StatusRunnable  = "RUNNABLE"
	StatusScheduled = "SCHEDULED"
	StatusStarting  = "STARTING"
	StatusRunning   = "RUNNING"
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
)

var knownStatuses = map[string]bool{
	StatusSubmitted: true, StatusPending: true, StatusRunnable: true, StatusScheduled: true,
	StatusStarting: true, StatusRunning: true, StatusSucceeded: true, StatusFailed: true,
}

// Event is the EventBridge envelope of a Batch service job state change.
type Event struct {
	Version    string   `json:"version"`
	ID         string   `json:"id"`
	DetailType string   `json:"detail-type"`
	Source     string   `json:"source"`
	Account    string   `json:"account"`
	Time       string   `json:"time"`
	Region     string   `json:"region"`
	Resources  []string `json:"resources"`
	Detail     *Detail  `json:"detail"`
}

// Detail is the event's detail: DescribeServiceJob's answer without tags and
// serviceRequestPayload. Timestamps are Unix milliseconds. Fields Batch may
// leave out are pointers or empty.
type Detail struct {
	JobARN                  string                   `json:"jobArn"`
	JobID                   string                   `json:"jobId"`
	JobName                 string                   `json:"jobName"`
	JobQueue                string                   `json:"jobQueue"`
	ServiceJobType          string                   `json:"serviceJobType"`
	Status                  string                   `json:"status"`
	StatusReason            string                   `json:"statusReason"`
	CreatedAt               *int64                   `json:"createdAt"`
	ScheduledAt             *int64                   `json:"scheduledAt"`
	StartedAt               *int64                   `json:"startedAt"`
	StoppedAt               *int64                   `json:"stoppedAt"`
	SchedulingPriority      *int                     `json:"schedulingPriority"`
	ShareIdentifier         string                   `json:"shareIdentifier"`
	QuotaShareName          string                   `json:"quotaShareName"`
	IsTerminated            *bool                    `json:"isTerminated"`
	Attempts                []Attempt                `json:"attempts"`
	CapacityUsage           []CapacityUsage          `json:"capacityUsage"`
	PreemptionSummary       *PreemptionSummary       `json:"preemptionSummary"`
	PreemptionConfiguration *PreemptionConfiguration `json:"preemptionConfiguration"`
	TimeoutConfig           *TimeoutConfig           `json:"timeoutConfig"`
}

// TimeoutConfig is the job's time limit of one attempt.
type TimeoutConfig struct {
	AttemptDurationSeconds *int `json:"attemptDurationSeconds"`
}

// Attempt is one attempt of a service job (also a preempted attempt).
type Attempt struct {
	ServiceResourceID *ServiceResourceID `json:"serviceResourceId"`
	StartedAt         *int64             `json:"startedAt"`
	StoppedAt         *int64             `json:"stoppedAt"`
	StatusReason      string             `json:"statusReason"`
}

// ServiceResourceID names the SageMaker training job of an attempt.
type ServiceResourceID struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CapacityUsage is the capacity a job holds: for service jobs, the unit is the
// instance type and the quantity the instance count.
type CapacityUsage struct {
	CapacityUnit string  `json:"capacityUnit"`
	Quantity     float64 `json:"quantity"`
}

// PreemptionSummary summarizes a job's preemptions; Batch adds it once the
// job has been preempted.
type PreemptionSummary struct {
	PreemptedAttemptCount   int       `json:"preemptedAttemptCount"`
	RecentPreemptedAttempts []Attempt `json:"recentPreemptedAttempts"`
}

// PreemptionConfiguration is the job's preemption retry limit.
type PreemptionConfiguration struct {
	PreemptionRetriesBeforeTermination *int `json:"preemptionRetriesBeforeTermination"`
}

// Share returns the job's share (batchrules.ShareOfJob). trainq names each
// share after its team.
func (d *Detail) Share() string { return batchrules.ShareOfJob(d.QuotaShareName, d.ShareIdentifier) }

// InstanceType returns the instance type and count the job holds, when the
// detail says.
func (d *Detail) InstanceType() (string, float64, bool) {
	for _, c := range d.CapacityUsage {
		if c.CapacityUnit != "" {
			return c.CapacityUnit, c.Quantity, true
		}
	}
	return "", 0, false
}

func seconds(fromMS, toMS int64) float64 { return float64(toMS-fromMS) / 1000 }

// checkDetail applies the sanity bounds of batchrules to what d carries:
// every time (CheckTime, at now), every instance count (CheckQuantity) and
// unit (ValidCapacityUnit), preemption counts (at least 0) and the
// scheduling priority (0 to MaxSchedulingPriority). Each value out of
// bounds is a problem at its path, as if it were unreadable.
func checkDetail(d *Detail, now time.Time) []fieldProblem {
	if d == nil {
		return nil
	}
	var ps []fieldProblem
	at := func(path string, ms *int64) {
		if ms == nil {
			return
		}
		if err := batchrules.CheckTime(path, *ms, now); err != nil {
			ps = append(ps, fieldProblem{"detail." + path, err.Error()})
		}
	}
	at("createdAt", d.CreatedAt)
	at("scheduledAt", d.ScheduledAt)
	at("startedAt", d.StartedAt)
	at("stoppedAt", d.StoppedAt)
	attempts := func(where string, list []Attempt) {
		for i, a := range list {
			at(fmt.Sprintf("%s[%d].startedAt", where, i), a.StartedAt)
			at(fmt.Sprintf("%s[%d].stoppedAt", where, i), a.StoppedAt)
		}
	}
	attempts("attempts", d.Attempts)
	if s := d.PreemptionSummary; s != nil {
		attempts("preemptionSummary.recentPreemptedAttempts", s.RecentPreemptedAttempts)
		if s.PreemptedAttemptCount < 0 {
			ps = append(ps, fieldProblem{"detail.preemptionSummary.preemptedAttemptCount", fmt.Sprintf("%d is below 0", s.PreemptedAttemptCount)})
		}
	}
	if c := d.PreemptionConfiguration; c != nil && c.PreemptionRetriesBeforeTermination != nil && *c.PreemptionRetriesBeforeTermination < 0 {
		ps = append(ps, fieldProblem{"detail.preemptionConfiguration.preemptionRetriesBeforeTermination", fmt.Sprintf("%d is below 0", *c.PreemptionRetriesBeforeTermination)})
	}
	if c := d.TimeoutConfig; c != nil && c.AttemptDurationSeconds != nil && *c.AttemptDurationSeconds < 0 {
		ps = append(ps, fieldProblem{"detail.timeoutConfig.attemptDurationSeconds", fmt.Sprintf("%d is below 0", *c.AttemptDurationSeconds)})
	}
	if p := d.SchedulingPriority; p != nil && (*p < 0 || *p > MaxSchedulingPriority) {
		ps = append(ps, fieldProblem{"detail.schedulingPriority", fmt.Sprintf("%d is outside Batch's 0 to %d", *p, MaxSchedulingPriority)})
	}
	for i, c := range d.CapacityUsage {
		if !batchrules.ValidCapacityUnit(c.CapacityUnit) {
			ps = append(ps, fieldProblem{fmt.Sprintf("detail.capacityUsage[%d].capacityUnit", i), fmt.Sprintf("%q is no instance type", c.CapacityUnit)})
		}
		if err := batchrules.CheckQuantity("quantity", c.Quantity); err != nil {
			ps = append(ps, fieldProblem{fmt.Sprintf("detail.capacityUsage[%d].quantity", i), err.Error()})
		}
	}
	return ps
}

// MaxSchedulingPriority is the highest scheduling priority Batch accepts.
const MaxSchedulingPriority = 9999
