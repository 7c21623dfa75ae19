// Package stacks composes trainq's constructs into the platform stack: one
// stack that deploys a whole platform description. It is build-time code; the
// run-time packages (platform, submit, observe, simulate, …) must never import
// it.
package stacks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsecr"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// PlatformStackProps configures a PlatformStack.
type PlatformStackProps struct {
	awscdk.StackProps
	// Platform is the validated platform description. Required.
	Platform *platform.Platform
	// SubmitterCode, ObserverCode, PollerCode and RerouterCode are prebuilt
	// function code (folders with bootstrap and platform.json). Default: each
	// is built from its Go package during synthesis.
	SubmitterCode, ObserverCode, PollerCode, RerouterCode awslambda.Code
}

// PlatformStack is everything a platform needs, in one stack.
type PlatformStack interface {
	awscdk.Stack
	// Pool is the GPU capacity pool.
	Pool() tq.CapacityPool
	// Queue is the training job queue.
	Queue() tq.TrainingQueue
	// ExecutionRole is the queue's SageMaker execution role, for jobs
	// submitted to the queue directly (Queue().GrantSubmitServiceJob), which
	// the stack grants to no one: it reaches the platform-wide training
	// section, no team's artifacts.
	ExecutionRole() tq.ExecutionRole
	// TeamExecutionRole is the execution role team's jobs run as (nil for a
	// team the platform does not have).
	TeamExecutionRole(team string) tq.ExecutionRole
	// ArtifactsBucket receives the jobs' output.
	ArtifactsBucket() awss3.Bucket
	// Submitter is the submission function with its (class, team) aliases.
	Submitter() tq.Submitter
	// Rerouter is the re-routing function, or nil when no class reroutes.
	Rerouter() tq.Rerouter
	// Monitor is the monitoring, or nil when the platform turns it off.
	Monitor() tq.Monitor
	// Ledger is the job ledger the observer writes, or nil when the
	// platform turns monitoring off.
	Ledger() tq.Ledger
}

type platformStack struct {
	awscdk.Stack
	pool      tq.CapacityPool
	queue     tq.TrainingQueue
	role      tq.ExecutionRole
	teamRoles map[string]tq.ExecutionRole
	artifacts awss3.Bucket
	submitter tq.Submitter
	rerouter  tq.Rerouter
	monitor   tq.Monitor
	ledger    tq.Ledger
}

