package alarms

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Comparison compares a datapoint with the threshold, named as CloudWatch
// names it (ComparisonOperator).
type Comparison string

// Comparisons.
const (
	GreaterThanOrEqual Comparison = "GreaterThanOrEqualToThreshold"
	GreaterThan        Comparison = "GreaterThanThreshold"
	LessThan           Comparison = "LessThanThreshold"
)

// Missing is how a period without data counts, named as CloudWatch names it
// (TreatMissingData).
type Missing string

// Treatments of missing data.
const (
	NotBreaching Missing = "notBreaching"
	Breaching    Missing = "breaching"
	// Ignore keeps the alarm's state through a period without data
	// ("The current alarm state is maintained", CloudWatch's
	// TreatMissingData): for a gauge written less often than each minute,
	// whose missed figure says nothing of what it measures.
	Ignore Missing = "ignore"
)

// Lambda functions and queues whose AWS metrics some rules watch.
const (
	Observer     = "observer"
	Poller       = "poller"
	Submitter    = "submitter"
	Rerouter     = "rerouter"
	SubmitterDLQ = "submitter-dead-letter-queue"
	EventDLQ     = "event-dead-letter-queue"
)

// AWS metrics of a function or queue that rules watch.
const (
	LambdaErrors    = "Errors"
	LambdaThrottles = "Throttles"
	MessagesVisible = "ApproximateNumberOfMessagesVisible"
)

// Term is one metric a rule watches: a trainq metric of the queue (Metric,
// with Dimensions beyond Queue), or an AWS metric (AWSMetric) of one of
// the platform's functions or queues (Resource).
type Term struct {
	Metric     metrics.Metric
	Dimensions map[string]string
	Resource   string
	AWSMetric  string
}

// Rule is one alarm.
type Rule struct {
	// Name is the alarm's name after the platform's prefix
	// ("oldest-wait-production").
	Name string
	// Runbook is the alarm's section of the runbooks page: its name, or
	// for an alarm per class its family ("oldest-wait").
	Runbook string
	// Severity is platform.SeverityPage or platform.SeverityTicket.
	Severity string
	// Means says what firing means; MissingMeans what a period without
	// data means.
	Means, MissingMeans string

	// Terms are the metrics watched: the datapoint is their sum, each
	// missing one counting 0 when there are several (FILL(m, 0)). For
	// an idle rule, see IdleTypes.
	Terms []Term
	// IdleTypes, when set, make the datapoint the number of these instance
	// types that have runnable jobs (RunnableJobs{Queue,InstanceType} > 0)
	// while their capacity utilization (CapacityUtilization{Queue,
	// InstanceType}) is below Target. "" stands for the whole queue
	// ({Queue}), watched instead of the types when there are more than
	// MaxIdleTypes.
	IdleTypes []string
	Target    float64

	// Statistic and PeriodSeconds read each term per period.
	Statistic     string
	PeriodSeconds int
	Comparison    Comparison
	Threshold     float64
	// DatapointsToAlarm of the last EvaluationPeriods datapoints must
	// breach.
	DatapointsToAlarm, EvaluationPeriods int
	TreatMissing                         Missing
}

// Description is the alarm's description: what firing means, the
// severity, what missing data means and the link to its runbook section
// (runbookURL#Runbook).
func (r Rule) Description(runbookURL string) string {
	return fmt.Sprintf("%s Severity: %s. Missing data: %s. Runbook: %s", r.Means, r.Severity, r.MissingMeans, r.RunbookLink(runbookURL))
}

// RunbookLink is the URL of the rule's runbook section.
func (r Rule) RunbookLink(runbookURL string) string { return runbookURL + "#" + r.Runbook }

// Trainq reports whether every term is a trainq metric (so the simulator
// can evaluate the rule).
func (r Rule) Trainq() bool {
	for _, t := range r.Terms {
		if t.Resource != "" {
			return false
		}
	}
	return true
}

