package ledger

import (
	"reflect"
	"slices"
	"strings"

	"github.com/trainq/trainq/contract"
)

// Service job statuses, as AWS Batch spells them, in the order of a job's
// life: a job goes forward through them, and back to RUNNABLE only when an
// attempt ends and the job is requeued (a preemption, or a retry).
var statusRank = map[string]int64{
	"SUBMITTED": 1, "PENDING": 2, "RUNNABLE": 3, "SCHEDULED": 4, "STARTING": 5, "RUNNING": 6,
	"FAILED": 8, "SUCCEEDED": 9,
}

// Terminal reports whether status ends a job (SUCCEEDED or FAILED).
func Terminal(status string) bool { return status == "SUCCEEDED" || status == "FAILED" }

// Observation is what one event (or one DescribeServiceJob answer) says of
// a job. Times are Unix milliseconds, 0 when not given.
type Observation struct {
	JobID, JobARN, JobName string
	// Team and Class are what the observer recovered (observe.Identify).
	Team, Class string
	// Priority is the job's scheduling priority at that moment.
	Priority     int
	InstanceType string
	Instances    int
	Status       string
	StatusReason string
	CreatedAt    int64
	ScheduledAt  int64
	StartedAt    int64
	StoppedAt    int64
	// Attempts are the job's attempts the event lists.
	Attempts []ObservedAttempt
	// Preempted are the preemption summary's recent preempted attempts;
	// PreemptedCount its preemptedAttemptCount.
	Preempted      []ObservedAttempt
	PreemptedCount int
	// TimeoutSeconds is timeoutConfig.attemptDurationSeconds (0: none).
	TimeoutSeconds int
	// ReroutedFrom is the job a moved job replaced (its tag, known only
	// from DescribeServiceJob).
	ReroutedFrom string
	// Checkpoint is where the job keeps checkpoints, when known.
	Checkpoint string
}

// ObservedAttempt is one attempt as an event lists it.
type ObservedAttempt struct {
	StartedAt, StoppedAt int64
	StatusReason         string
	// TrainingJob is the SageMaker training job's ARN (serviceResourceId).
	TrainingJob string
}

// Job is a job's item: the join of every observation of it.
type Job struct {
	JobID, JobARN, JobName string
	Team, Class            string
	Priority               int
	InstanceType           string
	Instances              int
	// CreatedAt is when the job was submitted (the earliest seen).
	CreatedAt int64
	// Scheduled are the moments Batch scheduled the job, one per attempt
	// that got that far, ascending.
	Scheduled []int64
	// Attempts are ascending by start.
	Attempts       []Attempt
	PreemptedCount int
	TimeoutSeconds int
	// Status and StatusReason are the latest event's (by Order); Seq is
	// that order.
	Status       string
	StatusReason string
	Seq          int64
	// EndedAt is when the job ended (SUCCEEDED or FAILED), 0 while it
	// lives.
	EndedAt      int64
	ReroutedFrom string
	Checkpoint   string
}

// Attempt is one attempt of a job: when it started and stopped (0 while it
// runs), why it stopped, and whether a preemption stopped it.
type Attempt struct {
	StartedAt, StoppedAt int64
	StatusReason         string
	Preempted            bool
	TrainingJob          string
}

// Order is the place of an observation in the job's life, which a late or
// repeated event never lowers: a terminal status beats every other; then
// the latest moment the observation mentions (a requeue after a preemption
// mentions the attempt's stop, later than that attempt's RUNNING event,
// and the next attempt's start is later still); then the status's rank in
// Batch's lifecycle (RUNNABLE, SCHEDULED, STARTING and RUNNING of one
// attempt may carry the same moments).
func Order(o Observation) int64 {
	latest := max(o.CreatedAt, o.ScheduledAt, o.StartedAt, o.StoppedAt)
	for _, a := range o.Attempts {
		latest = max(latest, a.StartedAt, a.StoppedAt)
	}
	for _, a := range o.Preempted {
		latest = max(latest, a.StartedAt, a.StoppedAt)
	}
	var terminal int64
	if Terminal(o.Status) {
		terminal = 1
	}
	return terminal*orderTerminal + latest*10 + statusRank[o.Status]
}