// NewPlatformStack builds the stack of a platform. The platform must have
// been validated (platformfile.Parse and LoadFile, platform.ParseJSON and Default do that).
func NewPlatformStack(scope constructs.Construct, id string, props *PlatformStackProps) PlatformStack {
	if props == nil {
		props = &PlatformStackProps{}
	}
	p := props.Platform
	sp := props.StackProps
	if sp.Description == nil && p != nil {
		sp.Description = jsii.String(fmt.Sprintf("trainq platform %s: GPU training queue on AWS Batch for SageMaker Training", p.Name))
	}
	stack := awscdk.NewStack(scope, jsii.String(id), &sp)
	s := &platformStack{Stack: stack}
	// An invalid platform fails synthesis with every problem, and nothing is
	// built from it.
	switch {
	case p == nil:
		addError(stack, "trainq.PlatformStack: Platform is nil; want a *platform.Platform (platformfile.LoadFile, platform.Default)")
		return s
	case p.Validate() != nil:
		addError(stack, "trainq.PlatformStack: the platform is invalid: %s", strings.ReplaceAll(p.Validate().Error(), "\n", "; "))
		return s
	}
	awscdk.Tags_Of(stack).Add(jsii.String(contract.TagPlatform), jsii.String(p.Name), nil)

	s.pool = tq.NewCapacityPool(stack, "Pool", poolProps(p))
	s.artifacts = newArtifactsBucket(stack)
	im := newTrainingImports(stack)
	s.role = tq.NewExecutionRole(stack, "ExecutionRole", executionRoleProps(stack, im, p, s.artifacts, nil))
	// A role per team: its jobs reach the team's prefix of the artifacts
	// bucket, the platform-wide training section and the team's own.
	s.teamRoles = map[string]tq.ExecutionRole{}
	for i := range p.Teams {
		t := &p.Teams[i]
		s.teamRoles[t.Name] = tq.NewExecutionRole(stack, "ExecutionRole-"+t.Name, executionRoleProps(stack, im, p, s.artifacts, t))
	}
	fenceArtifacts(s.artifacts, p, s.teamRoles)
	tq.NewTrainingLogRetention(stack, "TrainingLogRetention", &tq.TrainingLogRetentionProps{
		RetentionDays: p.Training.LogRetentionDays, FunctionLogRetentionDays: p.Monitoring.LogRetentionDays,
	})
	policy := schedulingPolicy(stack, p)
	s.queue = tq.NewTrainingQueue(stack, "Queue", &tq.TrainingQueueProps{
		ServiceEnvironments:      []tq.OrderedServiceEnvironment{{Pool: s.pool, Order: 1}},
		SchedulingPolicy:         policy,
		ExecutionRole:            s.role,
		JobQueueName:             p.JobQueueName(),
		Priority:                 p.Scheduling.QueuePriority,
		JobStateTimeLimitActions: timeLimitActions(p),
	})
	if p.Scheduling.Mode == platform.ModeQuota {
		for _, t := range p.Teams {
			s.queue.AddQuotaShare("Share-"+t.Name, quotaShareProps(t))
		}
	}

	sub := tq.SubmitterPropsFromPlatform(p, s.queue)
	sub.Code = props.SubmitterCode
	teamRoles := map[string]tq.IExecutionRole{}
	for team, r := range s.teamRoles {
		teamRoles[team] = r
	}
	sub.ExecutionRoles = teamRoles
	// Checkpoints go under each team's prefix of the artifacts bucket,
	// which the team's execution role reaches.
	sub.CheckpointBucket = s.artifacts
	if p.Monitoring.IsEnabled() {
		// The job ledger, written by the observer from every job event and
		// read by the submission function.
		s.ledger = tq.NewLedger(stack, "Ledger", nil)
		sub.Ledger = s.ledger
		output(stack, "LedgerTableName", s.ledger.Table().TableName(), "job ledger (DynamoDB; kept when the stack is deleted)")
	}
	s.submitter = tq.NewSubmitter(stack, "Submitter", sub)
	// The platform file's submitters are roles the stack does not own: they
	// are granted through the aliases' resource policies only, never by
	// editing the roles.
	for _, sub := range p.Submission.Submitters {
		for _, class := range sub.Classes {
			for _, team := range sub.Teams {
				s.submitter.GrantSubmitToRoleArn(sub.RoleARN, class, team)
			}
		}
	}
	if p.Reroutes() {
		rr := tq.RerouterPropsFromPlatform(p, s.queue)
		rr.Code = props.RerouterCode
		rr.ExecutionRoles = teamRoles
		rr.ArtifactsBucket = s.artifacts
		s.rerouter = tq.NewRerouter(stack, "Rerouter", rr)
		output(stack, "RerouterFunctionName", s.rerouter.Function().FunctionName(), "re-routing function (runs on its schedule only)")
	}
	if p.Monitoring.IsEnabled() {
		mon := tq.MonitorPropsFromPlatform(p, s.queue, s.submitter)
		mon.ObserverCode, mon.PollerCode = props.ObserverCode, props.PollerCode
		mon.Rerouter = s.rerouter
		mon.Ledger = s.ledger
		s.monitor = tq.NewMonitor(stack, "Monitor", mon)
		output(stack, "AlarmTopicArn", s.monitor.AlarmTopic().TopicArn(), "SNS topic of the platform's pages (alarms of severity page)")
		output(stack, "TicketTopicArn", s.monitor.TicketTopic().TopicArn(), "SNS topic of the platform's tickets (alarms of severity ticket)")
		output(stack, "DashboardName", s.monitor.Dashboard().DashboardName(), "CloudWatch dashboard of the platform")
	}

	output(stack, "SubmitFunctionName", s.submitter.Function().FunctionName(), "submission function; invoke its (class, team) aliases, <class>-<team>")
	output(stack, "JobQueueArn", s.queue.JobQueueArn(), "ARN of the training job queue")
	output(stack, "ExecutionRoleArn", s.role.RoleArn(), "SageMaker execution role of jobs submitted to the queue directly (no team's artifacts)")
	output(stack, "ArtifactsBucketName", s.artifacts.BucketName(), "bucket for the jobs' output (s3://NAME/)")
	return s
}

