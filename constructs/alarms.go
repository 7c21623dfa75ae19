package constructs

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/alarms"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Alarm names: the keys of AlarmFactory.Alarms and Monitor.Alarms. The
// CloudWatch alarm name is the factory's AlarmNamePrefix followed by this
// name, and the construct id "Alarm-" followed by it (AlarmFactory.AddAlarm
// is the one place that names alarms). Each alarm's rule (severity,
// threshold, M of N, runbook section) is in package alarms.
const (
	AlarmIdleCapacity         = alarms.AlarmIdleCapacity
	AlarmSubmitterErrors      = alarms.AlarmSubmitterErrors
	AlarmSubmitterThrottles   = alarms.AlarmSubmitterThrottles
	AlarmSubmitterDeadLetters = alarms.AlarmSubmitterDeadLetters
	AlarmObserverErrors       = alarms.AlarmObserverErrors
	AlarmObserverThrottles    = alarms.AlarmObserverThrottles
	AlarmObserverHeartbeat    = alarms.AlarmObserverHeartbeat
	AlarmPollerErrors         = alarms.AlarmPollerErrors
	AlarmPollerThrottles      = alarms.AlarmPollerThrottles
	AlarmPollerHeartbeat      = alarms.AlarmPollerHeartbeat
	AlarmEventsRejected       = alarms.AlarmEventsRejected
	AlarmEventDeadLetters     = alarms.AlarmEventDeadLetters
	AlarmQueueBlocked         = alarms.AlarmQueueBlocked
	AlarmRerouterErrors       = alarms.AlarmRerouterErrors
	AlarmRerouterThrottles    = alarms.AlarmRerouterThrottles
	AlarmReroutesRefused      = alarms.AlarmReroutesRefused
	AlarmRerouteRanTwice      = alarms.AlarmRerouteRanTwice
)

// AlarmJobFailed names the alarm on failures of class the platform or AWS
// caused (capacity, preemption retries exhausted, internal errors, time
// limits).
func AlarmJobFailed(class string) string { return alarms.JobFailed(class) }

// AlarmJobCodeFailed names the alarm on failures of class's jobs' own
// code or request (SageMaker AlgorithmError, ClientError).
func AlarmJobCodeFailed(class string) string { return alarms.JobCodeFailed(class) }

// AlarmOldestWait names the alarm on the oldest job of class waiting with
// room in its team's quota.
func AlarmOldestWait(class string) string { return alarms.OldestWait(class) }

// AlarmQuotaFullWait names the alarm on the oldest job of class waiting on
// its team's full quota.
func AlarmQuotaFullWait(class string) string { return alarms.QuotaFullWait(class) }

// Severities of alarms: a page is for on-call now, a ticket for working
// hours.
const (
	SeverityPage   = platform.SeverityPage
	SeverityTicket = platform.SeverityTicket
)

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
// (kms:Decrypt, kms:GenerateDataKey*). For an AlarmTopic, use its Actions()
// instead: they also allow the alarm, by its ARN, to publish.
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
	// AlarmNamePrefix starts every alarm's name. Default: "trainq-".
	AlarmNamePrefix string
	// Actions is what every alarm does when it changes state, unless its
	// severity's own (PageActions, TicketActions) is set.
	// Default: NoAlarmActions().
	Actions IAlarmActionStrategy
	// PageActions is what alarms of severity page do. Default: Actions.
	PageActions IAlarmActionStrategy
	// TicketActions is what alarms of severity ticket do. Default: Actions.
	TicketActions IAlarmActionStrategy
	// RunbookURL is the runbooks page each alarm's description links (a
	// section per alarm). Default: platform.DefaultRunbookURL.
	RunbookURL string
}

// AlarmFactory creates alarms in one scope with one naming rule and one
// action strategy per severity, so that a fleet of alarms stays
// consistent. It is not a construct: its alarms are children of its scope.
type AlarmFactory struct {
	scope    constructs.Construct
	prefix   string
	actions  map[string]IAlarmActionStrategy
	runbooks string
	alarms   map[string]awscloudwatch.Alarm
	rules    map[string]alarms.Rule
	order    []string
}

