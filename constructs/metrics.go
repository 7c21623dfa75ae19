package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/alarms"
	"github.com/trainq/trainq/metrics"
)

// MetricDimensions narrow one of trainq's metrics (package metrics), which
// are all per queue, to a class, a team, an instance type, an error type or
// a reason. An empty field does not narrow. Each metric is emitted with some
// dimension sets only (metrics.Metric.DimensionSets).
type MetricDimensions struct {
	// Class is a priority class. Default: "" (every class).
	Class string
	// Team is a team (share). Default: "" (every team).
	Team string
	// InstanceType is a SageMaker instance type. Default: "" (every type).
	InstanceType string
	// ErrorType is a submission error type (contract.Kinds). Default: ""
	// (every error type).
	ErrorType string
	// Reason is a reason: the blocking reason of QueueBlocked, or why a move
	// was refused (ReroutesRefused: RerouteRefusalReasons). Default: ""
	// (every reason).
	Reason string
	// Fault is whose a failure was (JobsFailed): metrics.FaultPlatform or
	// FaultJob. Default: "" (either).
	Fault string
	// Quota is whether waiting jobs' teams have room for them
	// (RunnableJobs, OldestRunnableSeconds): metrics.QuotaRoom or
	// QuotaFull. Default: "" (either).
	Quota string
	// Budget is one of Team's budgets (BudgetUsedPercent,
	// BudgetForecastPercent), given with Team. Default: "" (none).
	Budget string
}

func (d *MetricDimensions) names() ([]string, map[string]string) {
	var names []string
	values := map[string]string{}
	if d == nil {
		return names, values
	}
	for _, kv := range [][2]string{{metrics.Class, d.Class}, {metrics.Team, d.Team}, {metrics.InstanceType, d.InstanceType}, {metrics.ErrorType, d.ErrorType}, {metrics.Reason, d.Reason}, {metrics.Fault, d.Fault}, {metrics.Quota, d.Quota}, {metrics.Budget, d.Budget}} {
		if kv[1] != "" {
			names = append(names, kv[0])
			values[kv[0]] = kv[1]
		}
	}
	return names, values
}

// MetricDefaults are the statistic and period a metric of trainq's gets
// unless the caller says otherwise: counts of events are summed, the
// poller's once-a-minute gauges are read at their maximum (utilization at
// its average) per minute, times are averaged over 5 minutes, and the
// budget pass's figures read at their maximum per 15 minutes (one figure
// in each).
func MetricDefaults(m metrics.Metric) (statistic string, period awscdk.Duration) {
	switch m.Name {
	case metrics.RunnableJobs.Name, metrics.OldestRunnableSeconds.Name, metrics.InstancesInUse.Name, metrics.BorrowedInstances.Name:
		return "Maximum", awscdk.Duration_Minutes(jsii.Number(1))
	case metrics.CapacityUtilization.Name:
		return "Average", awscdk.Duration_Minutes(jsii.Number(1))
	case metrics.JobsFailed.Name:
		return "Sum", awscdk.Duration_Minutes(jsii.Number(1))
	case metrics.BudgetUsedPercent.Name, metrics.BudgetForecastPercent.Name:
		return "Maximum", awscdk.Duration_Seconds(jsii.Number(alarms.BudgetPeriodSeconds))
	}
	if m.Unit == metrics.UnitCount {
		return "Sum", awscdk.Duration_Minutes(jsii.Number(5))
	}
	return "Average", awscdk.Duration_Minutes(jsii.Number(5))
}

// queueMetric is metric m of the queue named queueName, narrowed by dims,
// with opts applied over MetricDefaults (every MetricOptions field is
// honored; opts.DimensionsMap adds dimensions). Asking for a dimension set
// that m is not emitted with is a validation error on scope.
func queueMetric(scope constructs.Construct, queueName *string, m metrics.Metric, dims *MetricDimensions, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	names, values := dims.names()
	dm := map[string]*string{metrics.Queue: queueName}
	for k, v := range values {
		dm[k] = jsii.String(v)
	}
	o := awscloudwatch.MetricOptions{}
	if opts != nil {
		o = *opts
	}
	if o.DimensionsMap != nil {
		for k, v := range *o.DimensionsMap {
			if _, ok := dm[k]; !ok {
				names = append(names, k)
			}
			dm[k] = v
		}
	}
	if !m.HasDimensions(append([]string{metrics.Queue}, names...)...) {
		addError(scope, "trainq: metric %s is asked for by dimensions %v, with which it is not emitted; want one of %v", m.Name, append([]string{metrics.Queue}, names...), m.DimensionSets)
	}
	stat, period := MetricDefaults(m)
	if o.Statistic == nil {
		o.Statistic = jsii.String(stat)
	}
	if o.Period == nil {
		o.Period = period
	}
	o.DimensionsMap = &dm
	base := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(metrics.Namespace),
		MetricName:    jsii.String(m.Name),
		DimensionsMap: &dm,
	})
	return base.With(&o)
}

func (q *queueBase) Metric(m metrics.Metric, dims *MetricDimensions, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return queueMetric(q, q.self.JobQueueName(), m, dims, opts)
}

func (q *queueBase) MetricOldestRunnableSeconds(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return q.Metric(metrics.OldestRunnableSeconds, &MetricDimensions{Class: class}, opts)
}

func (q *queueBase) MetricRunnableJobs(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return q.Metric(metrics.RunnableJobs, &MetricDimensions{Class: class}, opts)
}

func (q *queueBase) MetricJobsFailed(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return q.Metric(metrics.JobsFailed, &MetricDimensions{Class: class}, opts)
}

func (q *queueBase) MetricWaitSeconds(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return q.Metric(metrics.WaitSeconds, &MetricDimensions{Class: class}, opts)
}

func (q *queueBase) MetricCapacityUtilization(instanceType string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return q.Metric(metrics.CapacityUtilization, &MetricDimensions{InstanceType: instanceType}, opts)
}

func (q *queueBase) MetricSubmissionErrors(errorType string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return q.Metric(metrics.SubmissionErrors, &MetricDimensions{ErrorType: errorType}, opts)
}

// statPeriod are metric options with a statistic, a period in seconds and
// optionally a label.
func statPeriod(statistic string, seconds int, label string) *awscloudwatch.MetricOptions {
	return &awscloudwatch.MetricOptions{Statistic: jsii.String(statistic), Period: period(seconds), Label: optString(label)}
}

func period(seconds int) awscdk.Duration { return awscdk.Duration_Seconds(jsii.Number(seconds)) }
