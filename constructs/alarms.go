package constructs

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Alarm names: the keys of AlarmFactory.Alarms and Monitor.Alarms. The
// CloudWatch alarm name is the factory's AlarmNamePrefix followed by this
// name, and the construct id "Alarm-" followed by it (AlarmFactory.AddAlarm
// is the one place that names alarms).
const (
	AlarmIdleCapacity         = "idle-capacity"
	AlarmSubmitterErrors      = "submitter-errors"
	AlarmSubmitterThrottles   = "submitter-throttles"
	AlarmSubmitterDeadLetters = "submitter-dead-letters"
	AlarmObserverErrors       = "observer-errors"
	AlarmObserverThrottles    = "observer-throttles"
	AlarmPollerErrors         = "poller-errors"
	AlarmEventsRejected       = "events-rejected"
	AlarmEventDeadLetters     = "event-dead-letters"
	AlarmQueueBlocked         = "queue-blocked"
	AlarmRerouterErrors       = "rerouter-errors"
	AlarmRerouterThrottles    = "rerouter-throttles"
	AlarmReroutesRefused      = "reroutes-refused"
	AlarmRerouteRanTwice      = "reroute-ran-twice"
)

// AlarmJobFailed names the alarm on any failed job of class.
func AlarmJobFailed(class string) string { return "job-failed-" + class }

// AlarmOldestWait names the alarm on the oldest waiting job of class.
func AlarmOldestWait(class string) string { return "oldest-wait-" + class }

// IAlarmActionStrategy decides what an alarm does when it changes state:
// notify trainq's topic (NewAlarmTopic), yours (NotifyTopic), or nothing
// (NoAlarmActions).
type IAlarmActionStrategy interface {
	// AddActions adds the strategy's actions to alarm.
	AddActions(alarm awscloudwatch.Alarm)
}

type notifyTopic struct{ topic awssns.ITopic }

// NotifyTopic notifies topic when an alarm fires and when it clears. The
// topic's policy must let cloudwatch.amazonaws.com publish (sns:Publish)
// and, when it is encrypted, its key must let CloudWatch use it
// (kms:Decrypt, kms:GenerateDataKey*); NewAlarmTopic's does.
func NotifyTopic(topic awssns.ITopic) IAlarmActionStrategy { return notifyTopic{topic} }

func (n notifyTopic) AddActions(alarm awscloudwatch.Alarm) {
	action := awscloudwatchactions.NewSnsAction(n.topic)
	alarm.AddAlarmAction(action)
	alarm.AddOkAction(action)
}

type noActions struct{}

// NoAlarmActions leaves alarms without actions, for alarms that only show
// on a dashboard or feed a composite alarm.
func NoAlarmActions() IAlarmActionStrategy { return noActions{} }

func (noActions) AddActions(awscloudwatch.Alarm) {}

// AlarmFactoryProps configure an AlarmFactory.
type AlarmFactoryProps struct {
	// AlarmNamePrefix starts every alarm's name. NewAlarmTopic allows
	// exactly the alarms whose names start with its prefix to publish.
	// Default: "trainq-".
	AlarmNamePrefix string
	// Actions is what every alarm does when it changes state.
	// Default: NoAlarmActions().
	Actions IAlarmActionStrategy
}

// AlarmFactory creates alarms in one scope with one naming rule and one
// action strategy, so that a fleet of alarms stays consistent. It is not a
// construct: its alarms are children of its scope.
type AlarmFactory struct {
	scope   constructs.Construct
	prefix  string
	actions IAlarmActionStrategy
	alarms  map[string]awscloudwatch.Alarm
	order   []string
}

// NewAlarmFactory returns a factory of alarms in scope.
func NewAlarmFactory(scope constructs.Construct, props *AlarmFactoryProps) *AlarmFactory {
	if props == nil {
		props = &AlarmFactoryProps{}
	}
	f := &AlarmFactory{scope: scope, prefix: props.AlarmNamePrefix, actions: props.Actions, alarms: map[string]awscloudwatch.Alarm{}}
	if f.prefix == "" {
		f.prefix = platform.DefaultName + "-"
	}
	if f.actions == nil {
		f.actions = NoAlarmActions()
	}
	return f
}

