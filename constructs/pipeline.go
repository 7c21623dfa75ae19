package constructs

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// MonitoringPipelineProps configure a MonitoringPipeline.
type MonitoringPipelineProps struct {
	// Queue is the queue whose jobs and snapshots become metrics. Required.
	Queue ITrainingQueue
	// PlatformProps describe the platform: the classes, teams and instance
	// types the metrics are broken down by.
	PlatformProps
	// ObserverFunctionName names the observer function.
	// Default: PlatformName + "-observer".
	ObserverFunctionName string
	// PollerFunctionName names the poller function.
	// Default: PlatformName + "-poller".
	PollerFunctionName string
	// ObserverCode and PollerCode are prebuilt function code (folders with
	// bootstrap and platform.json). Default: built from ObserverPackage and
	// PollerPackage during synthesis, from trainq's own module.
	ObserverCode, PollerCode awslambda.Code
	// Ledger is the job ledger the observer records every job's state
	// changes in (GrantRecord), and the poller's reconciling pass
	// completes from AWS Batch every 15 minutes (GrantReconcile). Default:
	// none, and the observer keeps no history.
	Ledger Ledger
}

// MonitoringPipeline turns a queue's Batch job events (through the
// observer function) and its snapshots (through the poller function, every
// minute) into trainq's CloudWatch metrics, which the queue's Metric…
// methods read. AWS Batch publishes no metrics for service jobs; without a
// pipeline the queue's metrics stay empty.
type MonitoringPipeline interface {
	constructs.Construct
	// Queue is the queue the pipeline watches.
	Queue() ITrainingQueue
	// Platform is the platform description bundled with the functions; nil
	// when the props were invalid.
	Platform() *platform.Platform
	// Observer is the function that turns Batch events into metrics.
	Observer() awslambda.Function
	// Poller is the function that reads the queue's snapshot every minute.
	Poller() awslambda.Function
	// EventRule sends the queue's job events to Observer.
	EventRule() awsevents.Rule
	// ScheduleRule invokes Poller every minute.
	ScheduleRule() awsevents.Rule
	// DeadLetterQueue keeps events that could not be delivered to Observer.
	DeadLetterQueue() awssqs.Queue
}

type pipeline struct {
	constructs.Construct
	queue    ITrainingQueue
	platform *platform.Platform
	observer awslambda.Function
	poller   awslambda.Function
	events   awsevents.Rule
	schedule awsevents.Rule
	dlq      awssqs.Queue
}

