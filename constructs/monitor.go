package constructs

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// MonitorProps configures a Monitor.
type MonitorProps struct {
	// Platform is the validated platform: thresholds, alarm e-mails, classes,
	// teams and instance types come from it. Required.
	Platform *platform.Platform
	// Queue is the queue to watch. Required.
	Queue ITrainingQueue
	// Submitter, when given, gets alarms on its errors, throttles and
	// dead-letter queue, and dashboard widgets. Default: none.
	Submitter Submitter
	// AlarmTopic receives every alarm. Its policy must let
	// cloudwatch.amazonaws.com publish (sns:Publish) and, when it is
	// encrypted, its key must let CloudWatch use it (kms:Decrypt,
	// kms:GenerateDataKey*). Default: a new topic encrypted with a new
	// customer-managed KMS key, allowing exactly this platform's alarms, with
	// Platform.Monitoring.AlarmEmails subscribed.
	AlarmTopic awssns.ITopic
	// ObserverCode and PollerCode are prebuilt function code (folders with
	// bootstrap and platform.json). Default: built from ObserverPackage and
	// PollerPackage during synthesis.
	ObserverCode awslambda.Code
	PollerCode   awslambda.Code
}

// Monitor turns Batch events and queue snapshots into CloudWatch metrics and
// watches them with alarms and a dashboard.
type Monitor interface {
	constructs.Construct
	// AlarmTopic receives every alarm.
	AlarmTopic() awssns.ITopic
	// Alarms are the monitor's alarms, by name (see AlarmNames).
	Alarms() map[string]awscloudwatch.IAlarm
	// Dashboard is the platform's dashboard.
	Dashboard() awscloudwatch.Dashboard
	// Observer is the function that turns Batch events into metrics.
	Observer() awslambda.Function
	// Poller is the function that reads queue snapshots every minute.
	Poller() awslambda.Function
	// EventRule is the rule that sends the queue's job events to Observer.
	EventRule() awsevents.Rule
	// Metric returns one of trainq's metrics for this queue with the given
	// extra dimensions (Class, Team, InstanceType); it panics if the metric is
	// not emitted with that dimension set.
	Metric(m metrics.Metric, dims map[string]string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
}

type monitor struct {
	constructs.Construct
	p         *platform.Platform
	queueName *string
	topic     awssns.ITopic
	alarms    map[string]awscloudwatch.IAlarm
	order     []string
	dashboard awscloudwatch.Dashboard
	observer  awslambda.Function
	poller    awslambda.Function
	rule      awsevents.Rule
	dlq       awssqs.Queue
}

// NewMonitor creates the observer and poller functions, their triggers,
// the alarms, the alarm topic and the dashboard of a platform's queue.
func NewMonitor(scope constructs.Construct, id string, props *MonitorProps) Monitor {
	if props == nil {
		props = &MonitorProps{}
	}
	mustHavePlatformAndQueue("trainq.Monitor", scope, id, props.Platform, props.Queue)
	p := props.Platform
	c := constructs.NewConstruct(scope, jsii.String(id))
	m := &monitor{Construct: c, p: p, queueName: props.Queue.JobQueueName(), alarms: map[string]awscloudwatch.IAlarm{}}
	m.topic = props.AlarmTopic
	if m.topic == nil {
		m.topic = newAlarmTopic(c, p)
	}
	m.dlq = newDeadLetterQueue(c, "EventDeadLetterQueue")
	files := map[string][]byte{contract.PlatformFileName: p.JSON()}
	env := map[string]string{contract.EnvJobQueue: *props.Queue.JobQueueArn()}

	obs := newGoFunction(constructs.NewConstruct(c, jsii.String("Observer")), goFunctionProps{
		functionName:  p.ObserverFunctionName(),
		description:   fmt.Sprintf("trainq %s: turns Batch job events of %s into CloudWatch metrics", p.Name, p.JobQueueName()),
		pkg:           ObserverPackage,
		files:         files,
		code:          props.ObserverCode,
		environment:   env,
		timeout:       awscdk.Duration_Seconds(jsii.Number(10)),
		memoryMB:      128,
		retentionDays: p.Monitoring.LogRetentionDays,
	})
	m.observer = obs.fn
	m.rule = awsevents.NewRule(c, jsii.String("JobEvents"), &awsevents.RuleProps{
		Description: jsii.String("Batch service-job state changes of " + p.JobQueueName()),
		EventPattern: &awsevents.EventPattern{
			Source:     jsii.Strings(contract.BatchEventSource),
			DetailType: jsii.Strings(contract.BatchServiceJobEvent),
			Detail:     &map[string]interface{}{"jobQueue": []interface{}{props.Queue.JobQueueArn()}},
		},
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(obs.fn, &awseventstargets.LambdaFunctionProps{
			DeadLetterQueue: m.dlq,
			RetryAttempts:   jsii.Number(2),
			MaxEventAge:     awscdk.Duration_Hours(jsii.Number(2)),
		})},
	})

	poll := newGoFunction(constructs.NewConstruct(c, jsii.String("Poller")), goFunctionProps{
		functionName:  p.PollerFunctionName(),
		description:   fmt.Sprintf("trainq %s: writes backlog and capacity metrics of %s every minute", p.Name, p.JobQueueName()),
		pkg:           PollerPackage,
		files:         files,
		code:          props.PollerCode,
		environment:   env,
		timeout:       awscdk.Duration_Seconds(jsii.Number(50)),
		memoryMB:      256,
		retentionDays: p.Monitoring.LogRetentionDays,
	})
	m.poller = poll.fn
	grantPollerPermissions(poll, props.Queue)
	awsevents.NewRule(c, jsii.String("EveryMinute"), &awsevents.RuleProps{
		Description: jsii.String("Polls the queue snapshot of " + p.JobQueueName() + " every minute"),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(1))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(poll.fn, &awseventstargets.LambdaFunctionProps{
			RetryAttempts: jsii.Number(0),
			MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(1)),
		})},
	})

	m.addAlarms(props.Submitter)
	m.dashboard = m.newDashboard(props.Submitter)
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