// AlarmProps say what one alarm watches and when it fires.
type AlarmProps struct {
	// Description says what firing means and how missing data counts.
	// Required.
	Description string
	// Metric is what the alarm watches. Required.
	Metric awscloudwatch.IMetric
	// Threshold is the value compared with the metric. Required.
	Threshold float64
	// Comparison compares metric and threshold.
	// Default: GREATER_THAN_OR_EQUAL_TO_THRESHOLD.
	Comparison awscloudwatch.ComparisonOperator
	// Periods is how many consecutive breaching periods fire the alarm.
	// Default: 1.
	Periods int
	// TreatMissingData says how missing data counts. Default: NOT_BREACHING
	// (no data: nothing happened).
	TreatMissingData awscloudwatch.TreatMissingData
}

// AddAlarm creates the alarm name (id "Alarm-"+name, CloudWatch name
// prefix+name) with the factory's actions.
func (f *AlarmFactory) AddAlarm(name string, props *AlarmProps) awscloudwatch.Alarm {
	if a, dup := f.alarms[name]; dup {
		addError(f.scope, "trainq.AlarmFactory: alarm %q is added twice; want each alarm name once", name)
		return a
	}
	periods := props.Periods
	if periods < 1 {
		periods = 1
	}
	cmp := props.Comparison
	if cmp == "" {
		cmp = awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD
	}
	missing := props.TreatMissingData
	if missing == "" {
		missing = awscloudwatch.TreatMissingData_NOT_BREACHING
	}
	a := awscloudwatch.NewAlarm(f.scope, jsii.String("Alarm-"+name), &awscloudwatch.AlarmProps{
		AlarmName:          jsii.String(f.AlarmName(name)),
		AlarmDescription:   jsii.String(props.Description),
		Metric:             props.Metric,
		Threshold:          jsii.Number(props.Threshold),
		ComparisonOperator: cmp,
		EvaluationPeriods:  jsii.Number(periods),
		DatapointsToAlarm:  jsii.Number(periods),
		TreatMissingData:   missing,
	})
	claimName(a, "CloudWatch alarm", f.AlarmName(name), "AlarmNamePrefix")
	f.actions.AddActions(a)
	f.alarms[name] = a
	f.order = append(f.order, name)
	return a
}

// AlarmName is the CloudWatch name of the alarm name.
func (f *AlarmFactory) AlarmName(name string) string { return f.prefix + name }

// AlarmNamePrefix starts every alarm name of the factory.
func (f *AlarmFactory) AlarmNamePrefix() string { return f.prefix }

// Alarms are the factory's alarms by name.
func (f *AlarmFactory) Alarms() map[string]awscloudwatch.Alarm {
	out := make(map[string]awscloudwatch.Alarm, len(f.alarms))
	for k, v := range f.alarms {
		out[k] = v
	}
	return out
}

// Ordered are the factory's alarms in the order they were added.
func (f *AlarmFactory) Ordered() []awscloudwatch.Alarm {
	out := make([]awscloudwatch.Alarm, len(f.order))
	for i, n := range f.order {
		out[i] = f.alarms[n]
	}
	return out
}

const minute = 60

// QueueAlarmThresholds are when a queue's alarms fire.
type QueueAlarmThresholds struct {
	// MaxWaitSeconds is, per class, how long the oldest runnable job may wait
	// before that class's oldest-wait alarm. Default: production 900,
	// research 7200, sweep 43200, any other class 3600.
	MaxWaitSeconds map[string]int
	// FailedJobClasses are the classes whose every failed job fires an
	// alarm. Default: production, when there is such a class; an empty,
	// non-nil list means none.
	FailedJobClasses []string
	// UtilizationTargetPercent is the capacity utilization below which idle
	// capacity while jobs wait fires the idle-capacity alarm, 1–100.
	// Default: 80.
	UtilizationTargetPercent int
	// IdleAlarmSeconds is how long utilization must stay below target while
	// jobs are runnable before the idle-capacity alarm fires, whole minutes,
	// 60–86400. Default: 1800.
	IdleAlarmSeconds int
}