// Kinds are the runbook sections, one per alarm or family of alarms, in
// the order of the runbooks page.
func Kinds() []string {
	return []string{
		KindJobFailed, KindJobCodeFailed, KindOldestWait, KindQuotaFullWait, AlarmIdleCapacity, AlarmQueueBlocked,
		AlarmObserverHeartbeat, AlarmPollerHeartbeat, AlarmObserverErrors, AlarmObserverThrottles,
		AlarmPollerErrors, AlarmPollerThrottles, AlarmEventsRejected, AlarmEventDeadLetters,
		AlarmSubmitterErrors, AlarmSubmitterThrottles, AlarmSubmitterDeadLetters,
		AlarmRerouterErrors, AlarmRerouterThrottles, AlarmReroutesRefused, AlarmRerouteRanTwice,
		KindBudget,
	}
}

// Alarm names and families.
const (
	KindJobFailed             = "job-failed"
	KindJobCodeFailed         = "job-code-failed"
	KindOldestWait            = "oldest-wait"
	KindQuotaFullWait         = "quota-full-wait"
	AlarmIdleCapacity         = "idle-capacity"
	AlarmQueueBlocked         = "queue-blocked"
	AlarmObserverHeartbeat    = "observer-heartbeat"
	AlarmPollerHeartbeat      = "poller-heartbeat"
	AlarmObserverErrors       = "observer-errors"
	AlarmObserverThrottles    = "observer-throttles"
	AlarmPollerErrors         = "poller-errors"
	AlarmPollerThrottles      = "poller-throttles"
	AlarmEventsRejected       = "events-rejected"
	AlarmEventDeadLetters     = "event-dead-letters"
	AlarmSubmitterErrors      = "submitter-errors"
	AlarmSubmitterThrottles   = "submitter-throttles"
	AlarmSubmitterDeadLetters = "submitter-dead-letters"
	AlarmRerouterErrors       = "rerouter-errors"
	AlarmRerouterThrottles    = "rerouter-throttles"
	AlarmReroutesRefused      = "reroutes-refused"
	AlarmRerouteRanTwice      = "reroute-ran-twice"
	KindBudget                = "budget"
)

// Budget names the alarm at percent of team's budget (the platform file's
// teams[].budgets[].alarms): "budget-search-research-p5-month-80".
func Budget(team, budget string, percent float64) string {
	return KindBudget + "-" + team + "-" + budget + "-" + strconv.FormatFloat(percent, 'f', -1, 64)
}

// JobFailed names the alarm on failures of class the platform or AWS
// caused; JobCodeFailed on the class's jobs' own failures.
func JobFailed(class string) string     { return KindJobFailed + "-" + class }
func JobCodeFailed(class string) string { return KindJobCodeFailed + "-" + class }

// OldestWait names the alarm on the oldest job of class waiting with room
// in its team's quota; QuotaFullWait on the oldest waiting on its team's
// full quota.
func OldestWait(class string) string    { return KindOldestWait + "-" + class }
func QuotaFullWait(class string) string { return KindQuotaFullWait + "-" + class }

const minute = 60

// QueueThresholds are the inputs of the queue's rules (platform.Monitoring
// resolved for the platform's classes).
type QueueThresholds struct {
	Classes []string
	// FailedJobClasses get failure alarms; PagingClasses' failures the
	// platform caused and waits with room page, every other is a ticket.
	FailedJobClasses, PagingClasses []string
	MaxWaitSeconds                  map[string]int
	UtilizationTargetPercent        int
	IdleAlarmSeconds                int
	InstanceTypes                   []string
}

// QueueThresholdsOf are p's.
func QueueThresholdsOf(p *platform.Platform) QueueThresholds {
	m := p.Monitoring
	return QueueThresholds{
		Classes: p.ClassNames(), FailedJobClasses: m.FailureAlarmClasses, PagingClasses: m.PagingClasses,
		MaxWaitSeconds: m.MaxWaitSeconds, UtilizationTargetPercent: m.UtilizationTargetPercent,
		IdleAlarmSeconds: m.IdleAlarmSeconds, InstanceTypes: p.InstanceTypes(),
	}
}

func severity(paging bool) string {
	if paging {
		return platform.SeverityPage
	}
	return platform.SeverityTicket
}

