package test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/google/go-cmp/cmp"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/stacks"
)

// placeholderCode is function code for tests that do not run the function:
// a folder with a placeholder bootstrap, as TESTING.md suggests.
func placeholderCode(t *testing.T) awslambda.Code {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bootstrap"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return awslambda.Code_FromAsset(jsii.String(dir), nil)
}

// reroutingProps describe a platform on teamQueue whose research jobs may
// move between two instance types (each one of the platform's types).
func reroutingProps() tq.PlatformProps {
	classes := platform.DefaultClasses()
	for i := range classes {
		if classes[i].Name == "research" {
			classes[i].Reroute = &platform.Reroute{InstanceTypes: []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}}
		}
	}
	return tq.PlatformProps{Classes: classes, InstanceTypes: []tq.InstanceCapacity{
		{InstanceType: "ml.p5.48xlarge", Instances: 8}, {InstanceType: "ml.p4d.24xlarge", Instances: 8}}}
}

// teamQueue is a quota-share queue on one quota-managed pool, with shares
// added by shares.
func teamQueue(stack awscdk.Stack, shares ...string) tq.TrainingQueue {
	pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 8}}})
	q := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
		ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}},
		ExecutionRole:       tq.NewExecutionRole(stack, "Role", nil),
		JobQueueName:        "team-training",
	})
	for _, s := range shares {
		q.AddQuotaShare("Share-"+s, &tq.QuotaShareProps{QuotaShareName: s, Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 4}}})
	}
	return q
}

