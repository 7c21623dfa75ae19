// Package metrics names every CloudWatch metric trainq publishes: its
// namespace, metric names, units and the dimension sets each metric is
// emitted with. The observer, poller and submission functions emit exactly
// these (ObserverMetrics, PollerMetrics, SubmitterMetrics), and the alarm and
// dashboard constructs import them, so a rename cannot silently break an
// alarm. Record writes them as embedded metric format (EMF) log lines and
// ParseEMF reads such lines back as CloudWatch would; docs/monitoring.md
// says how each is computed.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package metrics

// Namespace is the CloudWatch namespace of all trainq metrics.
const Namespace = "trainq"

// Dimension names.
const (
	Queue        = "Queue"
	Class        = "Class"
	Team         = "Team"
	InstanceType = "InstanceType"
	// ErrorType is the errorType a submission failed with (ValidationError,
	// Forbidden, Throttled, UpstreamError).
	ErrorType = "ErrorType"
	// Reason is why AWS Batch says a queue is blocked: the reason code of
	// the blocking job's statusReason (such as
	// MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED), or ReasonOther.
	Reason = "Reason"
	// FromInstanceType and ToInstanceType are the instance types a moved
	// job left and went to.
	FromInstanceType = "FromInstanceType"
	ToInstanceType   = "ToInstanceType"
	// Fault is whose a failed job's failure is: FaultPlatform or FaultJob.
	Fault = "Fault"
	// Quota is whether a waiting job's team has room for it in its quota
	// of the job's instance type: QuotaRoom or QuotaFull.
	Quota = "Quota"
	// Budget is the name of one of a team's budgets (the platform file's
	// teams[].budgets[].name), always with Team.
	Budget = "Budget"
)

// Values of Fault: a failure the platform or AWS caused (capacity,
// preemption retries exhausted, internal errors, time limits, and any
// reason trainq does not know), or the job's own (SageMaker's
// AlgorithmError or ClientError); batchrules.FailureCause decides.
const (
	FaultPlatform = "PLATFORM"
	FaultJob      = "JOB"
)

// Values of Quota. A job waits with room when its team's instances in use
// of the job's type plus the job's own instances fit the team's quota of
// the type: the team is within its quota and the platform should start it
// (in fair-share mode, where teams have no quota, every job waits with
// room). A job waits on a full quota when its team's own jobs fill the
// quota: the team's own doing.
const (
	QuotaRoom = "ROOM"
	QuotaFull = "FULL"
)

// ReasonOther is the Reason of a queue-blocked event whose statusReason
// carries none of the reason codes AWS Batch documents.
const ReasonOther = "OTHER"

// Units, as CloudWatch spells them.
const (
	UnitCount   = "Count"
	UnitSeconds = "Seconds"
	UnitPercent = "Percent"
)

// Metric is one metric: its name, unit and the dimension sets it is emitted
// with. An alarm or widget may only use a dimension set listed here.
type Metric struct {
	Name          string
	Unit          string
	DimensionSets [][]string
}