// QueueRules are the queue's alarms on trainq's own metrics:
//   - job-failed-<class> (each of FailedJobClasses): a job failed for the
//     platform's or AWS's reason (Fault PLATFORM); page for paging classes;
//   - job-code-failed-<class> (idem): jobs failed by their own code or
//     request (Fault JOB), a ticket to the team;
//   - oldest-wait-<class> (every class): a job with room in its team's
//     quota waited past the class's limit; page for paging classes;
//   - quota-full-wait-<class> (every class): a job waited past the limit
//     because its team's own jobs fill its quota; a ticket;
//   - idle-capacity: an instance type idled below target while jobs
//     waited for it; a ticket.
func QueueRules(t QueueThresholds) []Rule {
	var rules []Rule
	for _, class := range t.FailedJobClasses {
		paging := slices.Contains(t.PagingClasses, class)
		rules = append(rules, Rule{
			Name: JobFailed(class), Runbook: KindJobFailed, Severity: severity(paging),
			Means:        fmt.Sprintf("A %s job failed for the platform's or AWS's reason (capacity, preemption retries exhausted, an internal error, a time limit, or a reason trainq does not know).", class),
			MissingMeans: "no job failed so, not breaching",
			Terms:        []Term{{Metric: metrics.JobsFailed, Dimensions: map[string]string{metrics.Class: class, metrics.Fault: metrics.FaultPlatform}}},
			Statistic:    "Sum", PeriodSeconds: minute, Comparison: GreaterThanOrEqual, Threshold: 1,
			DatapointsToAlarm: 1, EvaluationPeriods: 1, TreatMissing: NotBreaching,
		}, Rule{
			Name: JobCodeFailed(class), Runbook: KindJobCodeFailed, Severity: platform.SeverityTicket,
			Means:        fmt.Sprintf("%s jobs failed by their own code or request (SageMaker AlgorithmError or ClientError) in 3 of the last 6 hours: a ticket to the job's team.", class),
			MissingMeans: "no job failed so, not breaching",
			Terms:        []Term{{Metric: metrics.JobsFailed, Dimensions: map[string]string{metrics.Class: class, metrics.Fault: metrics.FaultJob}}},
			Statistic:    "Sum", PeriodSeconds: 60 * minute, Comparison: GreaterThanOrEqual, Threshold: 1,
			DatapointsToAlarm: 3, EvaluationPeriods: 6, TreatMissing: NotBreaching,
		})
	}
	for _, class := range t.Classes {
		limit := t.MaxWaitSeconds[class]
		paging := slices.Contains(t.PagingClasses, class)
		rules = append(rules, Rule{
			Name: OldestWait(class), Runbook: KindOldestWait, Severity: severity(paging),
			Means:        fmt.Sprintf("A %s job whose team has room for it in its quota has waited more than %d s (in 3 of the last 5 minutes): the platform does not start what it should.", class, limit),
			MissingMeans: "the poller wrote nothing (the poller-heartbeat alarm covers it), not breaching",
			Terms:        []Term{{Metric: metrics.OldestRunnableSeconds, Dimensions: map[string]string{metrics.Class: class, metrics.Quota: metrics.QuotaRoom}}},
			Statistic:    "Maximum", PeriodSeconds: minute, Comparison: GreaterThan, Threshold: float64(limit),
			DatapointsToAlarm: 3, EvaluationPeriods: 5, TreatMissing: NotBreaching,
		}, Rule{
			Name: QuotaFullWait(class), Runbook: KindQuotaFullWait, Severity: platform.SeverityTicket,
			Means: fmt.Sprintf("A %s job has waited more than %d s (%d times the class's limit) because its team's own jobs fill the team's quota of its instance type: the team's to resolve (a ticket).",
				class, QuotaFullWaitFactor*limit, QuotaFullWaitFactor),
			MissingMeans: "the poller wrote nothing, not breaching",
			Terms:        []Term{{Metric: metrics.OldestRunnableSeconds, Dimensions: map[string]string{metrics.Class: class, metrics.Quota: metrics.QuotaFull}}},
			Statistic:    "Maximum", PeriodSeconds: minute, Comparison: GreaterThan, Threshold: float64(QuotaFullWaitFactor * limit),
			DatapointsToAlarm: 3, EvaluationPeriods: 5, TreatMissing: NotBreaching,
		})
	}
	n := t.IdleAlarmSeconds / minute
	types := t.InstanceTypes
	if len(types) == 0 || len(types) > MaxIdleTypes {
		types = []string{""}
	}
	rules = append(rules, Rule{
		Name: AlarmIdleCapacity, Runbook: AlarmIdleCapacity, Severity: platform.SeverityTicket,
		Means: fmt.Sprintf("An instance type's capacity utilization stayed below %d%% while jobs waited for that type, in %d of the last %d minutes.",
			t.UtilizationTargetPercent, idleM(n), n),
		MissingMeans: "the poller wrote nothing (the poller-heartbeat alarm covers it), not breaching",
		IdleTypes:    types, Target: float64(t.UtilizationTargetPercent),
		Statistic: "Maximum", PeriodSeconds: minute, Comparison: GreaterThanOrEqual, Threshold: 1,
		DatapointsToAlarm: idleM(n), EvaluationPeriods: n, TreatMissing: NotBreaching,
	})
	return rules
}

