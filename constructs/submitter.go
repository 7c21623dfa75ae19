package constructs

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

const submitterTimeoutSecs = 60

// maxExecutionRoleEnvBytes bounds TRAINQ_EXECUTION_ROLE_ARNS, leaving room in
// Lambda's 4 KB of environment variables for the others.
const maxExecutionRoleEnvBytes = 3500

// lambdaEnvironmentBytes is Lambda's limit on a function's environment
// variables, all together.
const lambdaEnvironmentBytes = 4096

// ISubmitter is trainq's submission function: a caller submits a job of a
// class for a team by invoking the function's alias of that (class, team)
// pair, named platform.SubmitAliasName(class, team) ("research-nlp").
type ISubmitter interface {
	constructs.Construct
	// FunctionArn is the ARN of the submission function (unqualified).
	FunctionArn() *string
	// Classes are the class names.
	Classes() []string
	// Teams are the team names; each (class, team) pair has an alias.
	Teams() []string
	// DeadLetterQueue keeps asynchronous submissions that failed every
	// retry; nil when it is not known (an imported submitter without one).
	DeadLetterQueue() awssqs.IQueue
	// GrantSubmit lets grantee, an IAM role, submit jobs of class for team,
	// and only those: what a pipeline or a scientist's role needs. It grants
	// invoking the (class, team) alias and records the grant where the
	// function reads who may act for which pair (contract.EnvGrants, beside
	// the platform file's submitters): the function decides from the
	// caller's verified role, so a grant IAM alone would give (lambda:* on
	// *) gives nothing. The function applies the class's priority band,
	// runtime and retries, runs the job as the team's execution role, and
	// describes, cancels and re-prioritizes only jobs of the pairs granted.
	// Call it once per pair. An unknown class or team, or a grantee that is
	// not a role, is a validation error. On an imported submitter
	// (FromSubmitterAttributes) only the invoke permission is granted: list
	// the role in that platform's submission.submitters.
	GrantSubmit(grantee awsiam.IGrantable, class, team string) awsiam.Grant
	// GrantOperate makes grantee, an IAM role, an operator: invoking the
	// function unqualified, acting for every class and team, every job. It
	// grants invoking the function and records the role as an operator
	// (contract.EnvGrants), like submission.operators. On an imported
	// submitter only the invoke permission is granted.
	GrantOperate(grantee awsiam.IGrantable) awsiam.Grant
	// MetricErrors is the function's error count (Lambda's Errors).
	MetricErrors(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricThrottles is the function's throttle count (Lambda's Throttles).
	MetricThrottles(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricDuration is the function's duration (Lambda's Duration).
	MetricDuration(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
}

// SubmitterProps configures a Submitter. SubmitterPropsFromPlatform fills
// them from a platform description.
type SubmitterProps struct {
	// Queue is the queue jobs go to; the function may submit to, and describe,
	// cancel and re-prioritize jobs of, this queue only. Required.
	Queue ITrainingQueue
	// PlatformProps describe the platform: its name, classes (one alias
	// each), teams (which must be shares of Queue) and instance types.
	PlatformProps
	// FunctionName names the function. Default: PlatformName + "-submit".
	FunctionName string
	// ExecutionRoles are, by team name, the SageMaker execution roles each
	// team's jobs run as; the function may pass only these (iam:PassRole,
	// to SageMaker only) and pins each team's own. A team not listed runs
	// as the queue's ExecutionRole. Default: the queue's ExecutionRole for
	// every team (no isolation between the teams' data).
	ExecutionRoles map[string]IExecutionRole
	// CheckpointBucket is the bucket under whose team prefixes the function
	// puts the checkpoints of each job of a class with Checkpoints:
	// SageMaker's CheckpointConfig S3Uri s3://BUCKET/<team>/checkpoints/<job
	// name>/, unless the caller set one (contract.EnvCheckpointBucket). Each
	// team's execution role must reach its prefix <team>/ (the platform
	// stack's do); the function itself gets no access to the bucket.
	// Default: none (no job gets a checkpoint location).
	CheckpointBucket awss3.IBucket
	// Ledger is the job ledger the function reads (GrantRead: GetItem and
	// Query, never a write) for the queue's history and for history, usage
	// and trace export. Default: none, and those answers say there is no
	// ledger.
	Ledger Ledger
	// Submitters are IAM roles granted (class, team) pairs, and Operators
	// roles that act for every class and team, as in the platform file's
	// submission.submitters and submission.operators: they are bundled with
	// the function, which decides from a caller's verified role
	// (platform.Access). Operators are also granted lambda:InvokeFunction on
	// the function by its resource policy; a submitter's invoke permission
	// comes from GrantSubmitToRoleArn (the platform stack calls it for each
	// pair). Default: none (GrantSubmit adds more).
	Submitters []platform.Submitter
	// Operators are the roles that act for every class and team (the
	// platform file's submission.operators). Default: none (GrantOperate
	// adds more).
	Operators []platform.Operator
	// Code is prebuilt function code: a folder with bootstrap and
	// platform.json. Default: built from SubmitterPackage during synthesis,
	// from trainq's own module.
	Code awslambda.Code
}

// SubmitterPropsFromPlatform returns the props of p's submitter on queue.
func SubmitterPropsFromPlatform(p *platform.Platform, queue ITrainingQueue) *SubmitterProps {
	return &SubmitterProps{Queue: queue, PlatformProps: PlatformPropsFromPlatform(p), FunctionName: p.SubmitFunctionName(),
		Submitters: p.Submission.Submitters, Operators: p.Submission.Operators}
}

// Submitter is the submission function with one alias per (class, team): a
// caller may submit a class for a team only if granted invoke on that pair's
// alias.
type Submitter interface {
	ISubmitter
	// Function is the submission function.
	Function() awslambda.Function
	// Alias is the alias of class and team; an unknown class or team is a
	// validation error (and the result nil).
	Alias(class, team string) awslambda.Alias
	// Platform is the platform description bundled with the function; nil
	// when the props were invalid.
	Platform() *platform.Platform
	// Queue is the queue the function submits to.
	Queue() ITrainingQueue
	// GrantSubmitToRoleArn lets the IAM role roleArn submit jobs of class
	// for team through the (class, team) alias's resource policy alone: the
	// role itself is not modified, so it may belong to another account or to
	// no stack. A role of another account also needs lambda:InvokeFunction
	// on the alias in its own account's identity policy. The pair is
	// recorded in the function's access table (contract.EnvGrants) unless
	// the bundled platform's submission.submitters grant it already.
	GrantSubmitToRoleArn(roleArn string, class, team string)
}

type submitter struct {
	constructs.Construct
	// grants are GrantSubmit's and GrantOperate's, which the function reads
	// from contract.EnvGrants (set lazily, at synthesis, from these).
	grants   grantTable
	fn       awslambda.Function
	dlq      awssqs.Queue
	aliases  map[string]awslambda.Alias
	classes  []string
	teams    []string
	platform *platform.Platform
	queue    ITrainingQueue
}

// NewSubmitter creates the submission function, its (class, team) aliases, its
// dead-letter queue and its least-privilege role. Invalid props — a team
// that is not a share of the queue, a class band that overlaps another —
// fail synthesis with a message naming the prop and the value. The queue's
// shares must exist when the submitter is created.
func NewSubmitter(scope constructs.Construct, id string, props *SubmitterProps) Submitter {
	if props == nil {
		props = &SubmitterProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	s := &submitter{Construct: c, aliases: map[string]awslambda.Alias{}, queue: props.Queue}
	p, problems := describePlatform("trainq.Submitter", &props.PlatformProps, props.Queue)
	for _, m := range problems {
		addError(c, "%s", m)
	}
	if p != nil {
		// Who may act for what travels with the function, in the bundled
		// description it reads (platform.Access).
		p.Submission.Submitters = append([]platform.Submitter(nil), props.Submitters...)
		p.Submission.Operators = append([]platform.Operator(nil), props.Operators...)
		var ps platform.Problems
		p.ValidateSubmission(&ps)
		for _, pr := range ps {
			if !strings.HasPrefix(pr.Field, "submission.submitters") && !strings.HasPrefix(pr.Field, "submission.operators") {
				continue // the description's own problems are reported above
			}
			addError(c, "trainq.Submitter: %s is %s; want %s", strings.Replace(strings.Replace(pr.Field, "submission.submitters", "Submitters", 1), "submission.operators", "Operators", 1), pr.Value, pr.Allowed)
		}
	}
	name := props.FunctionName
	if name == "" {
		name = props.PlatformProps.name() + "-submit"
	}
	name = checkFunctionName(c, "trainq.Submitter", "FunctionName", name)
	s.platform = p
	if props.Queue == nil {
		return s
	}
	addCheck(c, checkTeamsStillShares("trainq.Submitter", p, props.Queue, props.Teams != nil))
	files := map[string][]byte{}
	if p != nil {
		files[contract.PlatformFileName] = p.JSON()
	}
	dlq := newDeadLetterQueue(c, "DeadLetterQueue")
	gf := newGoFunction(c, goFunctionProps{
		functionName:  name,
		nameProp:      "FunctionName",
		description:   fmt.Sprintf("trainq %s: submits SageMaker training jobs to %s", props.PlatformProps.name(), *props.Queue.JobQueueName()),
		pkg:           SubmitterPackage,
		files:         files,
		code:          props.Code,
		environment:   submitterEnvironment(c, props, p),
		timeout:       awscdk.Duration_Seconds(jsii.Number(submitterTimeoutSecs)),
		memoryMB:      256,
		retentionDays: props.LogRetentionDays,
		deadLetter:    dlq,
	})
	grantSubmitterPermissions(gf, props.PlatformProps.name(), props.Queue, teamNames(p), passedRoles(props.Queue, props.ExecutionRoles, p))
	s.fn, s.dlq = gf.fn, dlq
	if props.Ledger != nil {
		props.Ledger.GrantRead(gf.fn)
	}
	// Grants made after construction reach the function: the variable's
	// value is produced at synthesis.
	s.grants.stack = awscdk.Stack_Of(c)
	for _, op := range props.Operators {
		if batchrules.ValidRoleARN(op.RoleARN) || isToken(op.RoleARN) {
			gf.fn.AddPermission(jsii.String(fmt.Sprintf("Operate%x", sha256.Sum256([]byte(op.RoleARN)))[:7+16]), &awslambda.Permission{
				Principal: awsiam.NewArnPrincipal(jsii.String(op.RoleARN)),
				Action:    jsii.String("lambda:InvokeFunction"),
			})
		}
	}
	gf.fn.AddEnvironment(jsii.String(contract.EnvGrants), awscdk.Lazy_String(&s.grants, nil), nil)
	roles := len(props.ExecutionRoles)
	addCheck(c, func() []string {
		// Lambda allows 4 KB of environment variables in all: each role ARN
		// at most 95 characters (a 64-character name) plus the JSON; the
		// queue ARN and the bucket name about 300.
		size := 300 + roles*(95+40)
		for _, g := range s.grants.submitters {
			size += 95 + len(g.class) + len(g.team) + 40
		}
		size += len(s.grants.operators) * (95 + 3)
		if size <= lambdaEnvironmentBytes {
			return nil
		}
		return []string{fmt.Sprintf("trainq.Submitter: %d GrantSubmit and %d GrantOperate grants may need %d bytes of environment variables; want at most %d (Lambda's 4 KB): list the roles in the platform file's submission.submitters and submission.operators instead (bundled with the function, no such limit)", len(s.grants.submitters), len(s.grants.operators), size, lambdaEnvironmentBytes)}
	})
	if p == nil {
		return s
	}
	version := gf.fn.CurrentVersion()
	for _, a := range p.SubmitAliases() {
		s.aliases[a.Name] = awslambda.NewAlias(c, jsii.String("Alias-"+a.Name), &awslambda.AliasProps{
			AliasName:   jsii.String(a.Name),
			Version:     version,
			Description: jsii.String("Submits " + a.Class + " jobs for team " + a.Team + ": invoke permission on this alias grants the class for the team"),
		})
	}
	s.classes, s.teams = p.ClassNames(), p.TeamNames()
	return s
}

// submitterEnvironment is the function's environment: the queue, the
// checkpoint bucket when there is one, and the
// execution role of every team (TRAINQ_EXECUTION_ROLE_ARNS, a JSON object)
// or, without ExecutionRoles, the queue's role for all
// (TRAINQ_EXECUTION_ROLE_ARN).
func submitterEnvironment(c constructs.Construct, props *SubmitterProps, p *platform.Platform) map[string]*string {
	env := map[string]*string{contract.EnvJobQueue: props.Queue.JobQueueArn()}
	if props.CheckpointBucket != nil {
		env[contract.EnvCheckpointBucket] = props.CheckpointBucket.BucketName()
	}
	if props.Ledger != nil {
		env[contract.EnvLedgerTable] = props.Ledger.Table().TableName()
	}
	addExecutionRoleEnvironment(c, "trainq.Submitter", env, props.Queue, props.ExecutionRoles, p)
	return env
}

// addExecutionRoleEnvironment adds to env the execution role of every
// team: TRAINQ_EXECUTION_ROLE_ARNS, a JSON object, or, without roles, the
// queue's role for all (TRAINQ_EXECUTION_ROLE_ARN). what names the
// construct in validation errors.
func addExecutionRoleEnvironment(c constructs.Construct, what string, env map[string]*string, queue ITrainingQueue, execRoles map[string]IExecutionRole, p *platform.Platform) {
	if len(execRoles) == 0 || p == nil {
		env[contract.EnvExecutionRoleARN] = executionRoleArn(queue)
		return
	}
	roles := map[string]interface{}{}
	for _, team := range p.TeamNames() {
		if r := execRoles[team]; r != nil {
			roles[team] = r.RoleArn()
		} else {
			roles[team] = executionRoleArn(queue)
		}
	}
	for team, r := range execRoles {
		if _, ok := p.Team(team); !ok {
			addError(c, "%s: ExecutionRoles has team %q; want teams of the platform (%s)", what, team, strings.Join(p.TeamNames(), ", "))
		} else if r == nil {
			addError(c, "%s: ExecutionRoles[%q] is nil; want an IExecutionRole", what, team)
		}
	}
	// Lambda allows 4 KB of environment variables in all: a role ARN has at
	// most 95 characters (a 64-character name), plus the team and the JSON.
	size := 0
	for team := range roles {
		size += len(team) + 95 + 6
	}
	if size > maxExecutionRoleEnvBytes {
		addError(c, "%s: ExecutionRoles of %d teams may need %d bytes of TRAINQ_EXECUTION_ROLE_ARNS; want at most %d (Lambda's 4 KB of environment variables): use shorter team names or fewer teams per function", what, len(roles), size, maxExecutionRoleEnvBytes)
	}
	env[contract.EnvExecutionRoleARNs] = awscdk.Stack_Of(c).ToJsonString(roles, nil)
}

// teamNames are p's teams; none when p is nil (invalid props).
func teamNames(p *platform.Platform) []string {
	if p == nil {
		return nil
	}
	return p.TeamNames()
}

// passedRoles are the roles a function may pass: each team's of roles, the
// queue's for the teams roles does not list.
func passedRoles(queue ITrainingQueue, roles map[string]IExecutionRole, p *platform.Platform) []IExecutionRole {
	if len(roles) == 0 || p == nil {
		if r := queue.ExecutionRole(); r != nil {
			return []IExecutionRole{r}
		}
		return nil
	}
	var out []IExecutionRole
	queueRole := false
	for _, team := range p.TeamNames() {
		if r := roles[team]; r != nil {
			out = append(out, r)
		} else {
			queueRole = true
		}
	}
	if r := queue.ExecutionRole(); queueRole && r != nil {
		out = append(out, r)
	}
	return out
}

// executionRoleArn is the queue's execution role's ARN; a missing role is
// the queue's validation error already.
func executionRoleArn(queue ITrainingQueue) *string {
	if r := queue.ExecutionRole(); r != nil {
		return r.RoleArn()
	}
	return jsii.String("")
}

// checkFunctionName returns name when Lambda accepts it (1–64 letters,
// digits, '-' or '_'); else it records a validation error and returns a
// placeholder, so that construction goes on to report every mistake.
func checkFunctionName(c constructs.Construct, what, prop, name string) string {
	if !isToken(name) && !functionNamePattern.MatchString(name) {
		addError(c, "%s: %s is %q; want 1-64 letters, digits, '-' or '_' (Lambda's function names; set %s, or a shorter PlatformName)", what, prop, name, prop)
		return "invalid-function-name"
	}
	return name
}

// grantSubmitterPermissions gives the function's role what it needs, on the
// platform's queue and its jobs only (Service Authorization Reference, AWS
// Batch):
//   - SubmitServiceJob acts on the queue, the new service job and (on a
//     quota-share queue) the team's quota share, and needs
//     batch:TagResource for the tags it sets; all only with the
//     platform's tag in the request (aws:RequestTag); tags at submission,
//     later only who re-prioritized a job of the platform, never the
//     re-router's lineage tags (grantSubmitAndTag, denyLineageTags).
//   - TerminateServiceJob and UpdateServiceJob act on a service job, and only
//     on jobs carrying the platform's tag (aws:ResourceTag): not on other
//     platforms' or other applications' jobs of the account.
//   - DescribeServiceJob and ListServiceJobs support no resource-level
//     permission and only read; the function checks that a job belongs to
//     the platform's queue before it acts on it.
func grantSubmitterPermissions(f goFunction, platformName string, queue ITrainingQueue, teams []string, passed []IExecutionRole) {
	role := f.role
	grantSubmitAndTag(role, platformName, queue, teams, []string{contract.TagReprioritizedBy})
	denyLineageTags(role)
	for _, r := range passed {
		r.GrantPassRole(role)
	}
	grantQueueSnapshot(role, queue)
	jobs := serviceJobsArn(queue.JobQueueArn())
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("batch:TerminateServiceJob", "batch:UpdateServiceJob"),
		Resources:  &[]*string{jobs},
		Conditions: platformJobs(platformName),
	}))
	grantDescribeAndList(role)
	f.suppressWildcards(map[string]string{
		`arn:.*:batch:.*:service-job/\*`: "Service jobs get their ids when submitted, so are not known in advance; submitting and tagging need the platform's tag in the request, cancelling and re-prioritizing the platform's tag on the job.",
		`\*`:                             describeAndListReason,
	})
}

