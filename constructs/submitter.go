package constructs

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Environment variables the trainq functions read.
const (
	submitterTimeoutSecs = 60
)

// SubmitterProps configures a Submitter.
type SubmitterProps struct {
	// Platform is the validated platform description; it is bundled with the
	// function, names it (Platform.SubmitFunctionName) and gives one alias
	// per class. Required.
	Platform *platform.Platform
	// Queue is the queue jobs go to; the function may submit to, and describe,
	// cancel and re-prioritize jobs of, this queue only. Required.
	Queue ITrainingQueue
	// Code is prebuilt function code: a folder with bootstrap and
	// platform.json. Default: built from SubmitterPackage during synthesis.
	Code awslambda.Code
}

// Submitter is the submission function with one alias per class: a caller
// may submit a class only if granted invoke on that class's alias.
type Submitter interface {
	constructs.Construct
	// Function is the submission function.
	Function() awslambda.Function
	// Alias is the alias of class; it panics for an unknown class.
	Alias(class string) awslambda.Alias
	// DeadLetterQueue keeps asynchronous submissions that failed every retry.
	DeadLetterQueue() awssqs.Queue
	// GrantSubmit lets grantee submit jobs of class, by invoking the class's
	// alias. It panics for a class the platform does not have.
	GrantSubmit(grantee awsiam.IGrantable, class string) awsiam.Grant
	// GrantSubmitToRoleArn lets the IAM role roleArn submit jobs of class
	// through the class alias's resource policy alone: the role itself is not
	// modified, so it may belong to another account or to no stack. A role of
	// another account also needs lambda:InvokeFunction on the alias in its
	// own account's identity policy. It panics for a class the platform does
	// not have.
	GrantSubmitToRoleArn(roleArn string, class string)
	// GrantOperate lets grantee invoke the function unqualified, which takes
	// the class from the request: for operators only.
	GrantOperate(grantee awsiam.IGrantable) awsiam.Grant
	// MetricErrors is the function's error count.
	MetricErrors(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricThrottles is the function's throttle count.
	MetricThrottles(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricDuration is the function's duration.
	MetricDuration(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
}

type submitter struct {
	constructs.Construct
	fn      awslambda.Function
	dlq     awssqs.Queue
	aliases map[string]awslambda.Alias
	classes []string
}

// NewSubmitter creates the submission function, its class aliases, its
// dead-letter queue and its least-privilege role.
func NewSubmitter(scope constructs.Construct, id string, props *SubmitterProps) Submitter {
	if props == nil {
		props = &SubmitterProps{}
	}
	mustHavePlatformAndQueue("trainq.Submitter", scope, id, props.Platform, props.Queue)
	p := props.Platform
	c := constructs.NewConstruct(scope, jsii.String(id))
	dlq := newDeadLetterQueue(c, "DeadLetterQueue")
	gf := newGoFunction(c, goFunctionProps{
		functionName: p.SubmitFunctionName(),
		description:  fmt.Sprintf("trainq %s: submits SageMaker training jobs to %s", p.Name, p.JobQueueName()),
		pkg:          SubmitterPackage,
		files:        map[string][]byte{contract.PlatformFileName: p.JSON()},
		code:         props.Code,
		environment: map[string]string{
			contract.EnvJobQueue:         *props.Queue.JobQueueArn(),
			contract.EnvExecutionRoleARN: *props.Queue.ExecutionRole().RoleArn(),
		},
		timeout:       awscdk.Duration_Seconds(jsii.Number(submitterTimeoutSecs)),
		memoryMB:      256,
		retentionDays: p.Monitoring.LogRetentionDays,
		deadLetter:    dlq,
	})
	grantSubmitterPermissions(gf, p.Name, props.Queue)

	s := &submitter{Construct: c, fn: gf.fn, dlq: dlq, aliases: map[string]awslambda.Alias{}}
	version := gf.fn.CurrentVersion()
	for _, class := range p.ClassNames() {
		s.aliases[class] = awslambda.NewAlias(c, jsii.String("Alias-"+class), &awslambda.AliasProps{
			AliasName:   jsii.String(class),
			Version:     version,
			Description: jsii.String("Submits " + class + " jobs: invoke permission on this alias grants the class"),
		})
		s.classes = append(s.classes, class)
	}
	return s
}

// grantSubmitterPermissions gives the function's role what it needs, on the
// platform's queue and its jobs only (Service Authorization Reference, AWS
// Batch):
//   - SubmitServiceJob acts on the queue and on the new service job, and
//     needs batch:TagResource for the tags it sets; all three only with the
//     platform's tag in the request (aws:RequestTag).
//   - TerminateServiceJob and UpdateServiceJob act on a service job, and only
//     on jobs carrying the platform's tag (aws:ResourceTag): not on other
//     platforms' or other applications' jobs of the account.
//   - DescribeServiceJob and ListServiceJobs support no resource-level
//     permission and only read; the function checks that a job belongs to
//     the platform's queue before it acts on it.
func grantSubmitterPermissions(f goFunction, platformName string, queue ITrainingQueue) {
	role := f.role
	jobs := serviceJobsArn(queue.JobQueueArn())
	requestTag := &map[string]interface{}{"StringEquals": map[string]interface{}{"aws:RequestTag/" + contract.TagPlatform: platformName}}
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("batch:SubmitServiceJob"),
		Resources:  &[]*string{queue.JobQueueArn(), jobs},
		Conditions: requestTag,
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("batch:TagResource"),
		Resources:  &[]*string{jobs},
		Conditions: requestTag,
	}))
	queue.ExecutionRole().GrantPassRole(role)
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("batch:GetJobQueueSnapshot"),
		Resources: &[]*string{queue.JobQueueArn()},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("batch:TerminateServiceJob", "batch:UpdateServiceJob"),
		Resources:  &[]*string{jobs},
		Conditions: &map[string]interface{}{"StringEquals": map[string]interface{}{"aws:ResourceTag/" + contract.TagPlatform: platformName}},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("batch:DescribeServiceJob", "batch:ListServiceJobs"),
		Resources: jsii.Strings("*"),
	}))
	f.suppressWildcards(map[string]string{
		`arn:.*:batch:.*:service-job/\*`: "Service jobs get their ids when submitted, so are not known in advance; submitting and tagging need the platform's tag in the request, cancelling and re-prioritizing the platform's tag on the job.",
		`\*`:                             "batch:DescribeServiceJob and batch:ListServiceJobs support no resource-level permission (Service Authorization Reference) and only read.",
	})
}