// QuotaFullWaitFactor multiplies a class's wait limit for its jobs waiting
// on their team's own full quota: waiting there is the quota doing its
// work, so the team hears of it only when the wait is long.
const QuotaFullWaitFactor = 4

// MaxIdleTypes is how many instance types the idle-capacity alarm watches
// one by one: CloudWatch's metric math alarms take at most 10 metrics, two
// per type.
const MaxIdleTypes = 5

// idleM is the idle alarm's M of N: five sixths of the periods (25 of 30),
// so that a few busy minutes do not reset the count.
func idleM(n int) int { return max(1, n-n/6) }

// PipelineRules are the monitoring pipeline's alarms: the queue blocked,
// the observer's and the poller's heartbeats, errors and throttles, and
// events that could not be read or delivered.
func PipelineRules() []Rule {
	return []Rule{
		{
			Name: AlarmQueueBlocked, Runbook: AlarmQueueBlocked, Severity: platform.SeverityPage,
			Means:        "AWS Batch reported the queue blocked by the job at its head (Batch Service Job Queue Blocked) in the last 5 minutes; every job behind it waits.",
			MissingMeans: "no such event, not breaching",
			Terms:        []Term{{Metric: metrics.QueueBlocked}},
			Statistic:    "Sum", PeriodSeconds: 5 * minute, Comparison: GreaterThanOrEqual, Threshold: 1,
			DatapointsToAlarm: 1, EvaluationPeriods: 1, TreatMissing: NotBreaching,
		},
		{
			Name: AlarmObserverHeartbeat, Runbook: AlarmObserverHeartbeat, Severity: platform.SeverityPage,
			Means:        "The observer wrote no heartbeat in 2 of the last 3 five-minute periods (it gets one a minute): job metrics, and the failure alarms, are blind.",
			MissingMeans: "no heartbeat, breaching",
			Terms:        []Term{{Metric: metrics.ObserverHeartbeats}},
			Statistic:    "Sum", PeriodSeconds: 5 * minute, Comparison: LessThan, Threshold: 1,
			DatapointsToAlarm: 2, EvaluationPeriods: 3, TreatMissing: Breaching,
		},
		{
			Name: AlarmPollerHeartbeat, Runbook: AlarmPollerHeartbeat, Severity: platform.SeverityPage,
			Means:        "The poller wrote no backlog (RunnableJobs of the queue) in 2 of the last 3 five-minute periods (it writes one a minute): the wait and idle alarms are blind.",
			MissingMeans: "no backlog written, breaching",
			Terms:        []Term{{Metric: metrics.RunnableJobs}},
			Statistic:    "SampleCount", PeriodSeconds: 5 * minute, Comparison: LessThan, Threshold: 1,
			DatapointsToAlarm: 2, EvaluationPeriods: 3, TreatMissing: Breaching,
		},
		fnRule(AlarmObserverErrors, Observer, LambdaErrors, "The observer function failed"),
		fnRule(AlarmObserverThrottles, Observer, LambdaThrottles, "Lambda throttled the observer function"),
		fnRule(AlarmPollerErrors, Poller, LambdaErrors, "The poller function failed (a Batch call failed or the run timed out)"),
		fnRule(AlarmPollerThrottles, Poller, LambdaThrottles, "Lambda throttled the poller function (its runs are skipped)"),
		fnRule(AlarmEventsRejected, "", "", "The observer could not read some Batch events"),
		fnRule(AlarmEventDeadLetters, EventDLQ, MessagesVisible, "Batch events could not be delivered to the observer and wait in the dead-letter queue"),
	}
}