// QueueAlarmThresholdsFromPlatform are p's thresholds.
func QueueAlarmThresholdsFromPlatform(p *platform.Platform) *QueueAlarmThresholds {
	mon := p.Monitoring
	waits := map[string]int{}
	for k, v := range mon.MaxWaitSeconds {
		waits[k] = v
	}
	return &QueueAlarmThresholds{
		MaxWaitSeconds:           waits,
		FailedJobClasses:         append([]string{}, mon.FailureAlarmClasses...),
		UtilizationTargetPercent: mon.UtilizationTargetPercent,
		IdleAlarmSeconds:         mon.IdleAlarmSeconds,
	}
}

// resolve applies the defaults for classes and checks the thresholds.
func (t *QueueAlarmThresholds) resolve(classes []string) (QueueAlarmThresholds, []string) {
	var r QueueAlarmThresholds
	if t != nil {
		r = *t
	}
	var problems []string
	waits := map[string]int{}
	for _, c := range classes {
		p := platform.Platform{Classes: []platform.Class{{Name: c}}, Monitoring: platform.Monitoring{MaxWaitSeconds: map[string]int{}}}
		p.ApplyDefaults()
		waits[c] = p.Monitoring.MaxWaitSeconds[c]
	}
	for c, v := range r.MaxWaitSeconds {
		if !containsString(classes, c) {
			problems = append(problems, fmt.Sprintf("MaxWaitSeconds has class %q, which is not a class (%s)", c, strings.Join(classes, ", ")))
		}
		if v < 1 {
			problems = append(problems, fmt.Sprintf("MaxWaitSeconds[%q] is %d; want at least 1", c, v))
		}
		waits[c] = v
	}
	r.MaxWaitSeconds = waits
	if r.FailedJobClasses == nil {
		r.FailedJobClasses = []string{}
		if containsString(classes, "production") {
			r.FailedJobClasses = []string{"production"}
		}
	}
	for i, c := range r.FailedJobClasses {
		if !containsString(classes, c) {
			problems = append(problems, fmt.Sprintf("FailedJobClasses[%d] is %q, which is not a class (%s)", i, c, strings.Join(classes, ", ")))
		}
	}
	if r.UtilizationTargetPercent == 0 {
		r.UtilizationTargetPercent = platform.DefaultUtilizationTargetPercent
	}
	if r.UtilizationTargetPercent < 1 || r.UtilizationTargetPercent > 100 {
		problems = append(problems, fmt.Sprintf("UtilizationTargetPercent is %d; want 1 to 100", r.UtilizationTargetPercent))
	}
	if r.IdleAlarmSeconds == 0 {
		r.IdleAlarmSeconds = platform.DefaultIdleAlarmSeconds
	}
	if r.IdleAlarmSeconds < minute || r.IdleAlarmSeconds > 86400 || r.IdleAlarmSeconds%minute != 0 {
		problems = append(problems, fmt.Sprintf("IdleAlarmSeconds is %d; want whole minutes from 60 to 86400", r.IdleAlarmSeconds))
	}
	return r, problems
}