// NewAlarmFactory returns a factory of alarms in scope.
func NewAlarmFactory(scope constructs.Construct, props *AlarmFactoryProps) *AlarmFactory {
	if props == nil {
		props = &AlarmFactoryProps{}
	}
	f := &AlarmFactory{scope: scope, prefix: props.AlarmNamePrefix, runbooks: props.RunbookURL,
		alarms: map[string]awscloudwatch.Alarm{}, rules: map[string]alarms.Rule{}}
	if f.prefix == "" {
		f.prefix = platform.DefaultName + "-"
	}
	if f.runbooks == "" {
		f.runbooks = platform.DefaultRunbookURL
	}
	both := props.Actions
	if both == nil {
		both = NoAlarmActions()
	}
	f.actions = map[string]IAlarmActionStrategy{SeverityPage: both, SeverityTicket: both}
	if props.PageActions != nil {
		f.actions[SeverityPage] = props.PageActions
	}
	if props.TicketActions != nil {
		f.actions[SeverityTicket] = props.TicketActions
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
	// Periods is how many periods are evaluated (EvaluationPeriods).
	// Default: 1.
	Periods int
	// DatapointsToAlarm is how many of the Periods must breach, 1 to
	// Periods. Default: Periods (all of them).
	DatapointsToAlarm int
	// TreatMissingData says how missing data counts. Default: NOT_BREACHING
	// (no data: nothing happened).
	TreatMissingData awscloudwatch.TreatMissingData
	// Severity chooses the actions: SeverityPage or SeverityTicket.
	// Default: SeverityPage.
	Severity string
}

// AddAlarm creates the alarm name (id "Alarm-"+name, CloudWatch name
// prefix+name) with the actions of its severity.
func (f *AlarmFactory) AddAlarm(name string, props *AlarmProps) awscloudwatch.Alarm {
	if a, dup := f.alarms[name]; dup {
		addError(f.scope, "trainq.AlarmFactory: alarm %q is added twice; want each alarm name once", name)
		return a
	}
	periods := props.Periods
	if periods < 1 {
		periods = 1
	}
	m := props.DatapointsToAlarm
	if m == 0 {
		m = periods
	}
	if m < 1 || m > periods {
		addError(f.scope, "trainq.AlarmFactory: alarm %q has DatapointsToAlarm %d; want 1 to Periods (%d)", name, m, periods)
		m = periods
	}
	severity := props.Severity
	if severity == "" {
		severity = SeverityPage
	}
	actions, ok := f.actions[severity]
	if !ok {
		addError(f.scope, "trainq.AlarmFactory: alarm %q has Severity %q; want %q or %q", name, severity, SeverityPage, SeverityTicket)
		actions = f.actions[SeverityPage]
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
		DatapointsToAlarm:  jsii.Number(m),
		TreatMissingData:   missing,
	})
	claimName(a, "CloudWatch alarm", f.AlarmName(name), "AlarmNamePrefix")
	actions.AddActions(a)
	f.alarms[name] = a
	f.order = append(f.order, name)
	return a
}

// AddRule creates the alarm of rule, watching metric (the rule's terms as a
// CloudWatch metric or expression), with the rule's description (linking
// its runbook section), severity, threshold and M of N.
func (f *AlarmFactory) AddRule(rule alarms.Rule, metric awscloudwatch.IMetric) awscloudwatch.Alarm {
	a := f.AddAlarm(rule.Name, &AlarmProps{
		Description:       rule.Description(f.runbooks),
		Metric:            metric,
		Threshold:         rule.Threshold,
		Comparison:        awscloudwatch.ComparisonOperator(comparisons[rule.Comparison]),
		Periods:           rule.EvaluationPeriods,
		DatapointsToAlarm: rule.DatapointsToAlarm,
		TreatMissingData:  awscloudwatch.TreatMissingData(missingData[rule.TreatMissing]),
		Severity:          rule.Severity,
	})
	f.rules[rule.Name] = rule
	return a
}