func TestUsersMistakesFailSynthesisNamingConstructPropAndValue(t *testing.T) {
	cases := []struct {
		name string
		want []string // substrings of one validation message
		make func(t *testing.T, stack awscdk.Stack)
	}{
		{"a submitter team that is not a share of the queue names both", []string{"[S/Submitter]", "trainq.Submitter", `Teams[1] is "segmentaton"`, "not a share of queue S/Queue", "(detection, segmentation)"},
			func(t *testing.T, stack awscdk.Stack) {
				q := teamQueue(stack, "detection", "segmentation")
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t),
					PlatformProps: tq.PlatformProps{Teams: []string{"detection", "segmentaton"}}})
			}},
		{"a fair-share team must be a share identifier of the queue's policy", []string{"trainq.Submitter", `Teams[0] is "vision"`, "(ranking, nlp)"},
			func(t *testing.T, stack awscdk.Stack) {
				pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{TotalInstances: 16})
				q := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
					ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}},
					ExecutionRole:       tq.NewExecutionRole(stack, "Role", nil),
					SchedulingPolicy: tq.NewFairSharePolicy(stack, "Policy", &tq.FairSharePolicyProps{
						Shares: []tq.FairShare{{ShareIdentifier: "ranking", WeightFactor: 1}, {ShareIdentifier: "nlp", WeightFactor: 2}}}),
				})
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t),
					PlatformProps: tq.PlatformProps{Teams: []string{"vision"}, InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 16}}}})
			}},
		{"a share added after the submitter is named", []string{"trainq.Submitter", `share "late" was added to queue S/Queue after`, "list Teams"},
			func(t *testing.T, stack awscdk.Stack) {
				q := teamQueue(stack, "early")
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t)})
				q.AddQuotaShare("Late", &tq.QuotaShareProps{QuotaShareName: "late", Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 1}}})
			}},
		{"a fair-share queue without instance types for the submitter", []string{"trainq.Submitter", "InstanceTypes is empty", "NUM_INSTANCES"},
			func(t *testing.T, stack awscdk.Stack) {
				pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{TotalInstances: 16})
				q := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
					ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}},
					ExecutionRole:       tq.NewExecutionRole(stack, "Role", nil),
					SchedulingPolicy:    tq.NewFairSharePolicy(stack, "Policy", &tq.FairSharePolicyProps{Shares: []tq.FairShare{{ShareIdentifier: "a", WeightFactor: 1}}}),
				})
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t)})
			}},
		{"overlapping class bands are refused through the platform's rule", []string{"trainq.Submitter", "classes[1]", "overlap"},
			func(t *testing.T, stack awscdk.Stack) {
				q := teamQueue(stack, "a")
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t), PlatformProps: tq.PlatformProps{Classes: []platform.Class{
					{Name: "high", Priority: platform.Band{Min: 500, Max: 600}}, {Name: "low", Priority: platform.Band{Min: 550, Max: 650}}}}})
			}},
		{"a function name Lambda refuses", []string{"trainq.Submitter", "FunctionName is", "1-64 letters"},
			func(t *testing.T, stack awscdk.Stack) {
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t), FunctionName: strings.Repeat("x", 65)})
			}},
		{"granting an unknown class", []string{"[S/Submitter]", `class is "reserch"`, "production, research, sweep"},
			func(t *testing.T, stack awscdk.Stack) {
				s := tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t)})
				s.GrantSubmit(awsiam.NewRole(stack, jsii.String("P"), &awsiam.RoleProps{AssumedBy: awsiam.NewAccountRootPrincipal()}), "reserch", "a")
			}},
		{"a time limit action for a reason Batch does not have", []string{"trainq.TrainingQueue", `JobStateTimeLimitActions[0].Reason is "CAPACITY:SLOW"`, "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"},
			func(t *testing.T, stack awscdk.Stack) {
				pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 8}}})
				tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
					ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "Role", nil),
					JobStateTimeLimitActions: []tq.JobStateTimeLimitAction{{Reason: "CAPACITY:SLOW", MaxTimeSeconds: 600}}})
			}},
		{"a time limit shorter than Batch's 600 s", []string{"trainq.TrainingQueue", "JobStateTimeLimitActions[0].MaxTimeSeconds is 300", "600 to 86400"},
			func(t *testing.T, stack awscdk.Stack) {
				pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 8}}})
				tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
					ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "Role", nil),
					JobStateTimeLimitActions: []tq.JobStateTimeLimitAction{{Reason: "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE", MaxTimeSeconds: 300}}})
			}},
		{"a log retention CloudWatch Logs does not offer", []string{"LogRetentionDays is 45", "30, 60"},
			func(t *testing.T, stack awscdk.Stack) {
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t), PlatformProps: tq.PlatformProps{LogRetentionDays: 45}})
			}},
		{"a metric asked for by a dimension set it is not emitted with", []string{"metric EventsRejected", "[Queue Class]", "[[Queue]]"},
			func(t *testing.T, stack awscdk.Stack) {
				teamQueue(stack, "a").Metric(metrics.EventsRejected, &tq.MetricDimensions{Class: "production"}, nil)
			}},
		{"thresholds of a class that does not exist", []string{"trainq.QueueAlarmThresholds", `MaxWaitSeconds has class "prod"`, "production, research, sweep"},
			func(t *testing.T, stack awscdk.Stack) {
				f := tq.NewAlarmFactory(stack, nil)
				f.AddQueueAlarms(teamQueue(stack, "a"), []string{"production", "research", "sweep"}, &tq.QueueAlarmThresholds{MaxWaitSeconds: map[string]int{"prod": 60}})
			}},
		{"alarm e-mails with your own alarm actions", []string{"trainq.Monitor", "AlarmEmails has 1 addresses but AlarmActions is set"},
			func(t *testing.T, stack awscdk.Stack) {
				q := teamQueue(stack, "a")
				tq.NewMonitor(stack, "Monitor", &tq.MonitorProps{Queue: q, ObserverCode: placeholderCode(t), PollerCode: placeholderCode(t),
					AlarmActions: tq.NoAlarmActions(), AlarmEmails: []string{"oncall@example.com"}})
			}},
		{"an imported submitter's unknown class", []string{"trainq.FromSubmitterAttributes", `class is "gold"`, "(research)"},
			func(t *testing.T, stack awscdk.Stack) {
				s := tq.FromSubmitterAttributes(stack, "Sub", &tq.SubmitterAttributes{FunctionArn: "arn:aws:lambda:us-east-1:123456789012:function:vision-submit", Classes: []string{"research"}, Teams: []string{"detection"}})
				s.GrantSubmit(awsiam.NewRole(stack, jsii.String("P"), &awsiam.RoleProps{AssumedBy: awsiam.NewAccountRootPrincipal()}), "gold", "detection")
			}},
		{"execution roles of teams whose names overflow Lambda's environment", []string{"[S/Submitter]", "ExecutionRoles of 20 teams", "Lambda's 4 KB"},
			func(t *testing.T, stack awscdk.Stack) {
				var teams []string
				for i := range 20 {
					teams = append(teams, fmt.Sprintf("%03d", i)+strings.Repeat("t", 100))
				}
				pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 20}}})
				q := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}},
					ExecutionRole: tq.NewExecutionRole(stack, "Role", nil), JobQueueName: "team-training"})
				for _, team := range teams {
					q.AddQuotaShare("Share-"+team, &tq.QuotaShareProps{QuotaShareName: team, Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 1}}})
				}
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t),
					ExecutionRoles: map[string]tq.IExecutionRole{teams[0]: tq.NewExecutionRole(stack, "Team0", nil)}})
			}},
		{"an execution role for a team the submitter does not have", []string{"[S/Submitter]", `ExecutionRoles has team "b"`, "(a)"},
			func(t *testing.T, stack awscdk.Stack) {
				tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t),
					ExecutionRoles: map[string]tq.IExecutionRole{"b": tq.NewExecutionRole(stack, "B", nil)}})
			}},
		{"granting an unknown team", []string{"[S/Submitter]", `team is "b"`, "want one of the submitter's teams (a)"},
			func(t *testing.T, stack awscdk.Stack) {
				s := tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t)})
				s.GrantSubmit(awsiam.NewRole(stack, jsii.String("P"), &awsiam.RoleProps{AssumedBy: awsiam.NewAccountRootPrincipal()}), "research", "b")
			}},
		{"a re-router of classes none of which reroutes", []string{"[S/Rerouter]", "trainq.Rerouter", "no class of Classes (production, research, sweep) sets Reroute"},
			func(t *testing.T, stack awscdk.Stack) {
				tq.NewRerouter(stack, "Rerouter", &tq.RerouterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t)})
			}},
		{"a re-router run less often than every hour", []string{"[S/Rerouter]", "trainq.Rerouter", "Rerouting is", "rerouting.everyMinutes", "61"},
			func(t *testing.T, stack awscdk.Stack) {
				tq.NewRerouter(stack, "Rerouter", &tq.RerouterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t),
					PlatformProps: reroutingProps(), Rerouting: &platform.Rerouting{EveryMinutes: 61}})
			}},
		{"a refused-moves alarm over a window shorter than 5 minutes", []string{"trainq.RerouterAlarmThresholds", "RefusedWindowSeconds is 120", "300 to 86400"},
			func(t *testing.T, stack awscdk.Stack) {
				r := tq.NewRerouter(stack, "Rerouter", &tq.RerouterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t),
					PlatformProps: reroutingProps()})
				tq.NewAlarmFactory(stack, nil).AddRerouterAlarms(r, &tq.RerouterAlarmThresholds{RefusedWindowSeconds: 120})
			}},
		{"refused moves of a reason the re-router does not write", []string{"trainq.Rerouter", `MetricReroutesRefused reason is "THROTTLED"`, "SUBMIT, TERMINATE, RATE, MAX_MOVES"},
			func(t *testing.T, stack awscdk.Stack) {
				r := tq.NewRerouter(stack, "Rerouter", &tq.RerouterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t),
					PlatformProps: reroutingProps()})
				r.MetricReroutesRefused("THROTTLED", nil)
			}},
		{"a platform stack with an invalid platform lists its problems", []string{"[S2]", "trainq.PlatformStack", "pools[0].instanceType"},
			func(t *testing.T, stack awscdk.Stack) {
				p := platform.Default()
				p.Pools[0].InstanceType = "p5.48xlarge"
				stacks.NewPlatformStack(awscdk.Stage_Of(stack), "S2", &stacks.PlatformStackProps{Platform: p})
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs := validationMessages(t, func(stack awscdk.Stack) { c.make(t, stack) })
			if len(msgs) == 0 {
				t.Fatalf("accepted")
			}
			for _, m := range msgs {
				if containsAll(m, c.want) {
					return
				}
			}
			t.Errorf("no message mentions all of %q:\n%s", c.want, strings.Join(msgs, "\n"))
		})
	}
}

