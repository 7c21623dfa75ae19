package constructs

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Alarm names: the keys of Monitor.Alarms. The CloudWatch alarm name is the
// platform name, a dash, and this name. This is the one place that names
// alarms.
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
)

// AlarmJobFailed names the alarm on any failed job of class.
func AlarmJobFailed(class string) string { return "job-failed-" + class }

// AlarmOldestWait names the alarm on the oldest waiting job of class.
func AlarmOldestWait(class string) string { return "oldest-wait-" + class }

// alarmSpec is one alarm: what it watches and when it fires.
type alarmSpec struct {
	name        string
	description string
	metric      awscloudwatch.IMetric
	threshold   float64
	comparison  awscloudwatch.ComparisonOperator
	periods     int
	// missing says how missing data counts; each alarm chooses deliberately.
	missing awscloudwatch.TreatMissingData
}

const minute = 60

func (m *monitor) alarm(s alarmSpec) {
	a := awscloudwatch.NewAlarm(m.Construct, jsii.String("Alarm-"+s.name), &awscloudwatch.AlarmProps{
		AlarmName:          jsii.String(alarmNamePrefix(m.p) + s.name),
		AlarmDescription:   jsii.String(s.description),
		Metric:             s.metric,
		Threshold:          jsii.Number(s.threshold),
		ComparisonOperator: s.comparison,
		EvaluationPeriods:  jsii.Number(s.periods),
		DatapointsToAlarm:  jsii.Number(s.periods),
		TreatMissingData:   s.missing,
	})
	action := awscloudwatchactions.NewSnsAction(m.topic)
	a.AddAlarmAction(action)
	a.AddOkAction(action)
	m.alarms[s.name] = a
	m.order = append(m.order, s.name)
}

func period(seconds int) awscdk.Duration { return awscdk.Duration_Seconds(jsii.Number(seconds)) }

// addAlarms creates every alarm of the platform.
func (m *monitor) addAlarms(sub Submitter) {
	mon := m.p.Monitoring
	ge := awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD
	notBreaching := awscloudwatch.TreatMissingData_NOT_BREACHING
	for _, class := range mon.FailureAlarmClasses {
		m.alarm(alarmSpec{
			name:        AlarmJobFailed(class),
			description: fmt.Sprintf("A %s job failed. Missing data: no job ended, not breaching.", class),
			metric:      m.Metric(metrics.JobsFailed, map[string]string{metrics.Class: class}, &awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: period(minute)}),
			threshold:   1, comparison: ge, periods: 1, missing: notBreaching,
		})
	}
	for _, class := range m.p.ClassNames() {
		limit := mon.MaxWaitSeconds[class]
		m.alarm(alarmSpec{
			name: AlarmOldestWait(class),
			description: fmt.Sprintf("The oldest waiting %s job has waited more than %d s. "+
				"Missing data: no %s job is waiting, not breaching.", class, limit, class),
			metric:    m.Metric(metrics.OldestRunnableSeconds, map[string]string{metrics.Class: class}, &awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: period(minute)}),
			threshold: float64(limit), comparison: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD, periods: 1, missing: notBreaching,
		})
	}
	idle := awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
		Expression: jsii.String(fmt.Sprintf("IF(runnable > 0 AND utilization < %d, 1, 0)", mon.UtilizationTargetPercent)),
		UsingMetrics: &map[string]awscloudwatch.IMetric{
			"utilization": m.Metric(metrics.CapacityUtilization, nil, &awscloudwatch.MetricOptions{Statistic: jsii.String("Average"), Period: period(minute)}),
			"runnable":    m.Metric(metrics.RunnableJobs, nil, &awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: period(minute)}),
		},
		Label:  jsii.String("idle capacity while jobs wait (1 = yes)"),
		Period: period(minute),
	})
	m.alarm(alarmSpec{
		name: AlarmIdleCapacity,
		description: fmt.Sprintf("Capacity utilization stayed below %d%% while jobs were runnable for %d minutes. "+
			"Missing data: the poller wrote nothing, not breaching (the poller-errors alarm covers a broken poller).",
			mon.UtilizationTargetPercent, mon.IdleAlarmSeconds/minute),
		metric:    idle,
		threshold: 1, comparison: ge, periods: mon.IdleAlarmSeconds / minute, missing: notBreaching,
	})
	fnAlarm := func(name, what string, metric awscloudwatch.IMetric) {
		m.alarm(alarmSpec{
			name:        name,
			description: what + " in the last 5 minutes. Missing data: no invocation, not breaching.",
			metric:      metric, threshold: 1, comparison: ge, periods: 1, missing: notBreaching,
		})
	}
	sum5 := &awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: period(5 * minute)}
	max5 := &awscloudwatch.MetricOptions{Statistic: jsii.String("Maximum"), Period: period(5 * minute)}
	if sub != nil {
		m.alarm(alarmSpec{
			name: AlarmSubmitterErrors,
			description: "Submissions failed on AWS's side (" + strings.Join(PagingSubmissionErrors(), ", ") + ") " +
				"in the last 5 minutes; callers' mistakes do not count. Missing data: no failed submission, not breaching.",
			metric:    m.submissionFailures(),
			threshold: 1, comparison: ge, periods: 1, missing: notBreaching,
		})
		fnAlarm(AlarmSubmitterThrottles, "Lambda throttled the submission function", sub.MetricThrottles(sum5))
		fnAlarm(AlarmSubmitterDeadLetters, "Asynchronous submissions failed every retry and wait in the dead-letter queue",
			sub.DeadLetterQueue().MetricApproximateNumberOfMessagesVisible(max5))
	}
	fnAlarm(AlarmObserverErrors, "The observer function failed", m.observer.MetricErrors(sum5))
	fnAlarm(AlarmObserverThrottles, "Lambda throttled the observer function", m.observer.MetricThrottles(sum5))
	fnAlarm(AlarmPollerErrors, "The poller function failed", m.poller.MetricErrors(sum5))
	fnAlarm(AlarmEventsRejected, "The observer could not read some Batch events (see its log for the reason)",
		m.Metric(metrics.EventsRejected, nil, sum5))
	fnAlarm(AlarmEventDeadLetters, "Batch events could not be delivered to the observer and wait in the dead-letter queue",
		m.dlq.MetricApproximateNumberOfMessagesVisible(max5))
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

// submissionFailures sums SubmissionErrors of the paging error types over 5
// minutes.
func (m *monitor) submissionFailures() awscloudwatch.IMetric {
	using := map[string]awscloudwatch.IMetric{}
	expr := ""
	kinds := PagingSubmissionErrors()
	for i, kind := range kinds {
		id := fmt.Sprintf("e%d", i)
		using[id] = m.Metric(metrics.SubmissionErrors, map[string]string{metrics.ErrorType: kind},
			&awscloudwatch.MetricOptions{Statistic: jsii.String("Sum"), Period: period(5 * minute)})
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

// alarmNamePrefix starts the name of every alarm of a platform; the alarm
// topic and its key allow exactly the alarms so named.
func alarmNamePrefix(p *platform.Platform) string { return p.Name + "-" }