// fnRule is a ticket on a function's or queue's health: at least one in 2
// of the last 3 five-minute periods.
func fnRule(name, resource, awsMetric, what string) Rule {
	term := Term{Resource: resource, AWSMetric: awsMetric}
	stat := "Sum"
	if awsMetric == MessagesVisible {
		stat = "Maximum"
	}
	if name == AlarmEventsRejected {
		term = Term{Metric: metrics.EventsRejected}
	}
	return Rule{
		Name: name, Runbook: name, Severity: platform.SeverityTicket,
		Means: what + " in 2 of the last 3 five-minute periods.", MissingMeans: "none, not breaching",
		Terms: []Term{term}, Statistic: stat, PeriodSeconds: 5 * minute, Comparison: GreaterThanOrEqual, Threshold: 1,
		DatapointsToAlarm: 2, EvaluationPeriods: 3, TreatMissing: NotBreaching,
	}
}

// SubmitterRules are the submission function's alarms: failures on AWS's
// side (pagingKinds, the errorTypes that are no caller's mistake) page;
// throttles and dead letters are tickets.
func SubmitterRules(pagingKinds []string, deadLetters bool) []Rule {
	var terms []Term
	for _, k := range pagingKinds {
		terms = append(terms, Term{Metric: metrics.SubmissionErrors, Dimensions: map[string]string{metrics.ErrorType: k}})
	}
	rules := []Rule{
		{
			Name: AlarmSubmitterErrors, Runbook: AlarmSubmitterErrors, Severity: platform.SeverityPage,
			Means:        "Submissions failed on AWS's side (" + strings.Join(pagingKinds, ", ") + ") in 2 of the last 3 five-minute periods; callers' mistakes do not count.",
			MissingMeans: "no failed submission, not breaching",
			Terms:        terms, Statistic: "Sum", PeriodSeconds: 5 * minute, Comparison: GreaterThanOrEqual, Threshold: 1,
			DatapointsToAlarm: 2, EvaluationPeriods: 3, TreatMissing: NotBreaching,
		},
		fnRule(AlarmSubmitterThrottles, Submitter, LambdaThrottles, "Lambda throttled the submission function"),
	}
	if deadLetters {
		rules = append(rules, fnRule(AlarmSubmitterDeadLetters, SubmitterDLQ, MessagesVisible, "Asynchronous submissions failed every retry and wait in the dead-letter queue"))
	}
	return rules
}

// RerouterRules are the re-router's alarms: its errors, lasting throttles
// (3 consecutive periods of throttlePeriodSeconds), moves AWS Batch refused
// (refused or more of refusedReasons in windowSeconds) and a job that
// started twice (the one that pages).
func RerouterRules(refusedReasons []string, refused, windowSeconds, throttlePeriodSeconds int) []Rule {
	var terms []Term
	for _, r := range refusedReasons {
		terms = append(terms, Term{Metric: metrics.ReroutesRefused, Dimensions: map[string]string{metrics.Reason: r}})
	}
	errs := fnRule(AlarmRerouterErrors, Rerouter, LambdaErrors, "The re-router function failed (an error or a timeout)")
	return []Rule{
		errs,
		{
			Name: AlarmRerouterThrottles, Runbook: AlarmRerouterThrottles, Severity: platform.SeverityTicket,
			Means: fmt.Sprintf("Lambda throttled the re-router in each of 3 consecutive %d-minute periods: its runs are skipped "+
				"(its reserved concurrency is 1 and its runs never overlap, so look for a changed concurrency).", throttlePeriodSeconds/minute),
			MissingMeans: "no invocation, not breaching",
			Terms:        []Term{{Resource: Rerouter, AWSMetric: LambdaThrottles}},
			Statistic:    "Sum", PeriodSeconds: throttlePeriodSeconds, Comparison: GreaterThanOrEqual, Threshold: 1,
			DatapointsToAlarm: 3, EvaluationPeriods: 3, TreatMissing: NotBreaching,
		},
		{
			Name: AlarmReroutesRefused, Runbook: AlarmReroutesRefused, Severity: platform.SeverityTicket,
			Means: fmt.Sprintf("AWS Batch refused %d or more of the re-router's moves (%s) in %d minutes; moves stopped by the platform's own bounds (%s, %s) do not count.",
				refused, strings.Join(refusedReasons, ", "), windowSeconds/minute, metrics.RefusedRate, metrics.RefusedMaxMoves),
			MissingMeans: "no refused move, not breaching",
			Terms:        terms, Statistic: "Sum", PeriodSeconds: windowSeconds, Comparison: GreaterThanOrEqual, Threshold: float64(refused),
			DatapointsToAlarm: 1, EvaluationPeriods: 1, TreatMissing: NotBreaching,
		},
		{
			Name: AlarmRerouteRanTwice, Runbook: AlarmRerouteRanTwice, Severity: platform.SeverityPage,
			Means: "A job the re-router was moving started on both instance types before either could be terminated (ReroutesRefused, reason " +
				metrics.RefusedBothStarted + "): the training job runs twice until someone cancels one.",
			MissingMeans: "none happened, not breaching",
			Terms:        []Term{{Metric: metrics.ReroutesRefused, Dimensions: map[string]string{metrics.Reason: metrics.RefusedBothStarted}}},
			Statistic:    "Sum", PeriodSeconds: 5 * minute, Comparison: GreaterThanOrEqual, Threshold: 1,
			DatapointsToAlarm: 1, EvaluationPeriods: 1, TreatMissing: NotBreaching,
		},
	}
}

