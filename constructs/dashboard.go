package constructs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// Widgets are laid out three a row on CloudWatch's 24-column grid.
const (
	WidgetWidth  = 8
	WidgetHeight = 6
)

// WidgetProps say what the widgets break a queue's metrics down by.
type WidgetProps struct {
	// Classes are the class names. Default: none (no per-class lines).
	Classes []string
	// Teams are the team names. Default: none (no per-team lines).
	Teams []string
	// InstanceTypes are the instance types. Default: none (no per-type
	// lines).
	InstanceTypes []string
	// MaxWaitSeconds are the wait alarms' thresholds per class, drawn on
	// the oldest-wait graph. Default: none drawn.
	MaxWaitSeconds map[string]int
	// UtilizationTargetPercent is the idle-capacity alarm's target, drawn
	// on the utilization graph. Default: none drawn.
	UtilizationTargetPercent int
}

// WidgetPropsFromPlatform break metrics down by p's classes, teams and
// instance types, with p's alarm thresholds.
func WidgetPropsFromPlatform(p *platform.Platform) *WidgetProps {
	return &WidgetProps{Classes: p.ClassNames(), Teams: p.TeamNames(), InstanceTypes: p.InstanceTypes(),
		MaxWaitSeconds: p.Monitoring.MaxWaitSeconds, UtilizationTargetPercent: p.Monitoring.UtilizationTargetPercent}
}

func stat5(statistic, label string) *awscloudwatch.MetricOptions {
	return statPeriod(statistic, 5*minute, label)
}

func graph(title string, left []awscloudwatch.IMetric, axis *awscloudwatch.YAxisProps) awscloudwatch.IWidget {
	return annotated(title, left, axis, nil)
}

// annotated is a graph with horizontal lines: the thresholds of the alarms
// on its metrics.
func annotated(title string, left []awscloudwatch.IMetric, axis *awscloudwatch.YAxisProps, lines []*awscloudwatch.HorizontalAnnotation) awscloudwatch.IWidget {
	props := &awscloudwatch.GraphWidgetProps{
		Title: jsii.String(title), Left: &left, LeftYAxis: axis,
		Width: jsii.Number(WidgetWidth), Height: jsii.Number(WidgetHeight),
	}
	if len(lines) > 0 {
		props.LeftAnnotations = &lines
	}
	return awscloudwatch.NewGraphWidget(props)
}

// threshold is an alarm threshold line.
func threshold(value float64, label string) *awscloudwatch.HorizontalAnnotation {
	return &awscloudwatch.HorizontalAnnotation{Value: jsii.Number(value), Label: jsii.String(label)}
}

func countAxis(label string) *awscloudwatch.YAxisProps {
	return &awscloudwatch.YAxisProps{Min: jsii.Number(0), Label: jsii.String(label), ShowUnits: jsii.Bool(false)}
}

// per is metric m of queue once per value of a dimension.
func per(queue ITrainingQueue, m metrics.Metric, dims func(v string) *MetricDimensions, values []string, statistic string) []awscloudwatch.IMetric {
	out := make([]awscloudwatch.IMetric, len(values))
	for i, v := range values {
		out[i] = queue.Metric(m, dims(v), stat5(statistic, v))
	}
	return out
}

func byType(v string) *MetricDimensions  { return &MetricDimensions{InstanceType: v} }
func byTeam(v string) *MetricDimensions  { return &MetricDimensions{Team: v} }
func byClass(v string) *MetricDimensions { return &MetricDimensions{Class: v} }

func widgetProps(props *WidgetProps) *WidgetProps {
	if props == nil {
		return &WidgetProps{}
	}
	return props
}

// CapacityWidgets are a row of the queue's capacity: utilization by instance
// type (with the idle-capacity alarm's target) and by team (of its quota),
// and instances in use by type.
func CapacityWidgets(queue ITrainingQueue, props *WidgetProps) []awscloudwatch.IWidget {
	w := widgetProps(props)
	percent := &awscloudwatch.YAxisProps{Min: jsii.Number(0), Max: jsii.Number(100), Label: jsii.String("%"), ShowUnits: jsii.Bool(false)}
	var target []*awscloudwatch.HorizontalAnnotation
	if w.UtilizationTargetPercent > 0 {
		target = append(target, threshold(float64(w.UtilizationTargetPercent), "idle-capacity target"))
	}
	return []awscloudwatch.IWidget{
		annotated("Capacity utilization by instance type (%)",
			per(queue, metrics.CapacityUtilization, byType, w.InstanceTypes, "Average"), percent, target),
		graph("Capacity utilization by team, of its quota (%; above 100 when borrowing)",
			per(queue, metrics.CapacityUtilization, byTeam, w.Teams, "Average"), countAxis("%")),
		graph("Instances in use by instance type (count)",
			per(queue, metrics.InstancesInUse, byType, w.InstanceTypes, "Average"), countAxis("instances")),
	}
}