// comparisons and missingData are CloudWatch's names as the CDK spells
// them.
var (
	comparisons = map[alarms.Comparison]string{
		alarms.GreaterThanOrEqual: string(awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD),
		alarms.GreaterThan:        string(awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD),
		alarms.LessThan:           string(awscloudwatch.ComparisonOperator_LESS_THAN_THRESHOLD),
	}
	missingData = map[alarms.Missing]string{
		alarms.NotBreaching: string(awscloudwatch.TreatMissingData_NOT_BREACHING),
		alarms.Breaching:    string(awscloudwatch.TreatMissingData_BREACHING),
		alarms.Ignore:       string(awscloudwatch.TreatMissingData_IGNORE),
	}
)

// Rule is the rule of the alarm name, when AddRule created it.
func (f *AlarmFactory) Rule(name string) (alarms.Rule, bool) {
	r, ok := f.rules[name]
	return r, ok
}

// RunbookURL is the runbooks page the factory's alarms link.
func (f *AlarmFactory) RunbookURL() string { return f.runbooks }

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
	// FailedJobClasses are the classes whose failed jobs fire alarms.
	// Default: production, when there is such a class; an empty, non-nil
	// list means none.
	FailedJobClasses []string
	// PagingClasses are the classes whose failures the platform caused and
	// whose waits with room in the team's quota page; every other alarm is
	// a ticket. Default: production, when there is such a class; an empty,
	// non-nil list means none.
	PagingClasses []string
	// UtilizationTargetPercent is the capacity utilization below which idle
	// capacity while jobs wait fires the idle-capacity alarm, 1–100.
	// Default: 80.
	UtilizationTargetPercent int
	// IdleAlarmSeconds is how long utilization must stay below target while
	// jobs are runnable before the idle-capacity alarm fires, whole minutes,
	// 60–86400 (five sixths of its minutes must be idle). Default: 1800.
	IdleAlarmSeconds int
	// InstanceTypes are the types the idle-capacity alarm watches one by
	// one (a type idle while jobs wait for it), at most
	// alarms.MaxIdleTypes. Default: none; it watches the whole queue
	// (capacity idle while any job waits).
	InstanceTypes []string
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
		PagingClasses:            append([]string{}, mon.PagingClasses...),
		UtilizationTargetPercent: mon.UtilizationTargetPercent,
		IdleAlarmSeconds:         mon.IdleAlarmSeconds,
		InstanceTypes:            p.InstanceTypes(),
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
	for _, list := range []struct {
		field string
		value *[]string
	}{{"FailedJobClasses", &r.FailedJobClasses}, {"PagingClasses", &r.PagingClasses}} {
		if *list.value == nil {
			*list.value = []string{}
			if containsString(classes, "production") {
				*list.value = []string{"production"}
			}
		}
		for i, c := range *list.value {
			if !containsString(classes, c) {
				problems = append(problems, fmt.Sprintf("%s[%d] is %q, which is not a class (%s)", list.field, i, c, strings.Join(classes, ", ")))
			}
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

// AddQueueAlarms adds queue's alarms (alarms.QueueRules): failures of each
// of FailedJobClasses, the platform's (job-failed-<class>) and the jobs'
// own (job-code-failed-<class>); the oldest job of each class waiting with
// room in its team's quota (oldest-wait-<class>) and on its team's full
// quota (quota-full-wait-<class>); and an instance type idle while jobs
// wait for it (idle-capacity). classes are the platform's class names;
// thresholds nil means every default. Thresholds naming unknown classes are
// validation errors.
func (f *AlarmFactory) AddQueueAlarms(queue ITrainingQueue, classes []string, thresholds *QueueAlarmThresholds) {
	t, problems := thresholds.resolve(classes)
	for _, p := range problems {
		addError(f.scope, "trainq.QueueAlarmThresholds: %s", p)
	}
	rules := alarms.QueueRules(alarms.QueueThresholds{
		Classes: classes, FailedJobClasses: t.FailedJobClasses, PagingClasses: t.PagingClasses,
		MaxWaitSeconds: t.MaxWaitSeconds, UtilizationTargetPercent: t.UtilizationTargetPercent,
		IdleAlarmSeconds: t.IdleAlarmSeconds, InstanceTypes: t.InstanceTypes,
	})
	for _, rule := range rules {
		f.AddRule(rule, ruleMetric(queue, rule, nil))
	}
}

// ruleMetric is what rule watches as one CloudWatch metric: its one term;
// the sum of its terms, each FILL(…, 0); or its idle expression. resource
// gives the AWS metric of a term on a function or queue.
func ruleMetric(queue ITrainingQueue, rule alarms.Rule, resource func(alarms.Term, *awscloudwatch.MetricOptions) awscloudwatch.IMetric) awscloudwatch.IMetric {
	opts := func() *awscloudwatch.MetricOptions { return statPeriod(rule.Statistic, rule.PeriodSeconds, "") }
	term := func(t alarms.Term) awscloudwatch.IMetric {
		if t.Resource != "" {
			return resource(t, opts())
		}
		d := t.Dimensions
		return queue.Metric(t.Metric, &MetricDimensions{Class: d[metrics.Class], Team: d[metrics.Team], InstanceType: d[metrics.InstanceType],
			ErrorType: d[metrics.ErrorType], Reason: d[metrics.Reason], Fault: d[metrics.Fault], Quota: d[metrics.Quota], Budget: d[metrics.Budget]}, opts())
	}
	using := map[string]awscloudwatch.IMetric{}
	var parts []string
	switch {
	case len(rule.IdleTypes) > 0:
		for i, typ := range rule.IdleTypes {
			r, u := fmt.Sprintf("r%d", i), fmt.Sprintf("u%d", i)
			using[r] = queue.Metric(metrics.RunnableJobs, &MetricDimensions{InstanceType: typ}, statPeriod("Maximum", rule.PeriodSeconds, ""))
			using[u] = queue.Metric(metrics.CapacityUtilization, &MetricDimensions{InstanceType: typ}, statPeriod("Average", rule.PeriodSeconds, ""))
			parts = append(parts, fmt.Sprintf("IF(%s > 0 AND %s < %g, 1, 0)", r, u, rule.Target))
		}
		return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
			Expression: jsii.String(strings.Join(parts, " + ")), UsingMetrics: &using,
			Label:  jsii.String(fmt.Sprintf("instance types idle below %g%% while jobs wait for them", rule.Target)),
			Period: period(rule.PeriodSeconds),
		})
	case len(rule.Terms) == 1:
		return term(rule.Terms[0])
	}
	var labels []string
	for i, t := range rule.Terms {
		id := fmt.Sprintf("m%d", i)
		using[id] = term(t)
		parts = append(parts, "FILL("+id+", 0)")
		for _, v := range t.Dimensions {
			labels = append(labels, v)
		}
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(strings.Join(parts, " + ")), UsingMetrics: &using,
		Label:  jsii.String(rule.Name + " (" + strings.Join(labels, " + ") + ")"),
		Period: period(rule.PeriodSeconds),
	})
}

