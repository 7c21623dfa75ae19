package constructs

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// RerouteRefusalReasons are the reasons of metrics.ReroutesRefused, in a
// fixed order: metrics.RefusalReasons, the list the re-router writes.
func RerouteRefusalReasons() []string { return metrics.RefusalReasons() }

// PagingRefusalReasons are the refusals the reroutes-refused alarm counts:
// those where AWS Batch refused a call. RATE and MAX_MOVES are the
// platform's bounds doing their work, STARTED a move Batch made moot by
// starting the job where it was, REQUEST a job too large to move (each
// logged); BOTH_STARTED has an alarm of its own (reroute-ran-twice).
func PagingRefusalReasons() []string {
	return []string{metrics.RefusedSubmit, metrics.RefusedTerminate}
}

// maxRerouterTimeoutSecs bounds the function's timeout (Lambda allows 900 s).
const maxRerouterTimeoutSecs = 900

// RerouterProps configure a Rerouter. RerouterPropsFromPlatform fills them
// from a platform description.
type RerouterProps struct {
	// Queue is the queue whose runnable jobs move: the function may submit
	// to this queue only, and terminate only jobs tagged with the
	// platform's name. Required.
	Queue ITrainingQueue
	// PlatformProps describe the platform: its name, its classes (those with
	// Reroute move, within Reroute.InstanceTypes), its teams (shares of Queue)
	// and instance types. At least one class must set Reroute.
	PlatformProps
	// Rerouting bounds the function: moves of all classes per minute and how
	// often it runs. Default: the platform file's defaults (30 moves a
	// minute, every minute).
	Rerouting *platform.Rerouting
	// ExecutionRoles are, by team name, the SageMaker execution roles the
	// teams' jobs run as (the submitter's ExecutionRoles): a moved job keeps
	// its training job's RoleArn, so the function may pass these roles, to
	// SageMaker only, and no other. A team not listed runs as the queue's
	// ExecutionRole. Default: the queue's ExecutionRole for every team.
	ExecutionRoles map[string]IExecutionRole
	// ArtifactsBucket is the platform's artifacts bucket (the submitter's
	// CheckpointBucket). The function never reads it: the door, which
	// every replacement passes before it is submitted, checks the job's S3
	// locations against the team's prefix of it, as the submission
	// function does. Default: none (locations in a bucket named like it are
	// unchecked, not refused).
	ArtifactsBucket awss3.IBucket
	// FunctionName names the function. Default: PlatformName + "-rerouter".
	FunctionName string
	// Code is prebuilt function code: a folder with bootstrap and
	// platform.json. Default: built from RerouterPackage during synthesis,
	// from trainq's own module.
	Code awslambda.Code
}

// RerouterPropsFromPlatform returns the props of p's re-router on queue.
func RerouterPropsFromPlatform(p *platform.Platform, queue ITrainingQueue) *RerouterProps {
	r := p.Rerouting
	return &RerouterProps{Queue: queue, PlatformProps: PlatformPropsFromPlatform(p), Rerouting: &r, FunctionName: p.RerouterFunctionName()}
}

