package main

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/platform"
)

// The vision team's account and Region, and the pool the platform team set
// aside for it there: 16 × ml.p4d.24xlarge, quota-managed.
const (
	account = "123456789012"
	region  = "us-east-1"
	poolArn = "arn:aws:batch:us-east-1:123456789012:service-environment/vision-gpu-pool"
)

// NewVisionStack is the vision team's training stack.
func NewVisionStack(scope constructs.Construct, id string, props *awscdk.StackProps) awscdk.Stack {
	stack := awscdk.NewStack(scope, jsii.String(id), props)

	// The vision team's platform description: its pool, classes and teams.
	p := &platform.Platform{
		Name:  "vision",
		Pools: []platform.Pool{{InstanceType: "ml.p4d.24xlarge", Instances: 16}},
		Teams: []platform.Team{
			{Name: "detection", Capacity: []platform.Pool{{InstanceType: "ml.p4d.24xlarge", Instances: 10}}},
			{Name: "segmentation", Capacity: []platform.Pool{{InstanceType: "ml.p4d.24xlarge", Instances: 6}}, Sharing: platform.StrategyLend},
		},
	}
	p.ApplyDefaults()

	pool := tq.FromCapacityPoolArn(stack, "VisionPool", poolArn, true)

	// The jobs read datasets and write models in the team's bucket.
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

	queue := tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
		Pool: pool, ExecutionRole: role, JobQueueName: "vision-training",
	})
	for _, team := range p.Teams {
		queue.AddQuotaShare("Share-"+team.Name, &tq.QuotaShareProps{
			QuotaShareName: team.Name,
			Capacity:       []tq.InstanceCapacity{{InstanceType: team.Capacity[0].InstanceType, Instances: team.Capacity[0].Instances}},
			Strategy:       team.Sharing,
		})
	}

	submitter := tq.NewSubmitter(stack, "Submitter", &tq.SubmitterProps{Platform: p, Queue: queue})
	// The team's pipeline submits research jobs through the class alias.
	pipeline := awsiam.NewRole(stack, jsii.String("Pipeline"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil),
	})
	submitter.GrantSubmit(pipeline, "research")

	// Alarms go to the team's own on-call topic.
	onCall := awssns.NewTopic(stack, jsii.String("OnCall"), &awssns.TopicProps{EnforceSSL: jsii.Bool(true)})
	tq.NewMonitor(stack, "Monitor", &tq.MonitorProps{
		Platform: p, Queue: queue, Submitter: submitter, AlarmTopic: onCall,
	})
	return stack
}