// synthStack synthesizes the stack make builds and returns its template.
func synthStack(t *testing.T, make func(stack awscdk.Stack)) assertions.Template {
	t.Helper()
	var tpl assertions.Template
	mustNotPanic(t, "synthesize", func() {
		app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
		stack := awscdk.NewStack(app, jsii.String("S"), &awscdk.StackProps{
			Env: &awscdk.Environment{Account: jsii.String(testAccount), Region: jsii.String(testRegion)},
		})
		make(stack)
		if _, err := stacks.Synth(app); err != nil {
			t.Fatalf("synthesis failed: %v", err)
		}
		tpl = assertions.Template_FromStack(stack, nil)
	})
	return tpl
}

func TestAQueueRunsOnServiceEnvironmentsInTheirOrder(t *testing.T) {
	// The reference setup's shape: one quota-managed pool per instance
	// family, one queue over both; the submitter's instance types are both
	// pools' types, in the queue's order.
	var sub tq.Submitter
	tpl := synthStack(t, func(stack awscdk.Stack) {
		p5 := tq.NewCapacityPool(stack, "P5", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 8}}})
		p4 := tq.NewCapacityPool(stack, "P4d", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p4d.24xlarge", Instances: 16}}})
		q := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
			ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: p5, Order: 1}},
			ExecutionRole:       tq.NewExecutionRole(stack, "Role", nil),
		})
		q.AddServiceEnvironment(p4, 2)
		q.AddQuotaShare("A", &tq.QuotaShareProps{QuotaShareName: "a", Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 4}, {InstanceType: "ml.p4d.24xlarge", Instances: 8}}})
		sub = tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t)})
	})
	queues := findResources(tpl, "AWS::Batch::JobQueue")
	envs := findResources(tpl, "AWS::Batch::ServiceEnvironment")
	envID := map[string]string{}
	for id, e := range envs {
		envID[get(e, "Properties.CapacityLimits.0.CapacityUnit").(string)] = id
	}
	for _, q := range queues {
		want := []any{
			map[string]any{"Order": float64(1), "ServiceEnvironment": getAtt(envID["ml.p5.48xlarge"], "ServiceEnvironmentArn")},
			map[string]any{"Order": float64(2), "ServiceEnvironment": getAtt(envID["ml.p4d.24xlarge"], "ServiceEnvironmentArn")},
		}
		if diff := cmp.Diff(want, get(q, "Properties.ServiceEnvironmentOrder")); diff != "" {
			t.Errorf("service environment order (-want +got):\n%s", diff)
		}
	}
	got := sub.Platform().Submission.InstanceTypes
	if diff := cmp.Diff([]string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}, got); diff != "" {
		t.Errorf("the submitter's instance types (-want +got):\n%s", diff)
	}
}