// NewMonitoringPipeline creates the observer and poller functions and their
// triggers: an EventBridge rule on the queue's service-job state changes,
// with a dead-letter queue, and a schedule every minute. Invalid props fail
// synthesis with a message naming the prop.
func NewMonitoringPipeline(scope constructs.Construct, id string, props *MonitoringPipelineProps) MonitoringPipeline {
	if props == nil {
		props = &MonitoringPipelineProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	m := &pipeline{Construct: c, queue: props.Queue}
	p, problems := describePlatform("trainq.MonitoringPipeline", &props.PlatformProps, props.Queue)
	for _, msg := range problems {
		addError(c, "%s", msg)
	}
	m.platform = p
	if props.Queue == nil {
		return m
	}
	addCheck(c, checkTeamsStillShares("trainq.MonitoringPipeline", p, props.Queue, props.Teams != nil))
	name := props.PlatformProps.name()
	observerName, pollerName := props.ObserverFunctionName, props.PollerFunctionName
	if observerName == "" {
		observerName = name + "-observer"
	}
	if pollerName == "" {
		pollerName = name + "-poller"
	}
	observerName = checkFunctionName(c, "trainq.MonitoringPipeline", "ObserverFunctionName", observerName)
	pollerName = checkFunctionName(c, "trainq.MonitoringPipeline", "PollerFunctionName", pollerName)
	files := map[string][]byte{}
	if p != nil {
		files[contract.PlatformFileName] = p.JSON()
	}
	queueName := *props.Queue.JobQueueName()
	env := map[string]*string{contract.EnvJobQueue: props.Queue.JobQueueArn()}
	m.dlq = newDeadLetterQueue(c, "EventDeadLetterQueue")

	obs := newGoFunction(constructs.NewConstruct(c, jsii.String("Observer")), goFunctionProps{
		functionName:  observerName,
		nameProp:      "ObserverFunctionName",
		description:   fmt.Sprintf("trainq %s: turns Batch job events of %s into CloudWatch metrics", name, queueName),
		pkg:           ObserverPackage,
		files:         files,
		code:          props.ObserverCode,
		environment:   env,
		timeout:       awscdk.Duration_Seconds(jsii.Number(10)),
		memoryMB:      128,
		retentionDays: props.LogRetentionDays,
	})
	m.observer = obs.fn
	if props.Ledger != nil {
		obs.fn.AddEnvironment(jsii.String(contract.EnvLedgerTable), props.Ledger.Table().TableName(), nil)
		props.Ledger.GrantRecord(obs.fn)
	}
	m.events = awsevents.NewRule(c, jsii.String("JobEvents"), &awsevents.RuleProps{
		Description: jsii.String("Batch service-job state changes of " + queueName),
		EventPattern: &awsevents.EventPattern{
			Source:     jsii.Strings(contract.BatchEventSource),
			DetailType: jsii.Strings(contract.BatchEventDetailTypes()...),
			Detail:     &map[string]interface{}{"jobQueue": []interface{}{props.Queue.JobQueueArn()}},
		},
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(obs.fn, &awseventstargets.LambdaFunctionProps{
			DeadLetterQueue: m.dlq,
			RetryAttempts:   jsii.Number(2),
			MaxEventAge:     awscdk.Duration_Hours(jsii.Number(2)),
		})},
	})

	// EventBridge's scheduled event, once a minute: the observer's
	// heartbeat (metrics.ObserverHeartbeats), on which the
	// observer-heartbeat alarm treats no data as breaching.
	awsevents.NewRule(c, jsii.String("ObserverHeartbeat"), &awsevents.RuleProps{
		Description: jsii.String("Sends the observer of " + queueName + " its heartbeat every minute"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(1))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(obs.fn, &awseventstargets.LambdaFunctionProps{
			RetryAttempts: jsii.Number(0),
			MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(1)),
		})},
	})

	poll := newGoFunction(constructs.NewConstruct(c, jsii.String("Poller")), goFunctionProps{
		functionName:  pollerName,
		nameProp:      "PollerFunctionName",
		description:   fmt.Sprintf("trainq %s: writes backlog and capacity metrics of %s every minute", name, queueName),
		pkg:           PollerPackage,
		files:         files,
		code:          props.PollerCode,
		environment:   env,
		timeout:       awscdk.Duration_Seconds(jsii.Number(50)),
		memoryMB:      256,
		retentionDays: props.LogRetentionDays,
	})
	m.poller = poll.fn
	grantPollerPermissions(poll, props.Queue)
	if props.Ledger != nil {
		// The reconciling pass (package reconcile): every 15 minutes the
		// poller completes open jobs whose events were lost from
		// DescribeServiceJob.
		poll.fn.AddEnvironment(jsii.String(contract.EnvLedgerTable), props.Ledger.Table().TableName(), nil)
		props.Ledger.GrantReconcile(poll.fn)
	}
	m.schedule = awsevents.NewRule(c, jsii.String("EveryMinute"), &awsevents.RuleProps{
		Description: jsii.String("Polls the queue snapshot of " + queueName + " every minute"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(1))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(poll.fn, &awseventstargets.LambdaFunctionProps{
			RetryAttempts: jsii.Number(0),
			MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(1)),
		})},
	})
	return m
}

// grantPollerPermissions lets the poller read the queue and its jobs.
// DescribeServiceJob and ListServiceJobs support no resource-level
// permission (IAM's service authorization reference lists no resource type
// for them), so they are granted on "*"; both only read.
func grantPollerPermissions(f goFunction, queue ITrainingQueue) {
	role := f.role
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("batch:GetJobQueueSnapshot"),
		Resources: &[]*string{queue.JobQueueArn()},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("batch:DescribeServiceJob", "batch:ListServiceJobs"),
		Resources: jsii.Strings("*"),
	}))
	f.suppressWildcards(map[string]string{
		`\*`: "batch:DescribeServiceJob and batch:ListServiceJobs support no resource-level permission (Service Authorization Reference) and only read.",
	})
}

func (m *pipeline) Queue() ITrainingQueue         { return m.queue }
func (m *pipeline) Platform() *platform.Platform  { return m.platform }
func (m *pipeline) Observer() awslambda.Function  { return m.observer }
func (m *pipeline) Poller() awslambda.Function    { return m.poller }
func (m *pipeline) EventRule() awsevents.Rule     { return m.events }
func (m *pipeline) ScheduleRule() awsevents.Rule  { return m.schedule }
func (m *pipeline) DeadLetterQueue() awssqs.Queue { return m.dlq }
