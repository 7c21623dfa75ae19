package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
)

// Dashboard layout: three widgets a row on CloudWatch's 24-column grid.
const (
	widgetWidth  = 8
	widgetHeight = 6
)

// newDashboard lays out the platform's dashboard: utilization, backlog and
// waits, job outcomes and borrowing, alarms, and the functions' health.
func (m *monitor) newDashboard(sub Submitter) awscloudwatch.Dashboard {
	avg := func(label string) *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Statistic: jsii.String("Average"), Period: period(5 * minute), Label: jsii.String(label)}
	}
	stat := func(s, label string) *awscloudwatch.MetricOptions {
		return &awscloudwatch.MetricOptions{Statistic: jsii.String(s), Period: period(5 * minute), Label: jsii.String(label)}
	}
	per := func(metric metrics.Metric, dim string, values []string, opts func(v string) *awscloudwatch.MetricOptions) []awscloudwatch.IMetric {
		out := make([]awscloudwatch.IMetric, len(values))
		for i, v := range values {
			out[i] = m.Metric(metric, map[string]string{dim: v}, opts(v))
		}
		return out
	}
	types, classes, teams := m.p.InstanceTypes(), m.p.ClassNames(), m.p.TeamNames()
	percent := &awscloudwatch.YAxisProps{Min: jsii.Number(0), Max: jsii.Number(100), Label: jsii.String("%"), ShowUnits: jsii.Bool(false)}
	graph := func(title string, left []awscloudwatch.IMetric, axis *awscloudwatch.YAxisProps) awscloudwatch.IWidget {
		return awscloudwatch.NewGraphWidget(&awscloudwatch.GraphWidgetProps{
			Title: jsii.String(title), Left: &left, LeftYAxis: axis,
			Width: jsii.Number(widgetWidth), Height: jsii.Number(widgetHeight),
		})
	}
	count := func(label string) *awscloudwatch.YAxisProps {
		return &awscloudwatch.YAxisProps{Min: jsii.Number(0), Label: jsii.String(label), ShowUnits: jsii.Bool(false)}
	}

	var waits []awscloudwatch.IMetric
	var outcomes []awscloudwatch.IMetric
	for _, c := range classes {
		dims := map[string]string{metrics.Class: c}
		waits = append(waits,
			m.Metric(metrics.WaitSeconds, dims, stat("p50", c+" p50")),
			m.Metric(metrics.WaitSeconds, dims, stat("p95", c+" p95")))
		outcomes = append(outcomes,
			m.Metric(metrics.JobsSubmitted, dims, stat("Sum", c+" submitted")),
			m.Metric(metrics.JobsStarted, dims, stat("Sum", c+" started")),
			m.Metric(metrics.JobsFailed, dims, stat("Sum", c+" failed")),
			m.Metric(metrics.JobsCancelled, dims, stat("Sum", c+" cancelled")),
			m.Metric(metrics.JobsPreempted, dims, stat("Sum", c+" preempted")))
	}
	alarms := make([]interfacesawscloudwatch.IAlarmRef, len(m.order))
	for i, name := range m.order {
		alarms[i] = m.alarms[name]
	}

	rows := [][]awscloudwatch.IWidget{
		{
			graph("Capacity utilization by instance type (%)",
				per(metrics.CapacityUtilization, metrics.InstanceType, types, avg), percent),
			graph("Capacity utilization by team, of its quota (%; above 100 when borrowing)",
				per(metrics.CapacityUtilization, metrics.Team, teams, avg), count("%")),
			graph("Instances in use by instance type (count)",
				per(metrics.InstancesInUse, metrics.InstanceType, types, avg), count("instances")),
		},
		{
			graph("Runnable jobs by class (count)",
				per(metrics.RunnableJobs, metrics.Class, classes, func(v string) *awscloudwatch.MetricOptions { return stat("Maximum", v) }), count("jobs")),
			graph("Oldest waiting job by class (seconds)",
				per(metrics.OldestRunnableSeconds, metrics.Class, classes, func(v string) *awscloudwatch.MetricOptions { return stat("Maximum", v) }), count("seconds")),
			graph("Wait from runnable to running, p50 and p95 by class (seconds)", waits, count("seconds")),
		},
		{
			graph("Jobs submitted, started, failed, cancelled and preempted by class (count per 5 min)", outcomes, count("jobs")),
			graph("Instances borrowed by team (count)",
				per(metrics.BorrowedInstances, metrics.Team, teams, func(v string) *awscloudwatch.MetricOptions { return stat("Maximum", v) }), count("instances")),
			awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
				Title: jsii.String("Alarms"), Alarms: &alarms,
				Width: jsii.Number(widgetWidth), Height: jsii.Number(widgetHeight),
			}),
		},
	}
	health := []awscloudwatch.IMetric{
		m.observer.MetricErrors(stat("Sum", "observer errors")),
		m.poller.MetricErrors(stat("Sum", "poller errors")),
		m.Metric(metrics.EventsRejected, nil, stat("Sum", "events rejected")),
	}
	if sub != nil {
		rows = append(rows, []awscloudwatch.IWidget{
			graph("Submission errors by errorType, Lambda throttles (count per 5 min)", append(
				per(metrics.SubmissionErrors, metrics.ErrorType, errorKinds(),
					func(v string) *awscloudwatch.MetricOptions { return stat("Sum", v) }),
				sub.MetricThrottles(stat("Sum", "Lambda throttles"))), count("requests")),
			graph("Submitter latency, p50 and p99 (milliseconds)", []awscloudwatch.IMetric{
				sub.MetricDuration(stat("p50", "p50")), sub.MetricDuration(stat("p99", "p99")),
			}, count("ms")),
			graph("Observer and poller health (count per 5 min)", health, count("count")),
		})
	} else {
		rows = append(rows, []awscloudwatch.IWidget{graph("Observer and poller health (count per 5 min)", health, count("count"))})
	}
	widgets := make([]*[]awscloudwatch.IWidget, len(rows))
	for i := range rows {
		widgets[i] = &rows[i]
	}
	return awscloudwatch.NewDashboard(m.Construct, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(m.p.Name),
		Widgets:       &widgets,
	})
}

// errorKinds are every errorType the submission function reports, so that a
// new kind reaches the dashboard by construction.
func errorKinds() []string {
	var out []string
	for _, k := range contract.Kinds() {
		out = append(out, string(k))
	}
	return out
}