// AddQueueAlarms adds queue's alarms: a failed job of each of
// FailedJobClasses, the oldest waiting job of each class, and idle capacity
// while jobs wait. classes are the platform's class names; thresholds nil
// means every default. Thresholds naming unknown classes are validation
// errors.
func (f *AlarmFactory) AddQueueAlarms(queue ITrainingQueue, classes []string, thresholds *QueueAlarmThresholds) {
	t, problems := thresholds.resolve(classes)
	for _, p := range problems {
		addError(f.scope, "trainq.QueueAlarmThresholds: %s", p)
	}
	for _, class := range t.FailedJobClasses {
		f.AddAlarm(AlarmJobFailed(class), &AlarmProps{
			Description: fmt.Sprintf("A %s job failed. Missing data: no job ended, not breaching.", class),
			Metric:      queue.MetricJobsFailed(class, statPeriod("Sum", minute, "")),
			Threshold:   1,
		})
	}
	for _, class := range classes {
		limit := t.MaxWaitSeconds[class]
		f.AddAlarm(AlarmOldestWait(class), &AlarmProps{
			Description: fmt.Sprintf("The oldest waiting %s job has waited more than %d s. "+
				"Missing data: no %s job is waiting, not breaching.", class, limit, class),
			Metric:     queue.MetricOldestRunnableSeconds(class, statPeriod("Maximum", minute, "")),
			Threshold:  float64(limit),
			Comparison: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
		})
	}
	idle := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf("IF(runnable > 0 AND utilization < %d, 1, 0)", t.UtilizationTargetPercent)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"utilization": queue.MetricCapacityUtilization("", statPeriod("Average", minute, "")),
			"runnable":    queue.MetricRunnableJobs("", statPeriod("Maximum", minute, "")),
		},
		Label:  jsii.String("idle capacity while jobs wait (1 = yes)"),
		Period: period(minute),
	})
	f.AddAlarm(AlarmIdleCapacity, &AlarmProps{
		Description: fmt.Sprintf("Capacity utilization stayed below %d%% while jobs were runnable for %d minutes. "+
			"Missing data: the poller wrote nothing, not breaching (the poller-errors alarm covers a broken poller).",
			t.UtilizationTargetPercent, t.IdleAlarmSeconds/minute),
		Metric:    idle,
		Threshold: 1,
		Periods:   t.IdleAlarmSeconds / minute,
	})
}

// AddSubmitterAlarms adds the submission function's alarms: submissions
// that failed on AWS's side (the queue's SubmissionErrors of the paging
// error types), Lambda throttles, and the dead-letter queue when the
// submitter has one.
func (f *AlarmFactory) AddSubmitterAlarms(queue ITrainingQueue, sub ISubmitter) {
	f.AddAlarm(AlarmSubmitterErrors, &AlarmProps{
		Description: "Submissions failed on AWS's side (" + strings.Join(PagingSubmissionErrors(), ", ") + ") " +
			"in the last 5 minutes; callers' mistakes do not count. Missing data: no failed submission, not breaching.",
		Metric:    submissionFailures(queue),
		Threshold: 1,
	})
	f.fnAlarm(AlarmSubmitterThrottles, "Lambda throttled the submission function", sub.MetricThrottles(statPeriod("Sum", 5*minute, "")))
	if dlq := sub.DeadLetterQueue(); dlq != nil {
		f.fnAlarm(AlarmSubmitterDeadLetters, "Asynchronous submissions failed every retry and wait in the dead-letter queue",
			dlq.MetricApproximateNumberOfMessagesVisible(statPeriod("Maximum", 5*minute, "")))
	}
}