// BacklogWidgets are a row of the queue's backlog: runnable jobs and the
// oldest wait by class (with each class's wait threshold), and the wait
// from runnable to running (p50, p95).
func BacklogWidgets(queue ITrainingQueue, props *WidgetProps) []awscloudwatch.IWidget {
	w := widgetProps(props)
	var waits []awscloudwatch.IMetric
	for _, c := range w.Classes {
		waits = append(waits,
			queue.MetricWaitSeconds(c, stat5("p50", c+" p50")),
			queue.MetricWaitSeconds(c, stat5("p95", c+" p95")))
	}
	var lines []*awscloudwatch.HorizontalAnnotation
	for _, c := range w.Classes {
		if v, ok := w.MaxWaitSeconds[c]; ok {
			lines = append(lines, threshold(float64(v), "oldest-wait-"+c))
		}
	}
	return []awscloudwatch.IWidget{
		graph("Runnable jobs by class (count)", per(queue, metrics.RunnableJobs, byClass, w.Classes, "Maximum"), countAxis("jobs")),
		annotated("Oldest waiting job by class (seconds)", per(queue, metrics.OldestRunnableSeconds, byClass, w.Classes, "Maximum"), countAxis("seconds"), lines),
		graph("Wait from runnable to running, p50 and p95 by class (seconds)", waits, countAxis("seconds")),
	}
}

// WhoWaitsWidgets are a row that answers who waits and why: runnable jobs
// and the oldest wait by team, and the oldest wait by class split by room
// in the team's quota (ROOM: the platform's to explain, the line the
// paging alarm reads; FULL: the team's own quota is full), with each
// class's threshold.
func WhoWaitsWidgets(queue ITrainingQueue, props *WidgetProps) []awscloudwatch.IWidget {
	w := widgetProps(props)
	var split []awscloudwatch.IMetric
	var lines []*awscloudwatch.HorizontalAnnotation
	for _, c := range w.Classes {
		for _, q := range []string{metrics.QuotaRoom, metrics.QuotaFull} {
			split = append(split, queue.Metric(metrics.OldestRunnableSeconds, &MetricDimensions{Class: c, Quota: q}, stat5("Maximum", c+" "+q)))
		}
		if v, ok := w.MaxWaitSeconds[c]; ok {
			lines = append(lines, threshold(float64(v), c))
		}
	}
	return []awscloudwatch.IWidget{
		graph("Runnable jobs by team (count)", per(queue, metrics.RunnableJobs, byTeam, w.Teams, "Maximum"), countAxis("jobs")),
		graph("Oldest waiting job by team (seconds)", per(queue, metrics.OldestRunnableSeconds, byTeam, w.Teams, "Maximum"), countAxis("seconds")),
		annotated("Oldest wait by class: with room in the team's quota (ROOM, pages) or on a full quota (FULL, tickets) (seconds)", split, countAxis("seconds"), lines),
	}
}

// daySeconds is a day, the period of the usage widgets.
const daySeconds = 24 * 60 * minute

// UsageWidgets are a row of each team's usage: instance-hours per day by
// team, all instance types together, and of them those on borrowed
// capacity (quota mode). The poller writes InstancesInUse{Queue,Team} and
// BorrowedInstances{Queue,Team} once a minute, so a day's Sum of the
// samples is instance-minutes and a sixtieth of it instance-hours (a team
// holding 4 instances all day: 1,440 samples of 4, Sum 5,760, 96
// instance-hours). A minute the poller missed is missing here too: the
// exact figures, by class, type and day, are trainq usage's, from the job
// ledger.
func UsageWidgets(queue ITrainingQueue, props *WidgetProps, quota bool) []awscloudwatch.IWidget {
	w := widgetProps(props)
	hours := func(m metrics.Metric) []awscloudwatch.IMetric {
		out := make([]awscloudwatch.IMetric, len(w.Teams))
		for i, team := range w.Teams {
			id := fmt.Sprintf("t%d", i)
			out[i] = awscloudwatch.NewMathExpression(&awscloudwatch.MathExpressionProps{
				Expression: jsii.String(id + "/60"),
				UsingMetrics: &map[string]awscloudwatch.IMetric{
					id: queue.Metric(m, byTeam(team), statPeriod("Sum", daySeconds, "")),
				},
				Label:  jsii.String(team),
				Period: period(daySeconds),
			})
		}
		return out
	}
	out := []awscloudwatch.IWidget{
		graph("Instance-hours per day by team (minute samples; exact: trainq usage)", hours(metrics.InstancesInUse), countAxis("instance-hours")),
	}
	if quota {
		out = append(out, graph("Borrowed instance-hours per day by team (beyond its quota)", hours(metrics.BorrowedInstances), countAxis("instance-hours")))
	}
	return out
}