// orderTerminal puts every terminal observation after every other: moments
// are below 10^13 ms (the year 2286), so latest*10+rank stays below 10^14.
const orderTerminal = 1_000_000_000_000_000

// Merge adds what o says to j and reports whether j changed. It is
// commutative, associative and idempotent over observations of one job:
// identity fields are filled once, times and attempts are joined, and the
// status is the one of the highest Order (ties broken by the larger
// reason, so that the result never depends on the order of arrival).
func Merge(j *Job, o Observation) bool {
	before := j.clone()
	fill := func(dst *string, v string) {
		if *dst == "" || (v != "" && v < *dst) {
			*dst = v
		}
	}
	if j.JobID == "" {
		j.JobID = o.JobID
	}
	fill(&j.JobARN, o.JobARN)
	fill(&j.JobName, o.JobName)
	fill(&j.Team, o.Team)
	fill(&j.Class, o.Class)
	fill(&j.InstanceType, o.InstanceType)
	fill(&j.ReroutedFrom, o.ReroutedFrom)
	fill(&j.Checkpoint, o.Checkpoint)
	j.Instances = max(j.Instances, o.Instances)
	j.TimeoutSeconds = max(j.TimeoutSeconds, o.TimeoutSeconds)
	j.PreemptedCount = max(j.PreemptedCount, o.PreemptedCount, len(o.Preempted))
	if o.CreatedAt > 0 && (j.CreatedAt == 0 || o.CreatedAt < j.CreatedAt) {
		j.CreatedAt = o.CreatedAt
	}
	if o.ScheduledAt > 0 && !slices.Contains(j.Scheduled, o.ScheduledAt) {
		j.Scheduled = append(j.Scheduled, o.ScheduledAt)
		slices.Sort(j.Scheduled)
	}
	attempts := o.Attempts
	if len(attempts) == 0 && o.StartedAt > 0 {
		// No attempt list: the job's own times are its current attempt's.
		stop := int64(0)
		if Terminal(o.Status) {
			stop = o.StoppedAt
		}
		attempts = []ObservedAttempt{{StartedAt: o.StartedAt, StoppedAt: stop, StatusReason: ""}}
	}
	for _, a := range attempts {
		j.addAttempt(a, false)
	}
	for _, a := range o.Preempted {
		j.addAttempt(a, true)
	}
	switch seq := Order(o); {
	case seq > j.Seq:
		j.Seq, j.Status, j.StatusReason, j.Priority = seq, o.Status, o.StatusReason, o.Priority
	case seq == j.Seq:
		// The same moment and status: the larger of each, whatever came first.
		j.StatusReason = max(j.StatusReason, o.StatusReason)
		j.Priority = max(j.Priority, o.Priority)
	}
	if Terminal(o.Status) {
		end := o.StoppedAt
		if end == 0 {
			end = Order(o) % orderTerminal / 10
		}
		j.EndedAt = max(j.EndedAt, end)
	}
	return !j.equal(before)
}

// addAttempt joins a with the attempt of the same start, or adds it.
func (j *Job) addAttempt(a ObservedAttempt, preempted bool) {
	if a.StartedAt <= 0 {
		return
	}
	i, found := slices.BinarySearchFunc(j.Attempts, a.StartedAt, func(x Attempt, t int64) int {
		switch {
		case x.StartedAt < t:
			return -1
		case x.StartedAt > t:
			return 1
		}
		return 0
	})
	if !found {
		j.Attempts = slices.Insert(j.Attempts, i, Attempt{StartedAt: a.StartedAt})
	}
	x := &j.Attempts[i]
	x.StoppedAt = max(x.StoppedAt, a.StoppedAt)
	if a.StatusReason > x.StatusReason {
		x.StatusReason = a.StatusReason
	}
	if a.TrainingJob > x.TrainingJob {
		x.TrainingJob = a.TrainingJob
	}
	x.Preempted = x.Preempted || preempted
}