// BudgetPeriodSeconds is the budget alarms' period: the poller's budget
// pass writes each budget's figure once in each (poll.BudgetInterval, 15
// minutes, in its 8th minute).
const BudgetPeriodSeconds = 15 * minute

// BudgetRules are p's budget alarms: for each team's budget, one per
// percent of its alarms (default 80% and 100%, ticket), on the budget's
// BudgetUsedPercent: its Maximum over each 15-minute period at or above
// the percent, 1 of 1. A period without a figure (a pass that failed or
// ran late) keeps the alarm's state (Ignore): usage only grows within a
// period, so a missed figure is no news, and neither clearing nor firing on
// it would be true. The alarm clears when the figure falls below the
// percent: at the month's turn, or as a rolling window's usage ages out.
func BudgetRules(p *platform.Platform) []Rule {
	var rules []Rule
	for _, t := range p.Teams {
		for _, b := range t.Budgets {
			actions := make([]string, 0, len(p.Classes))
			for _, c := range p.ClassNames() {
				actions = append(actions, c+" "+string(b.ActionFor(c)))
			}
			period := "a calendar month (UTC)"
			if b.Period == platform.PeriodRolling30Days {
				period = "the rolling 30 days"
			}
			for _, a := range b.Alarms {
				pct := strconv.FormatFloat(a.Percent, 'f', -1, 64)
				rules = append(rules, Rule{
					Name: Budget(t.Name, b.Name, a.Percent), Runbook: KindBudget, Severity: a.Severity,
					Means: fmt.Sprintf("Team %s has used %s%% or more of its budget %s (%s %s in %s), as the poller's budget pass read the job ledger (every 15 minutes). Past 100%% its new jobs get: %s; running jobs are never stopped.",
						t.Name, pct, b.Name, strconv.FormatFloat(b.Limit(), 'f', -1, 64), b.Unit(), period, strings.Join(actions, ", ")),
					MissingMeans: "the budget pass wrote no figure in the period (it failed or ran late; the poller's alarms cover a stopped poller), the alarm keeps its state",
					Terms:        []Term{{Metric: metrics.BudgetUsedPercent, Dimensions: map[string]string{metrics.Team: t.Name, metrics.Budget: b.Name}}},
					Statistic:    "Maximum", PeriodSeconds: BudgetPeriodSeconds, Comparison: GreaterThanOrEqual, Threshold: a.Percent,
					DatapointsToAlarm: 1, EvaluationPeriods: 1, TreatMissing: Ignore,
				})
			}
		}
	}
	return rules
}

// Breaches reports whether datapoint v breaches the rule's threshold; a
// NaN (no data) counts as TreatMissing says.
func (r Rule) Breaches(v float64) bool {
	if math.IsNaN(v) {
		return r.TreatMissing == Breaching
	}
	switch r.Comparison {
	case GreaterThan:
		return v > r.Threshold
	case LessThan:
		return v < r.Threshold
	default:
		return v >= r.Threshold
	}
}