func TestAlarmsFollowTheActionStrategyAndOneNamingRule(t *testing.T) {
	tpl := synthStack(t, func(stack awscdk.Stack) {
		q := teamQueue(stack, "a")
		sub := tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t), PlatformProps: tq.PlatformProps{PlatformName: "team"}})
		pipe := tq.NewMonitoringPipeline(stack, "Metrics", &tq.MonitoringPipelineProps{Queue: q, PlatformProps: tq.PlatformProps{PlatformName: "team"},
			ObserverCode: placeholderCode(t), PollerCode: placeholderCode(t)})
		mine := awssns.NewTopic(stack, jsii.String("Mine"), nil)
		paging := tq.NewAlarmFactory(stack, &tq.AlarmFactoryProps{AlarmNamePrefix: "team-", Actions: tq.NotifyTopic(mine)})
		paging.AddQueueAlarms(q, sub.Classes(), nil)
		paging.AddSubmitterAlarms(q, sub)
		// The same metrics, alarms that only show on a second dashboard.
		quiet := tq.NewAlarmFactory(constructs.NewConstruct(stack, jsii.String("Quiet")), &tq.AlarmFactoryProps{AlarmNamePrefix: "team-quiet-", Actions: tq.NoAlarmActions()})
		quiet.AddPipelineAlarms(pipe)
		for i, f := range []*tq.AlarmFactory{paging, quiet} {
			awscloudwatch.NewDashboard(stack, jsii.String("Board"+string(rune('A'+i))), &awscloudwatch.DashboardProps{
				Widgets: &[]*[]awscloudwatch.IWidget{{tq.AlarmStatusWidget("alarms", f.Ordered()), tq.PipelineWidget(pipe)}},
			})
		}
	})
	topic := ""
	for id := range findResources(tpl, "AWS::SNS::Topic") {
		topic = id
	}
	var names, quiet []string
	for _, a := range findResources(tpl, "AWS::CloudWatch::Alarm") {
		name := get(a, "Properties.AlarmName").(string)
		if strings.HasPrefix(name, "team-quiet-") {
			quiet = append(quiet, name)
			if got := get(a, "Properties.AlarmActions"); got != nil {
				t.Errorf("alarm %s without actions notifies %v", name, got)
			}
			continue
		}
		names = append(names, name)
		if !strings.HasPrefix(name, "team-") {
			t.Errorf("alarm %s does not follow the naming rule team-NAME", name)
		}
		if got := get(a, "Properties.AlarmActions"); !jsonEqual(got, []any{ref(topic)}) {
			t.Errorf("alarm %s notifies %v, want my topic %s", name, got, topic)
		}
	}
	// The pipeline's alarms: queue blocked, the observer's and the poller's
	// heartbeats, errors and throttles, events rejected, event dead letters.
	if len(quiet) != 9 {
		t.Errorf("quiet pipeline alarms %v, want the pipeline's 9", quiet)
	}
	sort.Strings(names)
	want := []string{"team-" + tq.AlarmIdleCapacity, "team-" + tq.AlarmJobCodeFailed("production"), "team-" + tq.AlarmJobFailed("production"),
		"team-" + tq.AlarmOldestWait("production"), "team-" + tq.AlarmOldestWait("research"), "team-" + tq.AlarmOldestWait("sweep"),
		"team-" + tq.AlarmQuotaFullWait("production"), "team-" + tq.AlarmQuotaFullWait("research"), "team-" + tq.AlarmQuotaFullWait("sweep"),
		"team-" + tq.AlarmSubmitterDeadLetters, "team-" + tq.AlarmSubmitterErrors, "team-" + tq.AlarmSubmitterThrottles}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("paging alarms (-want +got):\n%s", diff)
	}
	if n := len(findResources(tpl, "AWS::CloudWatch::Dashboard")); n != 2 {
		t.Errorf("%d dashboards over the same metrics, want 2", n)
	}
	if n := len(findResources(tpl, "AWS::KMS::Key")); n != 0 {
		t.Errorf("with my own topic, trainq created %d keys (of its own topic)", n)
	}
}