// HasDimensions reports whether m is emitted with exactly the dimension set
// dims (order does not matter).
func (m Metric) HasDimensions(dims ...string) bool {
	for _, set := range m.DimensionSets {
		if sameSet(set, dims) {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
		if seen[x] < 0 {
			return false
		}
	}
	return true
}

// Dimension sets shared by several metrics.
var (
	perClassTeam = [][]string{{Queue, Class, Team}, {Queue, Class}, {Queue, Team}, {Queue}}
	perType      = [][]string{{Queue, InstanceType}, {Queue}}
	perTeamType  = [][]string{{Queue, Team, InstanceType}, {Queue, Team}}
	backlogSets  = append([][]string{{Queue, InstanceType}, {Queue, Class, Quota}}, perClassTeam...)
)

// Metrics written by the observer from Batch job state-change events.
var (
	// JobsStarted counts jobs that reached RUNNING.
	JobsStarted = Metric{"JobsStarted", UnitCount, perClassTeam}
	// JobsSucceeded counts jobs that reached SUCCEEDED.
	JobsSucceeded = Metric{"JobsSucceeded", UnitCount, perClassTeam}
	// JobsFailed counts jobs that reached FAILED, except those cancelled
	// through trainq (JobsCancelled). A job terminated outside trainq (console,
	// CLI) counts here.
	// {Queue,Class,Fault} says whose failure it was (FaultPlatform,
	// FaultJob).
	JobsFailed = Metric{"JobsFailed", UnitCount, append([][]string{{Queue, Class, Fault}}, perClassTeam...)}
	// JobsCancelled counts jobs that ended FAILED because they were cancelled
	// through trainq (their status reason starts with
	// contract.CancelReasonPrefix). JobsFailed does not count them.
	JobsCancelled = Metric{"JobsCancelled", UnitCount, perClassTeam}
	// JobsPreempted counts preemptions of dispatched (SCHEDULED, STARTING or
	// RUNNING) jobs.
	JobsPreempted = Metric{"JobsPreempted", UnitCount, perClassTeam}
	// WaitSeconds is the time from RUNNABLE to RUNNING of each start.
	WaitSeconds = Metric{"WaitSeconds", UnitSeconds, perClassTeam}
	// RunSeconds is the time from RUNNING to SUCCEEDED or FAILED.
	RunSeconds = Metric{"RunSeconds", UnitSeconds, perClassTeam}
	// EventsRejected counts events the observer could not read, and events
	// it read only in part (a field it needed was unreadable, so a metric
	// was dropped).
	EventsRejected = Metric{"EventsRejected", UnitCount, [][]string{{Queue}}}
	// QueueBlocked counts "Batch Service Job Queue Blocked" events: AWS
	// Batch found the job at the head of the queue unable to run (a
	// misconfiguration, or capacity SageMaker cannot provide), so every job
	// behind it waits. Reason is the blocking reason code.
	QueueBlocked = Metric{"QueueBlocked", UnitCount, [][]string{{Queue, Reason}, {Queue}}}
	// ObserverHeartbeats counts the scheduled heartbeat events the
	// observer received (one a minute): no data means the observer or its
	// log-to-metric path is broken, so the job alarms would stay silent.
	ObserverHeartbeats = Metric{"ObserverHeartbeats", UnitCount, [][]string{{Queue}}}
)

// Metrics written by the submission function, one EMF line per request.
var (
	// JobsSubmitted counts jobs the submission function created (Batch sends
	// no event for a submission). A request answered with an existing job
	// (same idempotency key) is not counted again.
	JobsSubmitted = Metric{"JobsSubmitted", UnitCount, perClassTeam}
	// SubmissionErrors counts requests answered with an error, by errorType.
	SubmissionErrors = Metric{"SubmissionErrors", UnitCount, [][]string{{Queue, ErrorType}, {Queue}}}
)

// Metrics written by the poller from queue snapshots, once a minute.
var (
	// RunnableJobs is the number of jobs waiting to run; by instance type,
	// and by class and Quota (whether the team has room for the job).
	RunnableJobs = Metric{"RunnableJobs", UnitCount, backlogSets}
	// OldestRunnableSeconds is the wait so far of the oldest runnable job.
	OldestRunnableSeconds = Metric{"OldestRunnableSeconds", UnitSeconds, backlogSets}
	// RunnableUndescribed is the number of runnable jobs whose class and
	// instance type the poller does not know yet (not yet described): 0
	// when every per-class, per-type and per-Quota backlog is exact.
	RunnableUndescribed = Metric{"RunnableUndescribed", UnitCount, [][]string{{Queue}}}
	// InstancesInUse is the number of instances running jobs.
	InstancesInUse = Metric{"InstancesInUse", UnitCount, append(append([][]string{}, perType...), perTeamType...)}
	// CapacityUtilization is instances in use over the limit, in percent:
	// the pool's limit per type and overall; the team's quota per team.
	CapacityUtilization = Metric{"CapacityUtilization", UnitPercent, append(append([][]string{}, perType...), perTeamType...)}
	// BorrowedInstances is the number of instances a team uses beyond its
	// quota.
	BorrowedInstances = Metric{"BorrowedInstances", UnitCount, perTeamType}
)

// Metrics written by the poller's budget pass, every 15 minutes
// (poll.BudgetInterval), one EMF line per team and budget: package budget's
// figures (budget.Evaluate, the submission function's rule) over the job
// ledger, in percent of the budget's limit whatever its unit.
var (
	// BudgetUsedPercent is the budget's usage in its window to now (running
	// jobs counted to now), in percent of its limit.
	BudgetUsedPercent = Metric{"BudgetUsedPercent", UnitPercent, [][]string{{Queue, Team, Budget}}}
	// BudgetForecastPercent is the usage at the period's end if the
	// instances running now keep running (budget.Status.Forecast), in
	// percent of the limit.
	BudgetForecastPercent = Metric{"BudgetForecastPercent", UnitPercent, [][]string{{Queue, Team, Budget}}}
)

// Metrics written by the re-router, one EMF line per run.
var (
	// JobsRerouted counts jobs moved to another instance type (each move
	// once, however many runs it took to finish).
	JobsRerouted = Metric{"JobsRerouted", UnitCount, [][]string{
		{Queue, Class, Team, FromInstanceType, ToInstanceType}, {Queue, Class}, {Queue}}}
	// ReroutesRefused counts moves the re-router decided on but did not
	// make, by Reason (RefusalReasons).
	ReroutesRefused = Metric{"ReroutesRefused", UnitCount, [][]string{{Queue, Reason}, {Queue}}}
)

// Reasons of ReroutesRefused: why a move the re-router decided on was not
// made. The re-router writes them; the monitoring alarms and graphs on
// them.
const (
	// RefusedSubmit: AWS Batch refused or failed the new job's
	// submission, and no replacement was found after it.
	RefusedSubmit = "SUBMIT"
	// RefusedTerminate: the replacement exists but terminating the old job
	// (or the abandoned replacement) failed; the next run finishes it.
	RefusedTerminate = "TERMINATE"
	// RefusedRate: the per-minute bound (rerouting.maxMovesPerMinute) held
	// the move back; a backlog count, written every run.
	RefusedRate = "RATE"
	// RefusedMaxMoves: the job's lineage has moved reroute.maxMoves times;
	// a backlog count too.
	RefusedMaxMoves = "MAX_MOVES"
	// RefusedStarted: the old job started (or ended) before it could be
	// terminated, so the replacement was terminated instead: Batch found
	// room for the job where it was, nothing is lost.
	RefusedStarted = "STARTED"
	// RefusedBothStarted: the old job and its replacement had both started
	// before either could be terminated (a started job never is): the
	// training job runs twice until someone cancels one. It should never
	// happen; it pages.
	RefusedBothStarted = "BOTH_STARTED"
	// RefusedRequest: the new job's request cannot be sent: the door
	// refuses it (door.CheckPayload), it would exceed Batch's limits (a
	// payload over 10 KiB with the new instance type, more than 50 tags
	// with the lineage tags), or the old job's tags changed since the
	// decision. Counted once, when the decision is closed.
	RefusedRequest = "REQUEST"
)

// RefusalReasons lists every Reason of ReroutesRefused, in a fixed order.
func RefusalReasons() []string {
	return []string{RefusedSubmit, RefusedTerminate, RefusedRate, RefusedMaxMoves, RefusedStarted, RefusedBothStarted, RefusedRequest}
}

// ObserverMetrics lists the metrics the observer function writes from Batch
// job state-change events.
func ObserverMetrics() []Metric {
	return []Metric{JobsStarted, JobsSucceeded, JobsFailed, JobsCancelled, JobsPreempted, WaitSeconds, RunSeconds, EventsRejected, QueueBlocked, ObserverHeartbeats}
}

// SubmitterMetrics lists the metrics the submission function writes.
func SubmitterMetrics() []Metric {
	return []Metric{JobsSubmitted, SubmissionErrors}
}

// PollerMetrics lists the metrics the poller function writes from queue
// snapshots.
func PollerMetrics() []Metric {
	return []Metric{RunnableJobs, OldestRunnableSeconds, RunnableUndescribed, InstancesInUse, CapacityUtilization, BorrowedInstances}
}

// BudgetMetrics lists the metrics the poller's budget pass writes.
func BudgetMetrics() []Metric {
	return []Metric{BudgetUsedPercent, BudgetForecastPercent}
}

// RerouterMetrics lists the metrics the re-router writes.
func RerouterMetrics() []Metric {
	return []Metric{JobsRerouted, ReroutesRefused}
}

// All lists every metric trainq publishes: those of the observer, the
// submission function, the poller (its budget pass too) and the re-router,
// each exactly once.
func All() []Metric {
	var all []Metric
	all = append(all, ObserverMetrics()...)
	all = append(all, SubmitterMetrics()...)
	all = append(all, PollerMetrics()...)
	all = append(all, BudgetMetrics()...)
	return append(all, RerouterMetrics()...)
}
