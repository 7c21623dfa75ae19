package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/platform"
)

// The vision team's account and Region, and the pool the platform team set
// aside for it there: 16 × ml.p4d.24xlarge and 8 × ml.p5.48xlarge,
// quota-managed.
const (
	account = "123456789012"
	region  = "us-east-1"
	poolArn = "arn:aws:batch:us-east-1:123456789012:service-environment/vision-gpu-pool"
)

// NewVisionStack is the vision team's training stack.
func NewVisionStack(scope constructs.Construct, id string, props *awscdk.StackProps) awscdk.Stack {
	stack := awscdk.NewStack(scope, jsii.String(id), props)

	// The pool is the platform team's: imported with its limits, not created.
	pool := tq.FromCapacityPoolAttributes(stack, "VisionPool", &tq.CapacityPoolAttributes{
		ServiceEnvironmentArn: poolArn,
		InstanceTypes: []tq.InstanceCapacity{
			{InstanceType: "ml.p4d.24xlarge", Instances: 16},
			{InstanceType: "ml.p5.48xlarge", Instances: 8},
		},
	})

	// The jobs read datasets and write models in the team's bucket, and
	// nothing else.
	data := awss3.NewBucket(stack, jsii.String("Data"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	role := tq.NewExecutionRole(stack, "ExecutionRole", &tq.ExecutionRoleProps{
		Read:  []tq.S3Location{{Bucket: data, Prefix: "datasets/"}},
		Write: []tq.S3Location{{Bucket: data, Prefix: "models/"}},
	})

	// The team's own queue on that pool, with a quota share per sub-team.
	queue := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
		ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}},
		ExecutionRole:       role,
		JobQueueName:        "vision-training",
	})
	queue.AddQuotaShare("Detection", &tq.QuotaShareProps{
		QuotaShareName: "detection",
		Capacity: []tq.InstanceCapacity{
			{InstanceType: "ml.p4d.24xlarge", Instances: 10},
			{InstanceType: "ml.p5.48xlarge", Instances: 4},
		},
	})
	queue.AddQuotaShare("Segmentation", &tq.QuotaShareProps{
		QuotaShareName: "segmentation",
		Capacity: []tq.InstanceCapacity{
			{InstanceType: "ml.p4d.24xlarge", Instances: 6},
			{InstanceType: "ml.p5.48xlarge", Instances: 4},
		},
		Strategy: platform.StrategyLend,
	})

	// The submission function: classes production, research and sweep (the
	// default), teams the queue's shares. Its name, its alarms' names and the
	// tag on its jobs start with the platform name.
	// Research jobs that wait 20 minutes on a full instance type may move to
	// the other one, if it has room for their team.
	classes := platform.DefaultClasses()
	for i := range classes {
		if classes[i].Name == "research" {
			classes[i].Reroute = &platform.Reroute{AfterSeconds: 1200, InstanceTypes: []string{"ml.p4d.24xlarge", "ml.p5.48xlarge"}}
		}
	}
	vision := tq.PlatformProps{PlatformName: "vision", Classes: classes}
	submitter := tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Queue: queue, PlatformProps: vision})

	// The re-router that moves them, every 5 minutes, at most 10 moves a
	// minute (the account's Batch submissions are shared with other teams).
	rerouter := tq.NewRerouter(stack, "Rerouter", &tq.RerouterProps{Queue: queue, PlatformProps: vision,
		Rerouting: &platform.Rerouting{EveryMinutes: 5, MaxMovesPerMinute: 10}})

	// The detection sub-team's pipeline submits research jobs for detection
	// only, through the (research, detection) alias.
	pipeline := awsiam.NewRole(stack, jsii.String("Pipeline"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil),
	})
	submitter.GrantSubmit(pipeline, "research", "detection")

	// Monitoring, layer by layer: the pipeline that produces the metrics,
	// alarms on the team's own on-call topic, and a dashboard of trainq's
	// widgets.
	metrics := tq.NewMonitoringPipeline(stack, "Metrics", &tq.MonitoringPipelineProps{Queue: queue, PlatformProps: vision})
	onCall := awssns.NewTopic(stack, jsii.String("OnCall"), &awssns.TopicProps{EnforceSSL: jsii.Bool(true)})
	alarms := tq.NewAlarmFactory(stack, &tq.AlarmFactoryProps{AlarmNamePrefix: "vision-", Actions: tq.NotifyTopic(onCall)})
	alarms.AddQueueAlarms(queue, submitter.Classes(), &tq.QueueAlarmThresholds{
		MaxWaitSeconds:   map[string]int{"production": 600},
		FailedJobClasses: []string{"production", "research"},
	})
	alarms.AddSubmitterAlarms(queue, submitter)
	alarms.AddPipelineAlarms(metrics)
	alarms.AddRerouterAlarms(rerouter, nil)

	widgets := tq.WidgetPropsFromPlatform(submitter.Platform())
	rows := [][]awscloudwatch.IWidget{
		tq.CapacityWidgets(queue, widgets),
		tq.BacklogWidgets(queue, widgets),
		append(tq.SubmitterWidgets(queue, submitter), tq.AlarmStatusWidget("Vision alarms", alarms.Ordered())),
		tq.RerouterWidgets(rerouter),
	}
	dashboard := make([]*[]awscloudwatch.IWidget, len(rows))
	for i := range rows {
		dashboard[i] = &rows[i]
	}
	awscloudwatch.NewDashboard(stack, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String("vision-training"),
		Widgets:       &dashboard,
	})
	return stack
}