// Evaluate runs the rule over datapoints, one per period in order (NaN:
// no data), as CloudWatch evaluates an alarm: after each period the alarm
// is in ALARM when at least DatapointsToAlarm of the last EvaluationPeriods
// datapoints breach, else OK. It returns the periods at which the alarm
// went from OK to ALARM (each a notification of its severity). With
// Ignore a missing datapoint keeps the state and the M of N are the last N
// datapoints present (exactly CloudWatch's "state is maintained" for 1 of
// 1).
func (r Rule) Evaluate(datapoints []float64) []int {
	var fired []int
	in := false
	if r.TreatMissing == Ignore {
		var present []bool
		for i, v := range datapoints {
			if math.IsNaN(v) {
				continue
			}
			present = append(present, r.Breaches(v))
			breaching := 0
			for _, b := range present[max(0, len(present)-r.EvaluationPeriods):] {
				if b {
					breaching++
				}
			}
			alarm := breaching >= r.DatapointsToAlarm
			if alarm && !in {
				fired = append(fired, i)
			}
			in = alarm
		}
		return fired
	}
	breaching := 0
	for i, v := range datapoints {
		if r.Breaches(v) {
			breaching++
		}
		if i >= r.EvaluationPeriods && r.Breaches(datapoints[i-r.EvaluationPeriods]) {
			breaching--
		}
		alarm := breaching >= r.DatapointsToAlarm
		if alarm && !in {
			fired = append(fired, i)
		}
		in = alarm
	}
	return fired
}

// Series gives the per-minute values of a term, as CloudWatch would hold
// them (NaN for a minute without data), all of one length; nil when the
// term was never written. For an idle rule it is asked for
// RunnableJobs{InstanceType} and CapacityUtilization{InstanceType} of each
// type ("" the whole queue).
type Series func(Term) []float64

// Datapoints are the rule's datapoints, one per period of PeriodSeconds
// over minutes minutes, from series: each term read by Statistic over the
// period (NaN when it has no data in it); several terms summed, each
// missing one counting 0 (FILL(m, 0)), the sum missing when all are; an
// idle rule's datapoint the number of types with runnable jobs and
// utilization below Target (the per-minute maximum of that count, missing
// when no type has data).
func (r Rule) Datapoints(series Series, minutes int) []float64 {
	per := max(1, r.PeriodSeconds/minute)
	n := (minutes + per - 1) / per
	out := make([]float64, n)
	if len(r.IdleTypes) > 0 {
		idle := make([]float64, minutes)
		for i := range idle {
			idle[i] = math.NaN()
		}
		for _, typ := range r.IdleTypes {
			dims := map[string]string{}
			if typ != "" {
				dims[metrics.InstanceType] = typ
			}
			run := series(Term{Metric: metrics.RunnableJobs, Dimensions: dims})
			use := series(Term{Metric: metrics.CapacityUtilization, Dimensions: dims})
			for i := range idle {
				if i >= len(run) || i >= len(use) || math.IsNaN(run[i]) || math.IsNaN(use[i]) {
					continue
				}
				v := 0.0
				if run[i] > 0 && use[i] < r.Target {
					v = 1
				}
				if math.IsNaN(idle[i]) {
					idle[i] = 0
				}
				idle[i] += v
			}
		}
		for p := range out {
			out[p] = aggregate("Maximum", idle, p*per, min((p+1)*per, minutes))
		}
		return out
	}
	values := make([][]float64, len(r.Terms))
	for i, t := range r.Terms {
		values[i] = series(t)
	}
	for p := range out {
		out[p] = math.NaN()
		for _, v := range values {
			x := aggregate(r.Statistic, v, p*per, min((p+1)*per, minutes))
			switch {
			case math.IsNaN(x) && len(values) > 1 && !math.IsNaN(out[p]):
			case math.IsNaN(x):
			case math.IsNaN(out[p]):
				out[p] = x
			default:
				out[p] += x
			}
		}
	}
	return out
}

// aggregate reads v[from:to] by statistic; NaN when none of it has data.
func aggregate(statistic string, v []float64, from, to int) float64 {
	n, sum, top := 0, 0.0, math.Inf(-1)
	for i := from; i < to && i < len(v); i++ {
		if math.IsNaN(v[i]) {
			continue
		}
		n++
		sum += v[i]
		top = max(top, v[i])
	}
	if n == 0 {
		return math.NaN()
	}
	switch statistic {
	case "Sum":
		return sum
	case "Average":
		return sum / float64(n)
	case "SampleCount":
		return float64(n)
	default:
		return top
	}
}