func (s *submitter) Function() awslambda.Function  { return s.fn }
func (s *submitter) DeadLetterQueue() awssqs.Queue { return s.dlq }

func (s *submitter) Alias(class string) awslambda.Alias {
	a, ok := s.aliases[class]
	if !ok {
		names := append([]string{}, s.classes...)
		sort.Strings(names)
		panic(fmt.Sprintf("trainq.Submitter %s: class is %q; want one of the platform's classes (%s)", *s.Node().Path(), class, strings.Join(names, ", ")))
	}
	return a
}

func (s *submitter) GrantSubmit(grantee awsiam.IGrantable, class string) awsiam.Grant {
	return s.Alias(class).GrantInvoke(grantee)
}

func (s *submitter) GrantSubmitToRoleArn(roleArn string, class string) {
	if !isToken(roleArn) && !roleARNPattern.MatchString(roleArn) {
		panic(fmt.Sprintf("trainq.Submitter %s: roleArn is %q; want arn:aws:iam::ACCOUNT:role/NAME", *s.Node().Path(), roleArn))
	}
	alias := s.Alias(class)
	id := fmt.Sprintf("Invoke%x", sha256.Sum256([]byte(roleArn)))[:6+16]
	alias.AddPermission(jsii.String(id), &awslambda.Permission{
		Principal: awsiam.NewArnPrincipal(jsii.String(roleArn)),
		Action:    jsii.String("lambda:InvokeFunction"),
	})
}

func (s *submitter) GrantOperate(grantee awsiam.IGrantable) awsiam.Grant {
	return s.fn.GrantInvoke(grantee)
}

func (s *submitter) MetricErrors(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricErrors(props)
}

func (s *submitter) MetricThrottles(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricThrottles(props)
}

func (s *submitter) MetricDuration(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricDuration(props)
}