// grantSubmitAndTag lets role submit to queue and tag what it submits, only
// with the platform's tag in the request (aws:RequestTag).
// SubmitServiceJob acts on the queue and on the new service job (both
// required), and on the quota share the job names (an optional resource
// type, which IAM checks when the request has one): on a quota-share queue,
// the quota shares of teams, each named after its team, and no other. It
// needs batch:TagResource for the tags it sets (Service Authorization
// Reference, AWS Batch).
//
// Tags at creation, never adoption: AWS Batch has no condition key that
// tells tagging at creation from tagging an existing job (batch:TagResource
// takes aws:RequestTag and aws:TagKeys only, a service job aws:ResourceTag
// only), so IAM tells them apart by what the request carries. Tagging a job
// without the platform's tag needs every tag a submission sets (the
// platform's, the team's, the class's and the token: contract.Tags); tagging
// a job of the platform (aws:ResourceTag) may set later keys only — later
// for the submission function (who re-prioritized), the re-router's
// contract.LineageTags for the re-router. Never a job another platform
// tagged. What IAM cannot refuse, a request carrying a whole submission's
// tags on an untagged job of the account, the functions never send: they tag
// only in SubmitServiceJob and on jobs they read carrying the tag.
func grantSubmitAndTag(role awsiam.Role, platformName string, queue ITrainingQueue, teams []string, later []string) {
	jobs := serviceJobsArn(queue.JobQueueArn())
	resources := []*string{queue.JobQueueArn(), jobs}
	if queue.SchedulingKind() == SchedulingQuotaShare {
		for _, team := range teams {
			resources = append(resources, quotaShareArn(queue.JobQueueArn(), team))
		}
	}
	platformTag := "aws:RequestTag/" + contract.TagPlatform
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:    jsii.Strings("batch:SubmitServiceJob"),
		Resources:  &resources,
		Conditions: &map[string]interface{}{"StringEquals": map[string]interface{}{platformTag: platformName}},
	}))
	created := map[string]interface{}{"aws:ResourceTag/" + contract.TagPlatform: "true"}
	for _, k := range contract.Tags() {
		created["aws:RequestTag/"+k] = "false"
	}
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("TagAtSubmission"),
		Actions:   jsii.Strings("batch:TagResource"),
		Resources: &[]*string{jobs},
		Conditions: &map[string]interface{}{
			"StringEquals": map[string]interface{}{platformTag: platformName},
			"Null":         created,
		},
	}))
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:       jsii.String("TagThePlatformsJobs"),
		Actions:   jsii.Strings("batch:TagResource"),
		Resources: &[]*string{jobs},
		Conditions: &map[string]interface{}{
			"StringEquals":              map[string]interface{}{"aws:ResourceTag/" + contract.TagPlatform: platformName},
			"ForAllValues:StringEquals": map[string]interface{}{"aws:TagKeys": append([]string{contract.TagPlatform}, later...)},
		},
	}))
}