func (s *platformStack) Pool() tq.CapacityPool           { return s.pool }
func (s *platformStack) Queue() tq.TrainingQueue         { return s.queue }
func (s *platformStack) ExecutionRole() tq.ExecutionRole { return s.role }
func (s *platformStack) TeamExecutionRole(team string) tq.ExecutionRole {
	return s.teamRoles[team]
}
func (s *platformStack) ArtifactsBucket() awss3.Bucket { return s.artifacts }
func (s *platformStack) Submitter() tq.Submitter       { return s.submitter }
func (s *platformStack) Rerouter() tq.Rerouter         { return s.rerouter }
func (s *platformStack) Monitor() tq.Monitor           { return s.monitor }
func (s *platformStack) Ledger() tq.Ledger             { return s.ledger }

func output(stack awscdk.Stack, id string, value *string, description string) {
	awscdk.NewCfnOutput(stack, jsii.String(id), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(description)})
}

// poolProps limits capacity per instance type for quota shares, or in total
// for fair share.
func poolProps(p *platform.Platform) *tq.CapacityPoolProps {
	props := &tq.CapacityPoolProps{ServiceEnvironmentName: p.ServiceEnvironmentName()}
	if p.Scheduling.Mode == platform.ModeFairShare {
		props.TotalInstances = p.TotalInstances()
		return props
	}
	for _, pool := range p.Pools {
		props.InstanceTypes = append(props.InstanceTypes, tq.InstanceCapacity{InstanceType: pool.InstanceType, Instances: pool.Instances})
	}
	return props
}

// schedulingPolicy is the platform's policy: quota shares, or fair share
// with a weight per team. Earlier releases created it inside the queue, at
// Queue/SchedulingPolicy: its logical id stays that one, so that an update
// keeps the policy (a replaced policy would mean a new policy for the queue).
func schedulingPolicy(stack awscdk.Stack, p *platform.Platform) tq.ISchedulingPolicy {
	if p.Scheduling.Mode == platform.ModeFairShare {
		fs := &tq.FairSharePolicyProps{
			ShareDecaySeconds:  p.Scheduling.ShareDecaySeconds,
			ComputeReservation: *p.Scheduling.ComputeReservation,
		}
		for _, t := range p.Teams {
			fs.Shares = append(fs.Shares, tq.FairShare{ShareIdentifier: t.Name, WeightFactor: t.Weight})
		}
		policy := tq.NewFairSharePolicy(stack, "SchedulingPolicy", fs)
		keepLogicalID(policy.Resource(), "Queue", "SchedulingPolicy")
		return policy
	}
	policy := tq.NewQuotaSharePolicy(stack, "SchedulingPolicy", nil)
	keepLogicalID(policy.Resource(), "Queue", "SchedulingPolicy")
	return policy
}

func quotaShareProps(t platform.Team) *tq.QuotaShareProps {
	props := &tq.QuotaShareProps{
		QuotaShareName:     t.Name,
		Strategy:           t.Sharing,
		BorrowLimitPercent: t.BorrowLimitPercent,
		InSharePreemption:  t.InSharePreemption,
	}
	for _, c := range t.Capacity {
		props.Capacity = append(props.Capacity, tq.InstanceCapacity{InstanceType: c.InstanceType, Instances: c.Instances})
	}
	return props
}

