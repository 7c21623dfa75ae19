package constructs

import (
	"regexp"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/customresources"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/trainq/trainq/platform"
)

// TrainingLogRetentionProps configures TrainingLogRetention.
type TrainingLogRetentionProps struct {
	// RetentionDays is the retention of SageMaker's training log group
	// (SageMakerTrainingLogGroup), one of CloudWatch Logs' retentions.
	// Default: platform.DefaultTrainingLogRetentionDays (400).
	RetentionDays int
	// FunctionLogRetentionDays is the retention of the log group of the
	// function that makes the calls. Default:
	// platform.DefaultLogRetentionDays (30).
	FunctionLogRetentionDays int
}

// TrainingLogRetention gives SageMaker's training log group,
// /aws/sagemaker/TrainingJobs, a retention: SageMaker creates the group on
// an account's first training job, without one, so training logs would be
// kept forever. On deploy it creates the group when it is missing (an
// existing group is kept as it is) and sets the retention
// (logs:PutRetentionPolicy); the function that calls CloudWatch Logs
// (CDK's AwsCustomResource) may do exactly that to that group and nothing
// else. Deleting the construct leaves the group and its retention: the
// group is the account's and region's, shared by every SageMaker training
// job there, not the stack's.
type TrainingLogRetention interface {
	constructs.Construct
	// Role is the role of the function that makes the calls.
	Role() awsiam.IRole
}

type trainingLogRetention struct {
	constructs.Construct
	role awsiam.Role
}

func (r *trainingLogRetention) Role() awsiam.IRole { return r.role }

// NewTrainingLogRetention creates the group when missing and sets its
// retention.
func NewTrainingLogRetention(scope constructs.Construct, id string, props *TrainingLogRetentionProps) TrainingLogRetention {
	if props == nil {
		props = &TrainingLogRetentionProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	days := props.RetentionDays
	if days == 0 {
		days = platform.DefaultTrainingLogRetentionDays
	}
	retention(c, days) // validates days
	stack := awscdk.Stack_Of(c)
	group := stack.FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("logs"), Resource: jsii.String("log-group"),
		ResourceName: jsii.String(SageMakerTrainingLogGroup), ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
	// The role is the construct's own (not the one AwsCustomResource would
	// make), trusted by Lambda for this account only, and allowed the two
	// calls on the group's two ARN forms (CloudWatch Logs reports a group
	// as log-group:NAME and log-group:NAME:*).
	role := awsiam.NewRole(c, jsii.String("Role"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), &awsiam.ServicePrincipalOpts{
			Conditions: &map[string]interface{}{
				"StringEquals": map[string]interface{}{"aws:SourceAccount": stack.Account()},
			},
		}),
		Description: jsii.String("Sets the retention of SageMaker's training log group " + SageMakerTrainingLogGroup),
	})
	role.AddToPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("logs:CreateLogGroup", "logs:PutRetentionPolicy"),
		Resources: &[]*string{group, jsii.String(*group + ":*")},
	}))
	logs := awslogs.NewLogGroup(c, jsii.String("Logs"), &awslogs.LogGroupProps{
		Retention:     retention(c, props.FunctionLogRetentionDays),
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	logs.GrantWrite(role)
	name := jsii.String(SageMakerTrainingLogGroup)
	create := customresources.NewAwsCustomResource(c, jsii.String("Group"), &customresources.AwsCustomResourceProps{
		// CreateLogGroup answers ResourceAlreadyExistsException for a
		// group that exists (CloudWatch Logs API reference): the group
		// SageMaker made is kept as it is.
		OnCreate: &customresources.AwsSdkCall{
			Service: jsii.String("CloudWatchLogs"), Action: jsii.String("createLogGroup"),
			Parameters:               map[string]interface{}{"logGroupName": name},
			PhysicalResourceId:       customresources.PhysicalResourceId_Of(name),
			IgnoreErrorCodesMatching: jsii.String("ResourceAlreadyExistsException"),
		},
		Role:                role,
		LogGroup:            logs,
		InstallLatestAwsSdk: jsii.Bool(false),
		ResourceType:        jsii.String("Custom::SageMakerTrainingLogGroup"),
		RemovalPolicy:       awscdk.RemovalPolicy_RETAIN,
	})
	put := &customresources.AwsSdkCall{
		Service: jsii.String("CloudWatchLogs"), Action: jsii.String("putRetentionPolicy"),
		Parameters:         map[string]interface{}{"logGroupName": name, "retentionInDays": days},
		PhysicalResourceId: customresources.PhysicalResourceId_Of(jsii.String(SageMakerTrainingLogGroup + ":retention")),
	}
	set := customresources.NewAwsCustomResource(c, jsii.String("Retention"), &customresources.AwsCustomResourceProps{
		OnCreate:            put,
		OnUpdate:            put,
		Role:                role,
		LogGroup:            logs,
		InstallLatestAwsSdk: jsii.Bool(false),
		ResourceType:        jsii.String("Custom::SageMakerTrainingLogRetention"),
		RemovalPolicy:       awscdk.RemovalPolicy_RETAIN,
	})
	set.Node().AddDependency(create)
	// CloudFormation hands a custom resource's properties to its function
	// as strings (CloudFormation user guide, "Custom resources": booleans
	// arrive as "true" and "false", which the function reads), and the
	// registry's AWS::CloudFormation::CustomResource schema allows no
	// boolean: written as the string the function receives.
	for _, r := range []customresources.AwsCustomResource{create, set} {
		cfn := r.Node().FindChild(jsii.String("Resource")).Node().DefaultChild().(awscdk.CfnResource)
		cfn.AddPropertyOverride(jsii.String("InstallLatestAwsSdk"), jsii.String("false"))
	}
	cdknag.NagSuppressions_AddResourceSuppressions(role, &[]*cdknag.NagPackSuppression{
		nagWildcard(`.*:log-group:`+regexp.QuoteMeta(SageMakerTrainingLogGroup)+`:\*`, "The ARN form log-group:NAME:* that CloudWatch Logs reports for SageMaker's training log group itself."),
	}, jsii.Bool(true))
	return &trainingLogRetention{Construct: c, role: role}
}