// denyLineageTags refuses role every tag key only the re-router sets
// (contract.LineageTags), in a submission or on a job, whatever else role's
// policies allow.
func denyLineageTags(role awsiam.Role) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("NoLineageTags"),
		Effect:     awsiam.Effect_DENY,
		Actions:    jsii.Strings("batch:SubmitServiceJob", "batch:TagResource"),
		Resources:  jsii.Strings("*"),
		Conditions: &map[string]interface{}{"ForAnyValue:StringEquals": map[string]interface{}{"aws:TagKeys": contract.LineageTags()}},
	}))
}

// quotaShareArn is the ARN of queue's quota share name
// (arn:…:job-queue/QUEUE/quota-share/NAME, Service Authorization Reference).
func quotaShareArn(queueArn *string, name string) *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{queueArn, jsii.String("/quota-share/" + name)})
}

// platformJobs is the condition "the job carries the platform's tag"
// (aws:ResourceTag): not other platforms' or other applications' jobs of
// the account.
func platformJobs(platformName string) *map[string]interface{} {
	return &map[string]interface{}{"StringEquals": map[string]interface{}{"aws:ResourceTag/" + contract.TagPlatform: platformName}}
}

// grantQueueSnapshot lets role read queue's snapshot (GetJobQueueSnapshot
// takes the job-queue resource).
func grantQueueSnapshot(role awsiam.Role, queue ITrainingQueue) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("batch:GetJobQueueSnapshot"),
		Resources: &[]*string{queue.JobQueueArn()},
	}))
}