// AddPipelineAlarms adds the monitoring pipeline's alarms: its functions'
// errors and throttles, events the observer could not read, and events that
// could not be delivered.
func (f *AlarmFactory) AddPipelineAlarms(p MonitoringPipeline) {
	sum5 := statPeriod("Sum", 5*minute, "")
	f.fnAlarm(AlarmObserverErrors, "The observer function failed", p.Observer().MetricErrors(sum5))
	f.fnAlarm(AlarmObserverThrottles, "Lambda throttled the observer function", p.Observer().MetricThrottles(sum5))
	f.fnAlarm(AlarmPollerErrors, "The poller function failed", p.Poller().MetricErrors(sum5))
	f.fnAlarm(AlarmEventsRejected, "The observer could not read some Batch events (see its log for the reason)",
		p.Queue().Metric(metrics.EventsRejected, nil, sum5))
	f.fnAlarm(AlarmEventDeadLetters, "Batch events could not be delivered to the observer and wait in the dead-letter queue",
		p.DeadLetterQueue().MetricApproximateNumberOfMessagesVisible(statPeriod("Maximum", 5*minute, "")))
	// AWS Batch sends "Batch Service Job Queue Blocked" when the job at the
	// head of the queue cannot run and every job behind it waits: an outage
	// of the platform. The metric exists only when such an event arrives,
	// so missing data means nothing is blocked.
	f.AddAlarm(AlarmQueueBlocked, &AlarmProps{
		Description: "AWS Batch reported the queue blocked by the job at its head (Batch Service Job Queue Blocked) in the last 5 minutes; " +
			"the observer's log names the job and the reason. Missing data: no such event, not breaching.",
		Metric:    p.Queue().Metric(metrics.QueueBlocked, nil, sum5),
		Threshold: 1,
	})
}

// RerouterAlarmThresholds are when the re-router's alarms fire.
type RerouterAlarmThresholds struct {
	// RefusedMoves is how many moves AWS Batch refused (ReroutesRefused of
	// reasons SUBMIT and TERMINATE, PagingRefusalReasons) within
	// RefusedWindowSeconds fire the reroutes-refused alarm, at least 1. One
	// or two are a passing throttle that the next run retries; a lasting
	// refusal repeats every run. Default: 3.
	RefusedMoves int
	// RefusedWindowSeconds is the window of RefusedMoves, whole minutes from
	// 300 to 86400. Default: 900.
	RefusedWindowSeconds int
}

// Defaults of RerouterAlarmThresholds.
const (
	DefaultRefusedMoves         = 3
	DefaultRefusedWindowSeconds = 900
)

func (t *RerouterAlarmThresholds) resolve() (RerouterAlarmThresholds, []string) {
	var r RerouterAlarmThresholds
	if t != nil {
		r = *t
	}
	var problems []string
	if r.RefusedMoves == 0 {
		r.RefusedMoves = DefaultRefusedMoves
	}
	if r.RefusedMoves < 1 {
		problems = append(problems, fmt.Sprintf("RefusedMoves is %d; want at least 1", r.RefusedMoves))
	}
	if r.RefusedWindowSeconds == 0 {
		r.RefusedWindowSeconds = DefaultRefusedWindowSeconds
	}
	if r.RefusedWindowSeconds < 5*minute || r.RefusedWindowSeconds > 86400 || r.RefusedWindowSeconds%minute != 0 {
		problems = append(problems, fmt.Sprintf("RefusedWindowSeconds is %d; want whole minutes from 300 to 86400", r.RefusedWindowSeconds))
	}
	return r, problems
}