// BudgetWidgets are the rows of p's budgets, a graph per team with
// budgets (three a row): each budget's used and forecast percents of its
// limit (the poller's budget pass, one figure every 15 minutes), against
// the limit (100%) and the budget's alarm percents. None when no team has
// a budget.
func BudgetWidgets(queue ITrainingQueue, p *platform.Platform) [][]awscloudwatch.IWidget {
	var rows [][]awscloudwatch.IWidget
	for _, t := range p.Teams {
		if len(t.Budgets) == 0 {
			continue
		}
		var lines []awscloudwatch.IMetric
		percents := map[float64]bool{100: true}
		for _, b := range t.Budgets {
			dims := &MetricDimensions{Team: t.Name, Budget: b.Name}
			lines = append(lines,
				queue.Metric(metrics.BudgetUsedPercent, dims, &awscloudwatch.MetricOptions{Label: jsii.String(b.Name + " used")}),
				queue.Metric(metrics.BudgetForecastPercent, dims, &awscloudwatch.MetricOptions{Label: jsii.String(b.Name + " forecast at the current rate")}))
			for _, a := range b.Alarms {
				percents[a.Percent] = true
			}
		}
		var marks []*awscloudwatch.HorizontalAnnotation
		for _, v := range slices.Sorted(maps.Keys(percents)) {
			label := fmt.Sprintf("%g%% alarm", v)
			if v == 100 {
				label = "limit (100%)"
			}
			marks = append(marks, threshold(v, label))
		}
		w := annotated("Budgets of "+t.Name+": used and forecast, % of the limit (every 15 min; exact: trainq usage)", lines,
			&awscloudwatch.YAxisProps{Min: jsii.Number(0), Label: jsii.String("% of the limit"), ShowUnits: jsii.Bool(false)}, marks)
		if len(rows) == 0 || len(rows[len(rows)-1]) == 3 {
			rows = append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], w)
	}
	return rows
}

// WhyWidgets are a row of why jobs wait or fail: runnable jobs by instance
// type, queue-blocked events by reason, and failures by whose fault.
func WhyWidgets(queue ITrainingQueue, props *WidgetProps) []awscloudwatch.IWidget {
	w := widgetProps(props)
	var blocked []awscloudwatch.IMetric
	for _, r := range append(batchrules.TimeLimitReasons(), metrics.ReasonOther) {
		blocked = append(blocked, queue.Metric(metrics.QueueBlocked, &MetricDimensions{Reason: r}, stat5("Sum", r)))
	}
	var failed []awscloudwatch.IMetric
	for _, c := range w.Classes {
		for _, f := range []string{metrics.FaultPlatform, metrics.FaultJob} {
			failed = append(failed, queue.Metric(metrics.JobsFailed, &MetricDimensions{Class: c, Fault: f}, stat5("Sum", c+" "+f)))
		}
	}
	return []awscloudwatch.IWidget{
		graph("Runnable jobs by instance type (count)", per(queue, metrics.RunnableJobs, byType, w.InstanceTypes, "Maximum"), countAxis("jobs")),
		annotated("Queue blocked events by reason (count per 5 min)", blocked, countAxis("events"), []*awscloudwatch.HorizontalAnnotation{threshold(1, "queue-blocked")}),
		graph("Jobs failed by class and fault: PLATFORM (pages) or JOB (tickets) (count per 5 min)", failed, countAxis("jobs")),
	}
}

// RunbookWidget lists each alarm of factory with its severity and a link to
// its runbook section.
func RunbookWidget(factory *AlarmFactory) awscloudwatch.IWidget {
	var b strings.Builder
	b.WriteString("### Alarms and their runbooks\n\n| alarm | severity |\n|---|---|\n")
	for _, name := range factory.order {
		if r, ok := factory.rules[name]; ok {
			fmt.Fprintf(&b, "| [%s](%s) | %s |\n", name, r.RunbookLink(factory.runbooks), r.Severity)
		}
	}
	return awscloudwatch.NewTextWidget(&awscloudwatch.TextWidgetProps{
		Markdown: jsii.String(b.String()), Width: jsii.Number(WidgetWidth), Height: jsii.Number(2 * WidgetHeight),
	})
}