// Rerouter is trainq's re-routing function: every Rerouting.EveryMinutes an
// EventBridge schedule runs it, and it moves RUNNABLE jobs of the classes
// that set Reroute, waiting past the class's threshold on an instance type
// saturated for their team, to a compatible type with headroom: the same
// training job submitted again (same class, team and priority, lineage tags)
// and then the old job terminated.
//
// One run at a time: the function's idempotency (never zero or two live
// jobs of one lineage across crashes and lost answers) assumes that no two
// runs overlap, so its reserved concurrency is 1 and its timeout is shorter
// than the schedule's period. A run that fails or is throttled is not
// retried: the next scheduled run reads the queue again.
type Rerouter interface {
	constructs.Construct
	// Function is the re-routing function.
	Function() awslambda.Function
	// FunctionArn is the function's ARN.
	FunctionArn() *string
	// ScheduleRule invokes Function every Rerouting.EveryMinutes.
	ScheduleRule() awsevents.Rule
	// Queue is the queue whose jobs move.
	Queue() ITrainingQueue
	// Platform is the platform description bundled with the function; nil
	// when the props were invalid.
	Platform() *platform.Platform
	// Classes are the classes whose jobs may move (those that set Reroute).
	Classes() []string
	// MetricJobsRerouted is the queue's JobsRerouted of class ("" for every
	// class).
	MetricJobsRerouted(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricReroutesRefused is the queue's ReroutesRefused of reason (one of
	// RerouteRefusalReasons; "" for every reason).
	MetricReroutesRefused(reason string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricErrors is the function's error count (Lambda's Errors).
	MetricErrors(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricThrottles is the function's throttle count (Lambda's Throttles).
	MetricThrottles(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricDuration is the function's duration (Lambda's Duration).
	MetricDuration(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
}

type rerouter struct {
	constructs.Construct
	fn       awslambda.Function
	schedule awsevents.Rule
	queue    ITrainingQueue
	platform *platform.Platform
	classes  []string
}

// NewRerouter creates the re-routing function, its schedule and its
// least-privilege role. Invalid props — no class that sets Reroute, bounds
// out of range, a team that is not a share of the queue — fail synthesis
// with a message naming the prop and the value.
func NewRerouter(scope constructs.Construct, id string, props *RerouterProps) Rerouter {
	if props == nil {
		props = &RerouterProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	r := &rerouter{Construct: c, queue: props.Queue}
	const what = "trainq.Rerouter"
	p, problems := describePlatform(what, &props.PlatformProps, props.Queue)
	for _, m := range problems {
		addError(c, "%s", m)
	}
	if p != nil {
		p = withRerouting(c, what, p, props.Rerouting)
	}
	name := props.FunctionName
	if name == "" {
		name = props.PlatformProps.name() + "-rerouter"
	}
	name = checkFunctionName(c, what, "FunctionName", name)
	r.platform = p
	if props.Queue == nil {
		return r
	}
	addCheck(c, checkTeamsStillShares(what, p, props.Queue, props.Teams != nil))
	every := platform.DefaultRerouteEveryMinutes
	files := map[string][]byte{}
	if p != nil {
		every = p.Rerouting.EveryMinutes
		files[contract.PlatformFileName] = p.JSON()
		for _, cl := range p.Classes {
			if cl.Reroute != nil {
				r.classes = append(r.classes, cl.Name)
			}
		}
	}
	queueName := *props.Queue.JobQueueName()
	gf := newGoFunction(c, goFunctionProps{
		functionName:        name,
		nameProp:            "FunctionName",
		description:         fmt.Sprintf("trainq %s: moves jobs of %s waiting on a saturated instance type to one with headroom, every %s", props.PlatformProps.name(), queueName, minutes(every)),
		pkg:                 RerouterPackage,
		files:               files,
		code:                props.Code,
		environment:         rerouterEnvironment(c, props, p),
		timeout:             awscdk.Duration_Seconds(jsii.Number(rerouterTimeoutSeconds(every))),
		memoryMB:            256,
		retentionDays:       props.LogRetentionDays,
		reservedConcurrency: 1,
		dropFailedEvents:    true,
	})
	grantRerouterPermissions(gf, props.PlatformProps.name(), props.Queue, teamNames(p), passedRoles(props.Queue, props.ExecutionRoles, p))
	r.fn = gf.fn
	r.schedule = awsevents.NewRule(c, jsii.String("Schedule"), &awsevents.RuleProps{
		Description: jsii.String("Runs the re-router of " + queueName + " every " + minutes(every)),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(every))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(gf.fn, &awseventstargets.LambdaFunctionProps{
			RetryAttempts: jsii.Number(0),
			MaxEventAge:   awscdk.Duration_Minutes(jsii.Number(1)),
		})},
	})
	return r
}

// rerouterEnvironment is the function's environment: the queue, and what
// its door needs to check a replacement as the submission function checks
// a request (door.DeployedEnv): the artifacts bucket when there is one and
// every team's execution role, as the submitter's environment has them.
func rerouterEnvironment(c constructs.Construct, props *RerouterProps, p *platform.Platform) map[string]*string {
	env := map[string]*string{contract.EnvJobQueue: props.Queue.JobQueueArn()}
	if props.ArtifactsBucket != nil {
		env[contract.EnvCheckpointBucket] = props.ArtifactsBucket.BucketName()
	}
	addExecutionRoleEnvironment(c, "trainq.Rerouter", env, props.Queue, props.ExecutionRoles, p)
	return env
}

// withRerouting is p with the bounds given (nil: the defaults), and at
// least one class that reroutes; a problem is a validation error on c and
// the result nil.
func withRerouting(c constructs.Construct, what string, p *platform.Platform, bounds *platform.Rerouting) *platform.Platform {
	if bounds != nil {
		p.Rerouting = *bounds
		p.ApplyDefaults()
		if err := p.Validate(); err != nil {
			addError(c, "%s: Rerouting is %+v: %s", what, *bounds, strings.ReplaceAll(err.Error(), "\n", "; "))
			return nil
		}
	}
	if !p.Reroutes() {
		addError(c, "%s: no class of Classes (%s) sets Reroute; want at least one class with Reroute (which jobs move, and to which instance types), or no Rerouter", what, strings.Join(p.ClassNames(), ", "))
		return nil
	}
	return p
}

// rerouterTimeoutSeconds is the function's timeout for a schedule of every
// minutes: 10 s shorter than the period, so that a run ends before the next
// one starts, and at most Lambda's 900 s.
func rerouterTimeoutSeconds(every int) int {
	return min(every*minute-10, maxRerouterTimeoutSecs)
}

func minutes(n int) string {
	if n == 1 {
		return "minute"
	}
	return fmt.Sprintf("%d minutes", n)
}

// grantRerouterPermissions gives the function's role what a move needs, on
// the platform's queue and jobs only (Service Authorization Reference, AWS
// Batch), as the submitter's grants do:
//   - SubmitServiceJob (on the queue, the new service job and the teams'
//     quota shares) and
//     TagResource, only with the platform's tag in the request, at
//     submission, and later only the lineage tags on the platform's jobs
//     (grantSubmitAndTag);
//   - iam:PassRole of exactly the teams' execution roles, to SageMaker only:
//     the moved job's payload keeps its RoleArn;
//   - TerminateServiceJob only of jobs tagged with the platform's name;
//   - GetJobQueueSnapshot of the queue; DescribeServiceJob and
//     ListServiceJobs, which support no resource-level permission, on "*".
//
// Nothing else: no UpdateServiceJob (a move keeps the priority), no Lambda,
// no S3 (the checkpoints stay where the job's execution role writes them).
func grantRerouterPermissions(f goFunction, platformName string, queue ITrainingQueue, teams []string, passed []IExecutionRole) {
	role := f.role
	grantSubmitAndTag(role, platformName, queue, teams, contract.LineageTags())
	for _, r := range passed {
		r.GrantPassRole(role)
	}
	grantQueueSnapshot(role, queue)
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("batch:TerminateServiceJob"),
		Resources:  &[]*string{serviceJobsArn(queue.JobQueueArn())},
		Conditions: platformJobs(platformName),
	}))
	grantDescribeAndList(role)
	f.suppressWildcards(map[string]string{
		`arn:.*:batch:.*:service-job/\*`: "Service jobs get their ids when submitted, so are not known in advance; submitting and tagging need the platform's tag in the request, terminating the moved job the platform's tag on the job.",
		`\*`:                             describeAndListReason,
	})
}