// AddBudgetAlarms adds p's budget alarms (alarms.BudgetRules): one per
// percent of each team's budget's alarms (default 80% and 100%, tickets),
// on the BudgetUsedPercent the poller's budget pass writes every 15
// minutes; a period without a figure keeps the alarm's state.
func (f *AlarmFactory) AddBudgetAlarms(queue ITrainingQueue, p *platform.Platform) {
	for _, rule := range alarms.BudgetRules(p) {
		f.AddRule(rule, ruleMetric(queue, rule, nil))
	}
}

// AddSubmitterAlarms adds the submission function's alarms
// (alarms.SubmitterRules): submissions that failed on AWS's side (the
// queue's SubmissionErrors of the paging error types) page; Lambda
// throttles and the dead-letter queue, when the submitter has one, are
// tickets.
func (f *AlarmFactory) AddSubmitterAlarms(queue ITrainingQueue, sub ISubmitter) {
	dlq := sub.DeadLetterQueue()
	for _, rule := range alarms.SubmitterRules(PagingSubmissionErrors(), dlq != nil) {
		f.AddRule(rule, ruleMetric(queue, rule, func(t alarms.Term, o *awscloudwatch.MetricOptions) awscloudwatch.IMetric {
			if t.Resource == alarms.SubmitterDLQ {
				return dlq.MetricApproximateNumberOfMessagesVisible(o)
			}
			return sub.MetricThrottles(o)
		}))
	}
}