// describeAndListReason is why DescribeServiceJob and ListServiceJobs are
// granted on "*".
const describeAndListReason = "batch:DescribeServiceJob and batch:ListServiceJobs support no resource-level permission (Service Authorization Reference) and only read."

// grantDescribeAndList lets role read service jobs: DescribeServiceJob and
// ListServiceJobs support no resource-level permission (the Service
// Authorization Reference lists no resource type for them), so they are
// granted on "*"; both only read, and the functions check a job's queue
// before acting on it.
func grantDescribeAndList(role awsiam.Role) {
	role.AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("batch:DescribeServiceJob", "batch:ListServiceJobs"),
		Resources: jsii.Strings("*"),
	}))
}

func (s *submitter) Function() awslambda.Function   { return s.fn }
func (s *submitter) Platform() *platform.Platform   { return s.platform }
func (s *submitter) Queue() ITrainingQueue          { return s.queue }
func (s *submitter) Classes() []string              { return append([]string(nil), s.classes...) }
func (s *submitter) DeadLetterQueue() awssqs.IQueue { return s.dlq }

func (s *submitter) FunctionArn() *string {
	if s.fn == nil {
		return jsii.String("")
	}
	return s.fn.FunctionArn()
}

func (s *submitter) Teams() []string { return append([]string(nil), s.teams...) }