func (r *rerouter) Function() awslambda.Function { return r.fn }
func (r *rerouter) ScheduleRule() awsevents.Rule { return r.schedule }
func (r *rerouter) Queue() ITrainingQueue        { return r.queue }
func (r *rerouter) Platform() *platform.Platform { return r.platform }
func (r *rerouter) Classes() []string            { return append([]string(nil), r.classes...) }

func (r *rerouter) FunctionArn() *string {
	if r.fn == nil {
		return jsii.String("")
	}
	return r.fn.FunctionArn()
}

func (r *rerouter) MetricJobsRerouted(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return r.queue.Metric(metrics.JobsRerouted, &MetricDimensions{Class: class}, opts)
}

func (r *rerouter) MetricReroutesRefused(reason string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	if reason != "" && !containsString(RerouteRefusalReasons(), reason) {
		addError(r, "trainq.Rerouter: MetricReroutesRefused reason is %q; want one of %s, or \"\" for every reason", reason, strings.Join(RerouteRefusalReasons(), ", "))
	}
	return r.queue.Metric(metrics.ReroutesRefused, &MetricDimensions{Reason: reason}, opts)
}

func (r *rerouter) MetricErrors(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return r.fn.MetricErrors(opts)
}

func (r *rerouter) MetricThrottles(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return r.fn.MetricThrottles(opts)
}

func (r *rerouter) MetricDuration(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return r.fn.MetricDuration(opts)
}