// newAlarmTopic is an SNS topic encrypted with a rotating customer-managed
// key, TLS-only, with the platform's e-mail subscriptions. A topic policy
// replaces SNS's default one, so the topic allows CloudWatch to publish
// itself, and the key lets CloudWatch encrypt the notifications: both only
// for this account's alarms of this platform (aws:SourceAccount,
// aws:SourceArn), as the CloudWatch user guide ("Using Amazon SNS topics for
// alarm actions") and the SNS developer guide ("Enable compatibility between
// event sources from AWS services and encrypted topics") describe.
func newAlarmTopic(scope constructs.Construct, p *platform.Platform) awssns.Topic {
	stack := awscdk.Stack_Of(scope)
	fromAlarms := &map[string]interface{}{
		"StringEquals": map[string]interface{}{"aws:SourceAccount": stack.Account()},
		"ArnLike": map[string]interface{}{"aws:SourceArn": stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("cloudwatch"), Resource: jsii.String("alarm"), ResourceName: jsii.String(alarmNamePrefix(p) + "*"),
			ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
		})},
	}
	key := awskms.NewKey(scope, jsii.String("AlarmKey"), &awskms.KeyProps{
		Description:       jsii.String("Encrypts the trainq " + p.Name + " alarm topic"),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsEncrypt"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"),
		Conditions: fromAlarms,
	}), nil)
	topic := awssns.NewTopic(scope, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String("trainq " + p.Name + " alarms"),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsPublish"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("sns:Publish"),
		Resources:  &[]*string{topic.TopicArn()},
		Conditions: fromAlarms,
	}))
	for _, email := range p.Monitoring.AlarmEmails {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(email), nil))
	}
	cdknag.NagSuppressions_AddResourceSuppressions(key, &[]*cdknag.NagPackSuppression{
		{
			Id:        jsii.String("AwsSolutions-IAM5"),
			AppliesTo: &[]interface{}{"Resource::*"},
			Reason:    jsii.String("In a key policy, Resource * means this key only."),
		},
		{
			Id:        jsii.String("AwsSolutions-IAM5"),
			AppliesTo: &[]interface{}{"Action::kms:GenerateDataKey*"},
			Reason:    jsii.String("kms:GenerateDataKey* is the action family the SNS developer guide names for services publishing to encrypted topics; it is allowed to this platform's alarms only."),
		},
	}, jsii.Bool(false))
	return topic
}

func (m *monitor) AlarmTopic() awssns.ITopic               { return m.topic }
func (m *monitor) Alarms() map[string]awscloudwatch.IAlarm { return m.alarms }
func (m *monitor) Dashboard() awscloudwatch.Dashboard      { return m.dashboard }
func (m *monitor) Observer() awslambda.Function            { return m.observer }
func (m *monitor) Poller() awslambda.Function              { return m.poller }
func (m *monitor) EventRule() awsevents.Rule               { return m.rule }

func (m *monitor) Metric(metric metrics.Metric, dims map[string]string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	names := []string{metrics.Queue}
	dm := map[string]*string{metrics.Queue: m.queueName}
	for k, v := range dims {
		names = append(names, k)
		dm[k] = jsii.String(v)
	}
	if !metric.HasDimensions(names...) {
		panic(fmt.Sprintf("trainq.Monitor: metric %s is not emitted with dimensions %v; it has %v", metric.Name, names, metric.DimensionSets))
	}
	props := &awscloudwatch.MetricProps{
		Namespace:     jsii.String(metrics.Namespace),
		MetricName:    jsii.String(metric.Name),
		DimensionsMap: &dm,
	}
	if opts != nil {
		props.Statistic = opts.Statistic
		props.Period = opts.Period
		props.Label = opts.Label
		props.Color = opts.Color
	}
	return awscloudwatch.NewMetric(props)
}