func (s *submitter) Alias(class, team string) awslambda.Alias {
	if !checkClassTeam(s, "trainq.Submitter", class, team, s.classes, s.teams) {
		return nil
	}
	return s.aliases[platform.SubmitAliasName(class, team)]
}

// checkClassTeam reports whether class and team are of the lists, recording
// a validation error for each that is not.
func checkClassTeam(c constructs.Construct, what, class, team string, classes, teams []string) bool {
	ok := true
	if !slices.Contains(classes, class) {
		addError(c, "%s: class is %q; want one of the submitter's classes (%s)", what, class, strings.Join(sortedCopy(classes), ", "))
		ok = false
	}
	if !slices.Contains(teams, team) {
		addError(c, "%s: team is %q; want one of the submitter's teams (%s)", what, team, strings.Join(sortedCopy(teams), ", "))
		ok = false
	}
	return ok
}

func (s *submitter) GrantSubmit(grantee awsiam.IGrantable, class, team string) awsiam.Grant {
	a := s.Alias(class, team)
	role := roleArnOf(s, "GrantSubmit", grantee)
	if a == nil || role == nil {
		return awsiam.Grant_Drop(grantee, jsii.String("lambda:InvokeFunction"))
	}
	s.grants.submitters = append(s.grants.submitters, grantedPair{role: role, class: class, team: team})
	return a.GrantInvoke(grantee)
}