// AddRerouterAlarms adds the re-router's alarms: its errors (a run that
// failed or timed out: re-routing stopped for that run), its throttles when
// they last (runs skipped; reserved concurrency 1 and a timeout shorter
// than the schedule leave none in normal operation, so a lasting throttle
// means the function's concurrency was changed, for example set to 0), and
// moves AWS Batch refused. Refusals by the platform's own bounds (RATE,
// MAX_MOVES) do not page: they show on the dashboard. thresholds nil means
// every default.
func (f *AlarmFactory) AddRerouterAlarms(r Rerouter, thresholds *RerouterAlarmThresholds) {
	t, problems := thresholds.resolve()
	for _, p := range problems {
		addError(f.scope, "trainq.RerouterAlarmThresholds: %s", p)
	}
	f.fnAlarm(AlarmRerouterErrors, "The re-router function failed (an error or a timeout)", r.MetricErrors(statPeriod("Sum", 5*minute, "")))
	// Throttled in each of 3 periods of at least the schedule's, so that
	// one duplicate delivery of a scheduled event does not page.
	every := platform.DefaultRerouteEveryMinutes
	if p := r.Platform(); p != nil {
		every = p.Rerouting.EveryMinutes
	}
	throttlePeriod := max(5, every) * minute
	f.AddAlarm(AlarmRerouterThrottles, &AlarmProps{
		Description: fmt.Sprintf("Lambda throttled the re-router in each of 3 consecutive %d-minute periods: its runs are skipped "+
			"(its reserved concurrency is 1 and its runs never overlap, so look for a changed concurrency). "+
			"Missing data: no invocation, not breaching.", throttlePeriod/minute),
		Metric:    r.MetricThrottles(statPeriod("Sum", throttlePeriod, "")),
		Threshold: 1,
		Periods:   3,
	})
	reasons := PagingRefusalReasons()
	using := map[string]awscloudwatch.IMetric{}
	expr := ""
	for i, reason := range reasons {
		id := fmt.Sprintf("r%d", i)
		using[id] = r.MetricReroutesRefused(reason, statPeriod("Sum", t.RefusedWindowSeconds, ""))
		if expr != "" {
			expr += " + "
		}
		expr += "FILL(" + id + ", 0)"
	}
	f.AddAlarm(AlarmReroutesRefused, &AlarmProps{
		Description: fmt.Sprintf("AWS Batch refused %d or more of the re-router's moves (%s) in %d minutes; "+
			"the re-router's log says which job and why. Moves stopped by the platform's own bounds (%s, %s) do not count. "+
			"Missing data: no refused move, not breaching.", t.RefusedMoves, strings.Join(reasons, ", "), t.RefusedWindowSeconds/minute, metrics.RefusedRate, metrics.RefusedMaxMoves),
		Metric: awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression:   jsii.String(expr),
			UsingMetrics: &using,
			Label:        jsii.String("moves AWS Batch refused (" + strings.Join(reasons, " + ") + ")"),
			Period:       period(t.RefusedWindowSeconds),
		}),
		Threshold: float64(t.RefusedMoves),
	})
	f.AddAlarm(AlarmRerouteRanTwice, &AlarmProps{
		Description: "A job the re-router was moving started on both instance types before either could be terminated " +
			"(ReroutesRefused, reason " + metrics.RefusedBothStarted + "): the training job runs twice until someone cancels one; " +
			"the re-router's log names both jobs. Missing data: none happened, not breaching.",
		Metric:    r.MetricReroutesRefused(metrics.RefusedBothStarted, statPeriod("Sum", 5*minute, "")),
		Threshold: 1,
	})
}

func (f *AlarmFactory) fnAlarm(name, what string, metric awscloudwatch.IMetric) {
	f.AddAlarm(name, &AlarmProps{
		Description: what + " in the last 5 minutes. Missing data: no invocation, not breaching.",
		Metric:      metric,
		Threshold:   1,
	})
}

// PagingSubmissionErrors are the submission errorTypes that page on-call:
// every kind of contract.Kinds that is not a caller's mistake.
func PagingSubmissionErrors() []string {
	var out []string
	for _, k := range contract.Kinds() {
		if !k.CallersMistake() {
			out = append(out, string(k))
		}
	}
	return out
}

// submissionFailures sums the queue's SubmissionErrors of the paging error
// types over 5 minutes.
func submissionFailures(queue ITrainingQueue) awscloudwatch.IMetric {
	using := map[string]awscloudwatch.IMetric{}
	expr := ""
	kinds := PagingSubmissionErrors()
	for i, kind := range kinds {
		id := fmt.Sprintf("e%d", i)
		using[id] = queue.MetricSubmissionErrors(kind, statPeriod("Sum", 5*minute, ""))
		if expr != "" {
			expr += " + "
		}
		expr += "FILL(" + id + ", 0)"
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(expr),
		UsingMetrics: &using,
		Label:        jsii.String("failed submissions (" + strings.Join(kinds, " + ") + ")"),
		Period:       period(5 * minute),
	})
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