func TestQueueMetricsHonourEveryMetricOption(t *testing.T) {
	tpl := synthStack(t, func(stack awscdk.Stack) {
		q := teamQueue(stack, "a")
		m := q.MetricOldestRunnableSeconds("production", &awscloudwatch.MetricOptions{
			Statistic: jsii.String("p90"), Period: awscdk.Duration_Minutes(jsii.Number(10)),
			Unit: awscloudwatch.Unit_SECONDS, Account: jsii.String("210987654321"), Color: jsii.String("#ff0000"),
			DimensionsMap: &map[string]*string{metrics.Team: jsii.String("a")},
		})
		awscloudwatch.NewAlarm(stack, jsii.String("A"), &awscloudwatch.AlarmProps{Metric: q.MetricJobsFailed("", nil), Threshold: jsii.Number(1), EvaluationPeriods: jsii.Number(1)})
		awscloudwatch.NewAlarm(stack, jsii.String("B"), &awscloudwatch.AlarmProps{Metric: m, Threshold: jsii.Number(1), EvaluationPeriods: jsii.Number(1)})
	})
	alarms := findResources(tpl, "AWS::CloudWatch::Alarm")
	var a, b any
	for id, v := range alarms {
		if strings.HasPrefix(id, "A") {
			a = v
		} else {
			b = v
		}
	}
	// The default of a count of events: Sum per minute, by queue alone.
	if get(a, "Properties.Statistic") != "Sum" || get(a, "Properties.Period") != float64(60) {
		t.Errorf("MetricJobsFailed default = %v per %v s, want Sum per 60 s", get(a, "Properties.Statistic"), get(a, "Properties.Period"))
	}
	if diff := cmp.Diff([]any{map[string]any{"Name": metrics.Queue, "Value": "team-training"}}, get(a, "Properties.Dimensions")); diff != "" {
		t.Errorf("dimensions (-want +got):\n%s", diff)
	}
	// Every option given reaches the metric; the team narrows it further.
	stat := get(b, "Properties.Metrics.0.MetricStat")
	if stat == nil {
		t.Fatalf("a metric of another account is not a MetricStat: %v", b)
	}
	for path, want := range map[string]any{"Stat": "p90", "Period": float64(600), "Unit": "Seconds", "Metric.MetricName": metrics.OldestRunnableSeconds.Name} {
		if got := get(stat, path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if got := get(b, "Properties.Metrics.0.AccountId"); got != "210987654321" {
		t.Errorf("account = %v, want 210987654321", got)
	}
	dims := map[string]any{}
	for _, d := range asList(get(stat, "Metric.Dimensions")) {
		dims[get(d, "Name").(string)] = get(d, "Value")
	}
	if diff := cmp.Diff(map[string]any{metrics.Queue: "team-training", metrics.Class: "production", metrics.Team: "a"}, dims); diff != "" {
		t.Errorf("dimensions (-want +got):\n%s", diff)
	}
}

func TestAnImportedSubmitterGrantsAClassAliasByIdentityPolicy(t *testing.T) {
	const fn = "arn:aws:lambda:us-east-1:123456789012:function:vision-submit"
	tpl := synthStack(t, func(stack awscdk.Stack) {
		s := tq.FromSubmitterAttributes(stack, "Vision", &tq.SubmitterAttributes{FunctionArn: fn, Classes: []string{"research", "sweep"}, Teams: []string{"detection", "segmentation"}})
		s.GrantSubmit(awsiam.NewRole(stack, jsii.String("Pipeline"), &awsiam.RoleProps{AssumedBy: awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil)}), "research", "detection")
	})
	data := []byte(mustJSON(tpl.ToJSON()))
	path := filepath.Join(t.TempDir(), "imported.template.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d := deploy(t, path)
	pipeline := d.roleARN(t, "Pipeline")
	d.decide(t, []iamRequest{
		{name: "the pipeline invokes the (research, detection) alias", principal: pipeline, action: "lambda:InvokeFunction", resource: fn + ":research-detection", want: allowed, cite: citeLambdaInvoke},
		{name: "the pipeline cannot invoke the (research, segmentation) alias", principal: pipeline, action: "lambda:InvokeFunction", resource: fn + ":research-segmentation", want: denied, cite: citeEvaluation},
		{name: "the pipeline cannot invoke the (sweep, detection) alias", principal: pipeline, action: "lambda:InvokeFunction", resource: fn + ":sweep-detection", want: denied, cite: citeEvaluation},
		{name: "the pipeline cannot invoke the function unqualified (any class)", principal: pipeline, action: "lambda:InvokeFunction", resource: fn, want: denied, cite: citeEvaluation},
	})
}

// TestTheBundledDescriptionIsTheQueuesShares checks what the functions read
// when the props are built from parts: the queue's shares as teams, with
// their capacities and sharing, the pool as the instance types.
func TestTheBundledDescriptionIsTheQueuesShares(t *testing.T) {
	var sub tq.Submitter
	synthStack(t, func(stack awscdk.Stack) {
		q := teamQueue(stack)
		limit := 50
		q.AddQuotaShare("Det", &tq.QuotaShareProps{QuotaShareName: "detection", BorrowLimitPercent: &limit, Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 5}}})
		q.AddQuotaShare("Seg", &tq.QuotaShareProps{QuotaShareName: "segmentation", Strategy: platform.StrategyReserve, InSharePreemption: jsii.Bool(false), Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 3}}})
		sub = tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: q, Code: placeholderCode(t), PlatformProps: tq.PlatformProps{PlatformName: "vision"}})
	})
	p, err := platformfile.Parse(sub.Platform().JSON())
	if err != nil {
		t.Fatalf("the bundled description does not load: %v", err)
	}
	if p.Name != "vision" || p.Scheduling.Mode != platform.ModeQuota || len(p.Classes) != 3 {
		t.Errorf("name %q, mode %q, %d classes; want vision, quota, the 3 default classes", p.Name, p.Scheduling.Mode, len(p.Classes))
	}
	if diff := cmp.Diff([]platform.Pool{{InstanceType: "ml.p5.48xlarge", Instances: 8}}, p.Pools); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
	type team struct {
		Name      string
		Instances int
		Sharing   platform.Strategy
		Borrow    int
		Preempts  bool
	}
	var got []team
	for _, tm := range p.Teams {
		got = append(got, team{tm.Name, tm.CapacityOf("ml.p5.48xlarge"), tm.Sharing, tm.BorrowLimit(), tm.PreemptsInShare()})
	}
	want := []team{{"detection", 5, platform.StrategyLendAndBorrow, 50, true}, {"segmentation", 3, platform.StrategyReserve, -1, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("teams (-want +got):\n%s", diff)
	}
}