// roleArnOf is the ARN of grantee, an IAM role (the function matches
// callers by role); nil, with a validation error, for anything else.
func roleArnOf(c constructs.Construct, method string, grantee awsiam.IGrantable) *string {
	if r, ok := grantee.(awsiam.IRole); ok {
		return r.RoleArn()
	}
	if p, ok := grantee.GrantPrincipal().(awsiam.IRole); ok {
		return p.RoleArn()
	}
	addError(c, "trainq.Submitter: %s grantee is not an IAM role; want an awsiam.IRole (the function decides from the caller's role, matched by account and name)", method)
	return nil
}

// grantedPair is one GrantSubmit.
type grantedPair struct {
	role        *string
	class, team string
}

// grantTable produces contract.EnvGrants' value at synthesis.
type grantTable struct {
	stack      awscdk.Stack
	submitters []grantedPair
	operators  []*string
}

// Produce implements awscdk.IStableStringProducer: the JSON of
// contract.Grants, role ARNs as tokens the stack resolves.
func (g *grantTable) Produce() *string {
	subs := []interface{}{}
	for _, p := range g.submitters {
		subs = append(subs, map[string]interface{}{"roleArn": p.role, "class": p.class, "team": p.team})
	}
	ops := []interface{}{}
	for _, r := range g.operators {
		ops = append(ops, r)
	}
	return g.stack.ToJsonString(map[string]interface{}{"submitters": subs, "operators": ops}, nil)
}

