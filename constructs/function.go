package constructs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/trainq/trainq/platform"
)

// goFunctionProps configures one of trainq's Go functions.
type goFunctionProps struct {
	functionName string
	nameProp     string // the prop that sets functionName, for messages
	description  string
	// pkg is the Go package of the function's main; files are placed
	// beside its bootstrap (e.g. platform.json).
	pkg           string
	files         map[string][]byte
	code          awslambda.Code
	environment   map[string]*string
	timeout       awscdk.Duration
	memoryMB      int
	retentionDays int
	deadLetter    awssqs.IQueue
	// reservedConcurrency, when not 0, is the function's reserved
	// concurrency: at most that many runs at a time.
	reservedConcurrency int
	// dropFailedEvents: an asynchronous invocation that fails or is
	// throttled is not retried (0 retries, kept at most a minute), for a
	// scheduled function whose next run does the work again.
	dropFailedEvents bool
}

// goFunction is a function with its own role and log group: the role may
// write to that log group and nothing else until the caller grants more.
type goFunction struct {
	fn   awslambda.Function
	role awsiam.Role
	logs awslogs.LogGroup
}

func newGoFunction(scope constructs.Construct, props goFunctionProps) goFunction {
	// Lambda assumes the role for functions of this account only
	// (aws:SourceAccount; Lambda developer guide, "AWS managed policies for
	// Lambda": confused deputy prevention in a service role's trust policy).
	role := awsiam.NewRole(scope, jsii.String("ServiceRole"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), &awsiam.ServicePrincipalOpts{
			Conditions: &map[string]interface{}{
				"StringEquals": map[string]interface{}{"aws:SourceAccount": awscdk.Stack_Of(scope).Account()},
			},
		}),
		Description: jsii.String("Role of the " + props.functionName + " function"),
	})
	logs := awslogs.NewLogGroup(scope, jsii.String("Logs"), &awslogs.LogGroupProps{
		LogGroupName:  jsii.String("/aws/lambda/" + props.functionName),
		Retention:     retention(scope, props.retentionDays),
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	logs.GrantWrite(role)
	env := map[string]*string{}
	for k, v := range props.environment {
		env[k] = v
	}
	code, cleanup := functionCode(scope, fmt.Sprintf("trainq function %s", props.functionName), props.code, props.pkg, props.files)
	defer cleanup()
	fnProps := &awslambda.FunctionProps{
		FunctionName: jsii.String(props.functionName),
		Description:  jsii.String(props.description),
		Runtime:      awslambda.Runtime_PROVIDED_AL2023(),
		Architecture: awslambda.Architecture_ARM_64(),
		Handler:      jsii.String("bootstrap"),
		Code:         code,
		Role:         role,
		LogGroup:     logs,
		Timeout:      props.timeout,
		MemorySize:   jsii.Number(props.memoryMB),
		Environment:  &env,
	}
	if props.deadLetter != nil {
		fnProps.DeadLetterQueue = props.deadLetter
		fnProps.RetryAttempts = jsii.Number(2)
		fnProps.MaxEventAge = awscdk.Duration_Hours(jsii.Number(6))
	}
	if props.reservedConcurrency > 0 {
		fnProps.ReservedConcurrentExecutions = jsii.Number(props.reservedConcurrency)
	}
	if props.dropFailedEvents {
		fnProps.RetryAttempts = jsii.Number(0)
		fnProps.MaxEventAge = awscdk.Duration_Minutes(jsii.Number(1))
	}
	fn := awslambda.NewFunction(scope, jsii.String("Function"), fnProps)
	claimName(fn, "Lambda function", props.functionName, props.nameProp)
	return goFunction{fn: fn, role: role, logs: logs}
}

// suppressWildcards records, on a function's role and its policies, why
// each wildcard resource that a pattern (a regular expression over
// cdk-nag's spelling of the resource) matches is needed.
func (f goFunction) suppressWildcards(reasons map[string]string) {
	var ss []*cdknag.NagPackSuppression
	patterns := make([]string, 0, len(reasons))
	for p := range reasons {
		patterns = append(patterns, p)
	}
	sort.Strings(patterns)
	for _, p := range patterns {
		ss = append(ss, nagWildcard(p, reasons[p]))
	}
	cdknag.NagSuppressions_AddResourceSuppressions(f.role, &ss, jsii.Bool(true))
}

// newDeadLetterQueue is an encrypted, TLS-only queue that keeps failed
// asynchronous invocations for 14 days.
func newDeadLetterQueue(scope constructs.Construct, id string) awssqs.Queue {
	q := awssqs.NewQueue(scope, jsii.String(id), &awssqs.QueueProps{
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		EnforceSSL:      jsii.Bool(true),
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
	})
	cdknag.NagSuppressions_AddResourceSuppressions(q, &[]*cdknag.NagPackSuppression{{
		Id:     jsii.String("AwsSolutions-SQS3"),
		Reason: jsii.String("This queue is itself a dead-letter queue."),
	}}, jsii.Bool(true))
	return q
}

// retentions maps CloudWatch Logs retentions in days to the CDK's names.
var retentions = map[int]awslogs.RetentionDays{
	1: awslogs.RetentionDays_ONE_DAY, 3: awslogs.RetentionDays_THREE_DAYS, 5: awslogs.RetentionDays_FIVE_DAYS,
	7: awslogs.RetentionDays_ONE_WEEK, 14: awslogs.RetentionDays_TWO_WEEKS, 30: awslogs.RetentionDays_ONE_MONTH,
	60: awslogs.RetentionDays_TWO_MONTHS, 90: awslogs.RetentionDays_THREE_MONTHS, 120: awslogs.RetentionDays_FOUR_MONTHS,
	150: awslogs.RetentionDays_FIVE_MONTHS, 180: awslogs.RetentionDays_SIX_MONTHS, 365: awslogs.RetentionDays_ONE_YEAR,
	400: awslogs.RetentionDays_THIRTEEN_MONTHS, 545: awslogs.RetentionDays_EIGHTEEN_MONTHS, 731: awslogs.RetentionDays_TWO_YEARS,
	1096: awslogs.RetentionDays_THREE_YEARS, 1827: awslogs.RetentionDays_FIVE_YEARS, 2192: awslogs.RetentionDays_SIX_YEARS,
	2557: awslogs.RetentionDays_SEVEN_YEARS, 2922: awslogs.RetentionDays_EIGHT_YEARS, 3288: awslogs.RetentionDays_NINE_YEARS,
	3653: awslogs.RetentionDays_TEN_YEARS,
}

// retention converts days to a CloudWatch Logs retention; 0 means the
// default. Days CloudWatch Logs does not accept are a validation error.
func retention(scope constructs.Construct, days int) awslogs.RetentionDays {
	if days == 0 {
		days = platform.DefaultLogRetentionDays
	}
	r, ok := retentions[days]
	if !ok {
		addError(scope, "trainq: LogRetentionDays is %d; want one of CloudWatch Logs' retentions (%s)", days, retentionList())
		return retentions[platform.DefaultLogRetentionDays]
	}
	return r
}

func retentionList() string {
	var out []string
	for _, d := range sortedKeys(retentions) {
		out = append(out, fmt.Sprint(d))
	}
	return strings.Join(out, ", ")
}