// OutcomeWidgets are the queue's job outcomes by class (submitted, started,
// failed, cancelled, preempted) and the instances each team borrows.
func OutcomeWidgets(queue ITrainingQueue, props *WidgetProps) []awscloudwatch.IWidget {
	w := widgetProps(props)
	var outcomes []awscloudwatch.IMetric
	for _, c := range w.Classes {
		dims := byClass(c)
		outcomes = append(outcomes,
			queue.Metric(metrics.JobsSubmitted, dims, stat5("Sum", c+" submitted")),
			queue.Metric(metrics.JobsStarted, dims, stat5("Sum", c+" started")),
			queue.Metric(metrics.JobsFailed, dims, stat5("Sum", c+" failed")),
			queue.Metric(metrics.JobsCancelled, dims, stat5("Sum", c+" cancelled")),
			queue.Metric(metrics.JobsPreempted, dims, stat5("Sum", c+" preempted")))
	}
	return []awscloudwatch.IWidget{
		graph("Jobs submitted, started, failed, cancelled and preempted by class (count per 5 min)", outcomes, countAxis("jobs")),
		graph("Instances borrowed by team (count)", per(queue, metrics.BorrowedInstances, byTeam, w.Teams, "Maximum"), countAxis("instances")),
	}
}

// AlarmStatusWidget shows the state of alarms.
func AlarmStatusWidget(title string, alarms []awscloudwatch.Alarm) awscloudwatch.IWidget {
	refs := make([]interfacesawscloudwatch.IAlarmRef, len(alarms))
	for i, a := range alarms {
		refs[i] = a
	}
	return awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
		Title: jsii.String(title), Alarms: &refs,
		Width: jsii.Number(WidgetWidth), Height: jsii.Number(WidgetHeight),
	})
}

// SubmitterWidgets are the submission function's errors by errorType with
// Lambda's throttles, and its latency (p50, p99).
func SubmitterWidgets(queue ITrainingQueue, sub ISubmitter) []awscloudwatch.IWidget {
	var kinds []string
	for _, k := range contract.Kinds() {
		kinds = append(kinds, string(k))
	}
	errs := per(queue, metrics.SubmissionErrors, func(v string) *MetricDimensions { return &MetricDimensions{ErrorType: v} }, kinds, "Sum")
	return []awscloudwatch.IWidget{
		graph("Submission errors by errorType, Lambda throttles (count per 5 min)",
			append(errs, sub.MetricThrottles(stat5("Sum", "Lambda throttles"))), countAxis("requests")),
		graph("Submitter latency, p50 and p99 (milliseconds)", []awscloudwatch.IMetric{
			sub.MetricDuration(stat5("p50", "p50")), sub.MetricDuration(stat5("p99", "p99")),
		}, countAxis("ms")),
	}
}

// PipelineWidget is the monitoring pipeline's health: its functions'
// errors, the poller's throttles, the events the observer could not read,
// and the observer's and the poller's heartbeats.
func PipelineWidget(p MonitoringPipeline) awscloudwatch.IWidget {
	return graph("Observer and poller health (count per 5 min; heartbeats 5 each when healthy)", []awscloudwatch.IMetric{
		p.Observer().MetricErrors(stat5("Sum", "observer errors")),
		p.Poller().MetricErrors(stat5("Sum", "poller errors")),
		p.Poller().MetricThrottles(stat5("Sum", "poller throttles")),
		p.Queue().Metric(metrics.EventsRejected, nil, stat5("Sum", "events rejected")),
		p.Queue().Metric(metrics.ObserverHeartbeats, nil, stat5("Sum", "observer heartbeats")),
		p.Queue().Metric(metrics.RunnableJobs, nil, stat5("SampleCount", "poller heartbeats")),
	}, countAxis("count"))
}

// RerouterWidgets are a row of the re-router: jobs moved by class, moves
// refused by reason, and the function's errors and throttles.
func RerouterWidgets(r Rerouter) []awscloudwatch.IWidget {
	var moved []awscloudwatch.IMetric
	for _, c := range r.Classes() {
		moved = append(moved, r.MetricJobsRerouted(c, stat5("Sum", c)))
	}
	var refused []awscloudwatch.IMetric
	for _, reason := range RerouteRefusalReasons() {
		refused = append(refused, r.MetricReroutesRefused(reason, stat5("Sum", reason)))
	}
	return []awscloudwatch.IWidget{
		graph("Jobs re-routed by class (count per 5 min)", moved, countAxis("jobs")),
		graph("Moves refused by reason (count per 5 min)", refused, countAxis("moves")),
		graph("Re-router errors and throttles (count per 5 min)", []awscloudwatch.IMetric{
			r.MetricErrors(stat5("Sum", "errors")), r.MetricThrottles(stat5("Sum", "throttles")),
		}, countAxis("runs")),
	}
}