func (j *Job) clone() Job {
	c := *j
	c.Scheduled = slices.Clone(j.Scheduled)
	c.Attempts = slices.Clone(j.Attempts)
	return c
}

func (j *Job) equal(o Job) bool {
	if !slices.Equal(j.Scheduled, o.Scheduled) || !slices.Equal(j.Attempts, o.Attempts) {
		return false
	}
	a, b := j.clone(), o
	a.Scheduled, b.Scheduled, a.Attempts, b.Attempts = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

// Outcomes of a job, as history and usage count them.
const (
	OutcomeRunning   = "running"   // not ended yet
	OutcomeSucceeded = "succeeded" // SUCCEEDED
	OutcomeFailed    = "failed"    // FAILED for any reason below none of the others
	OutcomeCancelled = "cancelled" // FAILED: cancelled through trainq
	OutcomeRerouted  = "rerouted"  // FAILED: the re-router moved its work to another job
	OutcomePreempted = "preempted" // FAILED: a preemption used up its preemption retries
	OutcomeTimedOut  = "timed-out" // FAILED: its last attempt ran its time limit
)

// Outcomes lists every outcome, in the order tables show them.
func Outcomes() []string {
	return []string{OutcomeSucceeded, OutcomeFailed, OutcomeCancelled, OutcomeRerouted, OutcomePreempted, OutcomeTimedOut, OutcomeRunning}
}

// Outcome is how the job ended, or OutcomeRunning while it lives.
func (j *Job) Outcome() string {
	switch {
	case !Terminal(j.Status):
		return OutcomeRunning
	case j.Status == "SUCCEEDED":
		return OutcomeSucceeded
	case strings.HasPrefix(j.StatusReason, contract.CancelReasonPrefix):
		return OutcomeCancelled
	case strings.HasPrefix(j.StatusReason, contract.RerouteReasonPrefix):
		return OutcomeRerouted
	}
	if n := len(j.Attempts); n > 0 {
		last := j.Attempts[n-1]
		if last.Preempted {
			return OutcomePreempted
		}
		if j.attemptTimedOut(last) {
			return OutcomeTimedOut
		}
	}
	return OutcomeFailed
}

// MovedTo is the job the re-router moved this one's work to, read from its
// status reason.
func (j *Job) MovedTo() string {
	id, _, _ := contract.ParseReroutedReason(j.StatusReason)
	return id
}

// AttemptOutcome is how one attempt ended: running, completed (the
// attempt that succeeded), preempted, timed-out (it ran the job's
// timeout), or failed.
func (j *Job) AttemptOutcome(i int) string {
	a := j.Attempts[i]
	switch {
	case a.StoppedAt == 0 && !Terminal(j.Status):
		return OutcomeRunning
	case a.Preempted:
		return OutcomePreempted
	case i == len(j.Attempts)-1 && j.Status == "SUCCEEDED":
		return "completed"
	case j.attemptTimedOut(a):
		return OutcomeTimedOut
	}
	return OutcomeFailed
}

// attemptTimedOut: the attempt ran the job's timeoutConfig
// (attemptDurationSeconds), after which "AWS Batch terminates the service
// job attempt" (API reference, ServiceJobTimeout).
func (j *Job) attemptTimedOut(a Attempt) bool {
	return j.TimeoutSeconds > 0 && a.StoppedAt > 0 && a.StoppedAt-a.StartedAt >= int64(j.TimeoutSeconds)*1000
}

// LastSeen is the latest moment any observation of the job mentioned
// (Unix ms): the moment of its status (Order).
func (j *Job) LastSeen() int64 { return j.Seq % orderTerminal / 10 }

// Ended reports whether the job has ended.
func (j *Job) Ended() bool { return Terminal(j.Status) }