// newArtifactsBucket creates the encrypted, TLS-only bucket that receives
// the jobs' output, with access logs in a bucket of their own.
func newArtifactsBucket(stack awscdk.Stack) awss3.Bucket {
	logs := awss3.NewBucket(stack, jsii.String("AccessLogs"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Expiration: awscdk.Duration_Days(jsii.Number(365)),
		}},
	})
	cdknag.NagSuppressions_AddResourceSuppressions(logs, &[]*cdknag.NagPackSuppression{{
		Id:     jsii.String("AwsSolutions-S1"),
		Reason: jsii.String("This bucket receives the artifacts bucket's access logs; logging it to itself would loop."),
	}}, jsii.Bool(false))
	return awss3.NewBucket(stack, jsii.String("Artifacts"), &awss3.BucketProps{
		Encryption:             awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess:      awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:             jsii.Bool(true),
		Versioned:              jsii.Bool(true),
		ObjectOwnership:        awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		RemovalPolicy:          awscdk.RemovalPolicy_RETAIN,
		ServerAccessLogsBucket: logs,
		ServerAccessLogsPrefix: jsii.String("artifacts/"),
		// A version overwritten or deleted is kept 30 days (to undo a
		// mistake), then removed; unfinished multipart uploads after 7.
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:                                  jsii.String("old-versions"),
			NoncurrentVersionExpiration:         awscdk.Duration_Days(jsii.Number(NoncurrentVersionDays)),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(7)),
		}},
	})
}

// NoncurrentVersionDays is how long the artifacts bucket keeps an object's
// version after it was overwritten or deleted.
const NoncurrentVersionDays = 30

// fenceArtifacts denies the artifacts bucket's data to every principal but
// the platform's: a team's prefix <team>/ to that team's execution role and
// the submission.submitters granted that team (the pipelines that submit
// for it read what its jobs wrote), and listing the bucket and its objects
// to those principals only. In one account IAM allows a request that the
// caller's own policy allows unless a policy denies it (IAM user guide,
// "Policy evaluation logic"), so without these denies a role with
// s3:GetObject on * reads every team's artifacts. The bucket's
// configuration (its policy, versioning, lifecycle, logging) is not fenced:
// whoever administers the account's S3 (the deployer's CloudFormation role,
// an administrator) keeps managing it — and could lift the fence, as an IAM
// administrator can anything.
func fenceArtifacts(bucket awss3.Bucket, p *platform.Platform, teamRoles map[string]tq.ExecutionRole) {
	var everyone []*string
	for i, t := range p.Teams {
		allowed := []*string{teamRoles[t.Name].RoleArn()}
		for _, sub := range p.Submission.Submitters {
			if slices.Contains(sub.Teams, t.Name) {
				allowed = append(allowed, jsii.String(sub.RoleARN))
			}
		}
		everyone = append(everyone, allowed...)
		bucket.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:        jsii.String(fmt.Sprintf("OnlyTeam%d", i)),
			Effect:     awsiam.Effect_DENY,
			Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
			Actions:    jsii.Strings("s3:*"),
			Resources:  &[]*string{bucket.ArnForObjects(jsii.String(platform.ArtifactsPrefix(t.Name) + "*"))},
			Conditions: &map[string]interface{}{"ArnNotEquals": map[string]interface{}{"aws:PrincipalArn": allowed}},
		}))
	}
	bucket.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("OnlyThePlatform"),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings("s3:GetObject*", "s3:PutObject*", "s3:DeleteObject*", "s3:RestoreObject", "s3:ListBucket", "s3:ListBucketVersions", "s3:ListBucketMultipartUploads", "s3:ListMultipartUploadParts", "s3:AbortMultipartUpload"),
		Resources:  &[]*string{bucket.BucketArn(), bucket.ArnForObjects(jsii.String("*"))},
		Conditions: &map[string]interface{}{"ArnNotEquals": map[string]interface{}{"aws:PrincipalArn": everyone}},
	}))
}