// AddPipelineAlarms adds the monitoring pipeline's alarms
// (alarms.PipelineRules): the queue blocked and the heartbeats of the
// observer and the poller page; their errors and throttles, events the
// observer could not read and events that could not be delivered are
// tickets.
func (f *AlarmFactory) AddPipelineAlarms(p MonitoringPipeline) {
	for _, rule := range alarms.PipelineRules() {
		f.AddRule(rule, ruleMetric(p.Queue(), rule, func(t alarms.Term, o *awscloudwatch.MetricOptions) awscloudwatch.IMetric {
			fn := p.Observer()
			switch t.Resource {
			case alarms.EventDLQ:
				return p.DeadLetterQueue().MetricApproximateNumberOfMessagesVisible(o)
			case alarms.Poller:
				fn = p.Poller()
			}
			if t.AWSMetric == alarms.LambdaThrottles {
				return fn.MetricThrottles(o)
			}
			return fn.MetricErrors(o)
		}))
	}
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

// AddRerouterAlarms adds the re-router's alarms (alarms.RerouterRules): its
// errors (a run that failed or timed out: re-routing stopped for that
// run), its throttles when they last (runs skipped; reserved concurrency 1
// and a timeout shorter than the schedule leave none in normal operation,
// so a lasting throttle means the function's concurrency was changed, for
// example set to 0), and moves AWS Batch refused, all tickets; and a job
// that started on both types, which pages. Refusals by the platform's own
// bounds (RATE, MAX_MOVES) fire nothing: they show on the dashboard.
// thresholds nil means every default.
func (f *AlarmFactory) AddRerouterAlarms(r Rerouter, thresholds *RerouterAlarmThresholds) {
	t, problems := thresholds.resolve()
	for _, p := range problems {
		addError(f.scope, "trainq.RerouterAlarmThresholds: %s", p)
	}
	// Throttled in each of 3 periods of at least the schedule's, so that
	// one duplicate delivery of a scheduled event does not alarm.
	every := platform.DefaultRerouteEveryMinutes
	if p := r.Platform(); p != nil {
		every = p.Rerouting.EveryMinutes
	}
	rules := alarms.RerouterRules(PagingRefusalReasons(), t.RefusedMoves, t.RefusedWindowSeconds, max(5, every)*minute)
	for _, rule := range rules {
		f.AddRule(rule, rerouterMetric(r, rule))
	}
}

// rerouterMetric is what a re-router rule watches: the function's Lambda
// metrics or its ReroutesRefused by reason.
func rerouterMetric(r Rerouter, rule alarms.Rule) awscloudwatch.IMetric {
	opts := func() *awscloudwatch.MetricOptions { return statPeriod(rule.Statistic, rule.PeriodSeconds, "") }
	using := map[string]awscloudwatch.IMetric{}
	var parts, reasons []string
	for i, t := range rule.Terms {
		switch {
		case t.AWSMetric == alarms.LambdaErrors:
			return r.MetricErrors(opts())
		case t.AWSMetric == alarms.LambdaThrottles:
			return r.MetricThrottles(opts())
		case len(rule.Terms) == 1:
			return r.MetricReroutesRefused(t.Dimensions[metrics.Reason], opts())
		}
		id := fmt.Sprintf("r%d", i)
		using[id] = r.MetricReroutesRefused(t.Dimensions[metrics.Reason], opts())
		parts = append(parts, "FILL("+id+", 0)")
		reasons = append(reasons, t.Dimensions[metrics.Reason])
	}
	return awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression:   jsii.String(strings.Join(parts, " + ")),
		UsingMetrics: &using,
		Label:        jsii.String("moves AWS Batch refused (" + strings.Join(reasons, " + ") + ")"),
		Period:       period(rule.PeriodSeconds),
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

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