func (s *submitter) GrantSubmitToRoleArn(roleArn string, class, team string) {
	if !isToken(roleArn) && !batchrules.ValidRoleARN(roleArn) {
		addError(s, "trainq.Submitter: GrantSubmitToRoleArn roleArn is %q; want arn:aws:iam::ACCOUNT:role/NAME", roleArn)
		return
	}
	alias := s.Alias(class, team)
	if alias == nil {
		return
	}
	id := fmt.Sprintf("Invoke%x", sha256.Sum256([]byte(roleArn)))[:6+16]
	alias.AddPermission(jsii.String(id), &awslambda.Permission{
		Principal: awsiam.NewArnPrincipal(jsii.String(roleArn)),
		Action:    jsii.String("lambda:InvokeFunction"),
	})
	if k, ok := batchrules.RoleKeyOf(roleArn); ok && s.platform != nil && s.platform.NewAccess(nil, nil).Of(k).May(class, team) {
		return // the bundled platform file grants it
	}
	s.grants.submitters = append(s.grants.submitters, grantedPair{role: jsii.String(roleArn), class: class, team: team})
}

func (s *submitter) GrantOperate(grantee awsiam.IGrantable) awsiam.Grant {
	role := roleArnOf(s, "GrantOperate", grantee)
	if role == nil || s.fn == nil {
		return awsiam.Grant_Drop(grantee, jsii.String("lambda:InvokeFunction"))
	}
	s.grants.operators = append(s.grants.operators, role)
	return s.fn.GrantInvoke(grantee)
}