// trainingImports imports the buckets, repositories and keys the platform
// file names, each once, for every execution role that reaches them.
type trainingImports struct {
	stack   awscdk.Stack
	buckets map[string]awss3.IBucket
	repos   map[string]awsecr.IRepository
	keys    map[string]awskms.IKey
}

func newTrainingImports(stack awscdk.Stack) *trainingImports {
	return &trainingImports{stack: stack, buckets: map[string]awss3.IBucket{}, repos: map[string]awsecr.IRepository{}, keys: map[string]awskms.IKey{}}
}

func (im *trainingImports) location(uri string) tq.S3Location {
	// The platform was validated: every URI parses.
	loc, err := platform.ParseS3URI(uri)
	if err != nil {
		panic(fmt.Sprintf("trainq.PlatformStack: %v", err))
	}
	b, ok := im.buckets[loc.Bucket]
	if !ok {
		b = awss3.Bucket_FromBucketName(im.stack, jsii.String("Bucket-"+loc.Bucket), jsii.String(loc.Bucket))
		im.buckets[loc.Bucket] = b
	}
	if loc.Object {
		return tq.S3Location{Bucket: b, Key: loc.Key}
	}
	return tq.S3Location{Bucket: b, Prefix: loc.Key}
}

func (im *trainingImports) repository(name string) awsecr.IRepository {
	r, ok := im.repos[name]
	if !ok {
		r = awsecr.Repository_FromRepositoryName(im.stack, jsii.String("Repository-"+strings.ReplaceAll(name, "/", "-")), jsii.String(name))
		im.repos[name] = r
	}
	return r
}

// executionRoleProps grants a role the platform's training section: its S3
// locations, repositories, AWS's training images (unless turned off), VPC
// and keys; and, for a team (team != nil), the team's prefix of the
// artifacts bucket (s3://ARTIFACTS/<team>/) and the team's own training
// section. The queue's own role (team == nil) gets no artifacts: nothing of
// the platform passes it. Nothing else.
func executionRoleProps(stack awscdk.Stack, im *trainingImports, p *platform.Platform, artifacts awss3.IBucket, team *platform.Team) *tq.ExecutionRoleProps {
	// The role's reach is platform.ReachOf's, which the submission door
	// checks payloads against: the grants and the check cannot drift.
	r := p.ReachOf(team)
	props := &tq.ExecutionRoleProps{AWSManagedImages: jsii.Bool(r.AWSManagedImages)}
	if r.ArtifactsPrefix != "" {
		props.Write = []tq.S3Location{{Bucket: artifacts, Prefix: r.ArtifactsPrefix}}
	}
	if team != nil {
		props.TrainingJobNamePrefix = p.TrainingJobPrefix(team.Name)
	}
	for _, uri := range r.Read {
		props.Read = append(props.Read, im.location(uri))
	}
	for _, uri := range r.Write {
		props.Write = append(props.Write, im.location(uri))
	}
	for _, name := range r.Repositories {
		props.Repositories = append(props.Repositories, im.repository(name))
	}
	if r.VPC != nil {
		props.VPC = &tq.TrainingVPC{Subnets: r.VPC.Subnets, SecurityGroups: r.VPC.SecurityGroups}
	}
	for i, k := range r.KMSKeys {
		key, ok := im.keys[k]
		if !ok {
			key = awskms.Key_FromKeyArn(stack, jsii.String(fmt.Sprintf("TrainingKey%d", i)), jsii.String(k))
			im.keys[k] = key
		}
		props.KMSKeys = append(props.KMSKeys, key)
	}
	return props
}

// timeLimitActions are the platform's jobStateTimeLimitActions.
func timeLimitActions(p *platform.Platform) []tq.JobStateTimeLimitAction {
	var out []tq.JobStateTimeLimitAction
	for _, a := range p.Scheduling.JobStateTimeLimitActions {
		out = append(out, tq.JobStateTimeLimitAction{Reason: a.Reason, MaxTimeSeconds: a.MaxTimeSeconds})
	}
	return out
}