func (s *submitter) MetricErrors(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricErrors(opts)
}

func (s *submitter) MetricThrottles(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricThrottles(opts)
}

func (s *submitter) MetricDuration(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricDuration(opts)
}

func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

// SubmitterAttributes describe an existing submission function to import,
// for example another stack's, to grant a pipeline its classes or to watch
// it.
type SubmitterAttributes struct {
	// FunctionArn is the unqualified ARN of the submission function.
	// Required.
	FunctionArn string
	// Classes are its class names. Required.
	Classes []string
	// Teams are its team names; each (class, team) pair has an alias.
	// Required.
	Teams []string
	// DeadLetterQueueArn is the ARN of its dead-letter queue. Default: none
	// (no alarm on it).
	DeadLetterQueueArn string
}

type importedSubmitter struct {
	constructs.Construct
	fn    awslambda.IFunction
	arn   string
	attrs SubmitterAttributes
	dlq   awssqs.IQueue
}

// FromSubmitterAttributes imports an existing submission function. Its
// grants are identity policies of the grantee (the function's own policies
// are not changed).
func FromSubmitterAttributes(scope constructs.Construct, id string, attrs *SubmitterAttributes) ISubmitter {
	if attrs == nil {
		attrs = &SubmitterAttributes{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	arn := attrs.FunctionArn
	if !isToken(arn) && !functionARNPattern.MatchString(arn) {
		addError(c, "trainq.FromSubmitterAttributes: FunctionArn is %q; want an unqualified function ARN, arn:aws:lambda:REGION:ACCOUNT:function:NAME", arn)
		arn = "arn:aws:lambda:us-east-1:000000000000:function:invalid"
	}
	if len(attrs.Classes) == 0 {
		addError(c, "trainq.FromSubmitterAttributes: Classes is empty; want the function's class names")
	}
	if len(attrs.Teams) == 0 {
		addError(c, "trainq.FromSubmitterAttributes: Teams is empty; want the function's team names (with Classes, its aliases)")
	}
	s := &importedSubmitter{Construct: c, arn: arn, attrs: *attrs}
	s.fn = awslambda.Function_FromFunctionAttributes(c, jsii.String("Function"), &awslambda.FunctionAttributes{
		FunctionArn: jsii.String(arn), SameEnvironment: jsii.Bool(false),
	})
	if attrs.DeadLetterQueueArn != "" {
		s.dlq = awssqs.Queue_FromQueueArn(c, jsii.String("DeadLetterQueue"), jsii.String(attrs.DeadLetterQueueArn))
	}
	return s
}

func (s *importedSubmitter) FunctionArn() *string           { return jsii.String(s.arn) }
func (s *importedSubmitter) Classes() []string              { return append([]string(nil), s.attrs.Classes...) }
func (s *importedSubmitter) Teams() []string                { return append([]string(nil), s.attrs.Teams...) }
func (s *importedSubmitter) DeadLetterQueue() awssqs.IQueue { return s.dlq }

func (s *importedSubmitter) GrantSubmit(grantee awsiam.IGrantable, class, team string) awsiam.Grant {
	if !checkClassTeam(s, "trainq.FromSubmitterAttributes", class, team, s.attrs.Classes, s.attrs.Teams) {
		return awsiam.Grant_Drop(grantee, jsii.String("lambda:InvokeFunction"))
	}
	return awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee:      grantee,
		Actions:      jsii.Strings("lambda:InvokeFunction"),
		ResourceArns: jsii.Strings(s.arn + ":" + platform.SubmitAliasName(class, team)),
	})
}

func (s *importedSubmitter) GrantOperate(grantee awsiam.IGrantable) awsiam.Grant {
	return awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee:      grantee,
		Actions:      jsii.Strings("lambda:InvokeFunction"),
		ResourceArns: jsii.Strings(s.arn),
	})
}

func (s *importedSubmitter) MetricErrors(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricErrors(opts)
}

func (s *importedSubmitter) MetricThrottles(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricThrottles(opts)
}

func (s *importedSubmitter) MetricDuration(opts *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.fn.MetricDuration(opts)
}
