package constructs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsbatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// ITrainingQueue is a job queue of type SAGEMAKER_TRAINING.
type ITrainingQueue interface {
	constructs.Construct
	// JobQueueArn is the ARN of the job queue.
	JobQueueArn() *string
	// JobQueueName is the name of the job queue.
	JobQueueName() *string
	// SchedulingKind is the kind of the queue's scheduling policy: jobs name
	// a quotaShareName on a quota-share queue, a shareIdentifier on a
	// fair-share one.
	SchedulingKind() SchedulingKind
	// ExecutionRole is the SageMaker execution role jobs of this queue run as.
	ExecutionRole() IExecutionRole
	// ServiceEnvironments are the pools the queue runs on, in the order
	// given; nil for an imported queue.
	ServiceEnvironments() []OrderedServiceEnvironment
	// QuotaShares are the quota shares added to the queue (AddQuotaShare),
	// in the order added.
	QuotaShares() []QuotaShare
	// FairShares are the share identifiers of the queue's fair-share policy
	// when it is one of this app's (NewFairSharePolicy), else nil.
	FairShares() []FairShare
	// GrantSubmitServiceJob lets grantee submit service jobs to this queue
	// with AWS Batch's SubmitServiceJob directly, and pass the execution role
	// to SageMaker: exactly batch:SubmitServiceJob on the queue and its
	// account's new service jobs, and iam:PassRole on the role with
	// iam:PassedToService = sagemaker.amazonaws.com. It bypasses trainq's
	// submission function — its classes, priority bands, teams and checks —
	// so a pipeline should get Submitter.GrantSubmit instead; this is for a
	// scheduler of your own. A grantee that tags the jobs it submits also
	// needs batch:TagResource on the account's service jobs, which this does
	// not grant (trainq's submission function has it); and it is denied every
	// tag key of trainq's (contract.TagPrefix: the platform's, teams',
	// classes' and the re-router's lineage), in a submission, a tagging or an
	// untagging, whatever its own policies allow.
	GrantSubmitServiceJob(grantee awsiam.IGrantable) awsiam.Grant
	// AddQuotaShare adds a quota share to a queue with a quota-share policy.
	AddQuotaShare(id string, props *QuotaShareProps) QuotaShare
	// Metric is one of trainq's metrics (package metrics) of this queue,
	// narrowed by dims. It is a validation error to ask for a dimension set
	// the metric is not emitted with. Default statistic and period: those of
	// the metric's kind (MetricDefaults), unless opts say otherwise.
	Metric(m metrics.Metric, dims *MetricDimensions, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricOldestRunnableSeconds is how long the oldest runnable job of
	// class ("" for any class) has waited so far. Default: Maximum over 1
	// minute.
	MetricOldestRunnableSeconds(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricRunnableJobs is the number of runnable jobs of class ("" for any
	// class). Default: Maximum over 1 minute.
	MetricRunnableJobs(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricJobsFailed counts failed jobs of class ("" for any class).
	// Default: Sum over 1 minute.
	MetricJobsFailed(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricWaitSeconds is the wait from runnable to running of each start
	// of class ("" for any class). Default: Average over 5 minutes.
	MetricWaitSeconds(class string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricCapacityUtilization is the percentage of the limit in use of
	// instanceType ("" for the whole queue). Default: Average over 1 minute.
	MetricCapacityUtilization(instanceType string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricSubmissionErrors counts submissions answered with errorType (""
	// for any error). Default: Sum over 5 minutes.
	MetricSubmissionErrors(errorType string, opts *awscloudwatch.MetricOptions) awscloudwatch.Metric
}

// OrderedServiceEnvironment is a pool of a queue with its order: AWS Batch
// tries a queue's service environments in ascending order.
type OrderedServiceEnvironment struct {
	// Pool is the service environment. Required.
	Pool ICapacityPool
	// Order is the pool's place, unique within the queue. Required.
	Order int
}

// TrainingQueueProps configures a TrainingQueue.
type TrainingQueueProps struct {
	// ServiceEnvironments are the pools the queue runs on; add more with
	// AddServiceEnvironment. The queue needs at least one. Default: none.
	ServiceEnvironments []OrderedServiceEnvironment
	// SchedulingPolicy is the queue's policy (NewFairSharePolicy,
	// NewQuotaSharePolicy). Its kind is permanent: a quota-share queue runs
	// on quota-managed pools, a fair-share queue on NUM_INSTANCES pools.
	// Default: a new quota-share policy (FIFO), a child of the queue with id
	// "SchedulingPolicy".
	SchedulingPolicy ISchedulingPolicy
	// ExecutionRole is the role training jobs run as; GrantSubmitServiceJob
	// and the submitter pass it. Required.
	ExecutionRole IExecutionRole
	// JobQueueName names the queue. Default: a name generated by
	// CloudFormation.
	JobQueueName string
	// Priority orders queues sharing a pool, 0–1000, higher first.
	// Default: 10.
	Priority *int
	// Tags are added to the queue. Default: none.
	Tags map[string]string
	// JobStateTimeLimitActions terminate a job that blocks the head of the
	// queue in RUNNABLE for one of AWS Batch's reasons longer than its
	// MaxTimeSeconds, so that the jobs behind it run (AWS Batch user guide,
	// "Jobs stuck in RUNNABLE: time limit actions"). At most one per reason.
	// Default: none (a blocked job blocks the queue until it is cancelled).
	JobStateTimeLimitActions []JobStateTimeLimitAction
}

// JobStateTimeLimitAction terminates a job that has blocked the queue in
// RUNNABLE for Reason longer than MaxTimeSeconds (state RUNNABLE, action
// TERMINATE: the only action of a SAGEMAKER_TRAINING queue).
type JobStateTimeLimitAction struct {
	// Reason is one of batchrules.TimeLimitReasons(), e.g.
	// MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED. Required.
	Reason string
	// MaxTimeSeconds is how long the job may block the queue first,
	// 600–86400. Required.
	MaxTimeSeconds int
}

// TrainingQueue is an AWS::Batch::JobQueue of type SAGEMAKER_TRAINING.
type TrainingQueue interface {
	ITrainingQueue
	// AddServiceEnvironment adds a pool to the queue at order.
	AddServiceEnvironment(pool ICapacityPool, order int)
	// SchedulingPolicy is the queue's scheduling policy.
	SchedulingPolicy() ISchedulingPolicy
	// Priority is the queue's priority among queues sharing a pool.
	Priority() int
	// Resource is the underlying job queue resource.
	Resource() awsbatch.CfnJobQueue
}

// queueBase is what created and imported queues share.
type queueBase struct {
	constructs.Construct
	role   IExecutionRole
	kind   SchedulingKind
	shares []QuotaShare
	self   ITrainingQueue
}

type trainingQueue struct {
	queueBase
	resource awsbatch.CfnJobQueue
	policy   ISchedulingPolicy
	envs     []OrderedServiceEnvironment
	priority int
	name     string
}

// NewTrainingQueue creates a SAGEMAKER_TRAINING job queue. Invalid props
// fail synthesis with a message naming the prop, its value and what is
// allowed; so do the rules that depend on what is added later (at least one
// service environment, unique orders, pools that suit the policy's kind,
// quota shares).
func NewTrainingQueue(scope constructs.Construct, id string, props *TrainingQueueProps) TrainingQueue {
	if props == nil {
		props = &TrainingQueueProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	q := &trainingQueue{queueBase: queueBase{Construct: c, role: props.ExecutionRole}, name: props.JobQueueName, priority: platform.DefaultQueuePriority}
	q.self = q
	if props.Priority != nil {
		q.priority = *props.Priority
	}
	for _, err := range validateQueueProps(props) {
		addError(c, "trainq.TrainingQueue: %v", err)
	}
	q.policy = props.SchedulingPolicy
	if q.policy == nil {
		q.policy = NewQuotaSharePolicy(c, "SchedulingPolicy", nil)
	}
	q.kind = q.policy.Kind()
	q.resource = awsbatch.NewCfnJobQueue(c, jsii.String("Resource"), &awsbatch.CfnJobQueueProps{
		JobQueueName:        optString(props.JobQueueName),
		JobQueueType:        jsii.String("SAGEMAKER_TRAINING"),
		Priority:            jsii.Number(q.priority),
		State:               jsii.String("ENABLED"),
		SchedulingPolicyArn: q.policy.SchedulingPolicyArn(),
		Tags:                tagMap(props.Tags),
	})
	if len(props.JobStateTimeLimitActions) > 0 {
		actions := make([]interface{}, len(props.JobStateTimeLimitActions))
		for i, a := range props.JobStateTimeLimitActions {
			actions[i] = &awsbatch.CfnJobQueue_JobStateTimeLimitActionProperty{
				Action:         jsii.String(batchrules.TimeLimitActionTerminate),
				State:          jsii.String(batchrules.TimeLimitState),
				Reason:         jsii.String(a.Reason),
				MaxTimeSeconds: jsii.Number(a.MaxTimeSeconds),
			}
		}
		q.resource.SetJobStateTimeLimitActions(&actions)
	}
	for _, e := range props.ServiceEnvironments {
		q.AddServiceEnvironment(e.Pool, e.Order)
	}
	addCheck(c, q.check)
	return q
}

// validateQueueProps checks what the props say by themselves.
func validateQueueProps(props *TrainingQueueProps) []error {
	var errs []error
	if props.ExecutionRole == nil {
		errs = append(errs, fmt.Errorf("ExecutionRole is nil; want an IExecutionRole (NewExecutionRole or FromExecutionRoleArn)"))
	}
	if props.JobQueueName != "" && !batchrules.ValidName(props.JobQueueName) {
		errs = append(errs, fmt.Errorf("JobQueueName is %q; want 1-128 letters, digits, '-' or '_'", props.JobQueueName))
	}
	if props.Priority != nil && (*props.Priority < 0 || *props.Priority > platform.MaxQueuePriority) {
		errs = append(errs, fmt.Errorf("Priority is %d; want 0 to %d", *props.Priority, platform.MaxQueuePriority))
	}
	for i, e := range props.ServiceEnvironments {
		if e.Pool == nil {
			errs = append(errs, fmt.Errorf("ServiceEnvironments[%d].Pool is nil; want an ICapacityPool (NewCapacityPool or FromCapacityPoolAttributes)", i))
		}
	}
	seen := map[string]bool{}
	for i, a := range props.JobStateTimeLimitActions {
		where := fmt.Sprintf("JobStateTimeLimitActions[%d]", i)
		switch {
		case !batchrules.ValidTimeLimitReason(a.Reason):
			errs = append(errs, fmt.Errorf("%s.Reason is %q; want one of %s", where, a.Reason, strings.Join(batchrules.TimeLimitReasons(), ", ")))
		case seen[a.Reason]:
			errs = append(errs, fmt.Errorf("%s.Reason is %q again; want each reason once", where, a.Reason))
		}
		seen[a.Reason] = true
		if a.MaxTimeSeconds < batchrules.MinTimeLimitSeconds || a.MaxTimeSeconds > batchrules.MaxTimeLimitSeconds {
			errs = append(errs, fmt.Errorf("%s.MaxTimeSeconds is %d; want %d to %d", where, a.MaxTimeSeconds, batchrules.MinTimeLimitSeconds, batchrules.MaxTimeLimitSeconds))
		}
	}
	return errs
}

func (q *trainingQueue) AddServiceEnvironment(pool ICapacityPool, order int) {
	if pool == nil {
		addError(q, "trainq.TrainingQueue: AddServiceEnvironment was given a nil pool at order %d; want an ICapacityPool", order)
		return
	}
	q.envs = append(q.envs, OrderedServiceEnvironment{Pool: pool, Order: order})
	if s, ok := pool.(queueServer); ok {
		s.serveQueue(*q.Node().Path())
	}
	orders := make([]interface{}, len(q.envs))
	for i, e := range q.envs {
		orders[i] = &awsbatch.CfnJobQueue_ServiceEnvironmentOrderProperty{
			Order:              jsii.Number(e.Order),
			ServiceEnvironment: e.Pool.ServiceEnvironmentArn(),
		}
	}
	q.resource.SetServiceEnvironmentOrder(&orders)
}

// check is the queue's validation at synthesis: what depends on pools and
// shares added after construction.
func (q *trainingQueue) check() []string {
	var out []string
	add := func(format string, args ...any) {
		out = append(out, "trainq.TrainingQueue: "+fmt.Sprintf(format, args...))
	}
	if len(q.envs) == 0 {
		add("ServiceEnvironments is empty; want at least one pool (ServiceEnvironments, or AddServiceEnvironment)")
	}
	byOrder := map[int][]string{}
	for _, e := range q.envs {
		byOrder[e.Order] = append(byOrder[e.Order], *e.Pool.Node().Path())
		switch {
		case q.kind == SchedulingQuotaShare && !e.Pool.QuotaManaged():
			add("service environment %s limits NUM_INSTANCES but the scheduling policy is quota share; quota shares need pools with InstanceTypes (quota management), or give the queue a FairSharePolicy",
				*e.Pool.Node().Path())
		case q.kind == SchedulingFairShare && e.Pool.QuotaManaged():
			add("service environment %s limits capacity per instance type (quota management), which serves only a quota-share queue, but the scheduling policy is fair share; use a NUM_INSTANCES pool, or a QuotaSharePolicy",
				*e.Pool.Node().Path())
		}
	}
	for _, order := range sortedKeys(byOrder) {
		if pools := byOrder[order]; len(pools) > 1 {
			add("order %d is given to %d service environments (%s); want a unique order per service environment", order, len(pools), strings.Join(pools, ", "))
		}
	}
	out = append(out, q.checkShares("trainq.TrainingQueue", q.poolTypes())...)
	return out
}

// poolTypes are the instance types of the queue's quota-managed pools, nil
// when none says.
func (q *trainingQueue) poolTypes() map[string]int {
	var types map[string]int
	for _, e := range q.envs {
		for _, it := range e.Pool.InstanceTypes() {
			if types == nil {
				types = map[string]int{}
			}
			types[it.InstanceType] += it.Instances
		}
	}
	return types
}

// checkShares validates the queue's quota shares: at most Batch's limit per
// queue, unique names, and capacities of the queue's instance types (when
// known).
func (q *queueBase) checkShares(kind string, types map[string]int) []string {
	var out []string
	if n := len(q.shares); n > platform.MaxQuotaSharesPerQueue {
		out = append(out, fmt.Sprintf("%s: has %d quota shares; AWS Batch allows at most %d per queue", kind, n, platform.MaxQuotaSharesPerQueue))
	}
	seen := map[string]string{}
	for _, s := range q.shares {
		name := s.QuotaShareName()
		if other, ok := seen[name]; ok {
			out = append(out, fmt.Sprintf("%s: quota shares %s and %s are both named %q; want a unique QuotaShareName per queue", kind, other, *s.Node().Path(), name))
		}
		seen[name] = *s.Node().Path()
		if types == nil {
			continue
		}
		for i, c := range s.Capacity() {
			if _, ok := types[c.InstanceType]; !ok {
				out = append(out, fmt.Sprintf("%s: quota share %s: Capacity[%d].InstanceType is %q, which none of the queue's pools limits; want one of %s",
					kind, *s.Node().Path(), i, c.InstanceType, strings.Join(sortedKeys(types), ", ")))
			}
		}
	}
	return out
}

func sortedKeys[K int | string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

func (q *trainingQueue) JobQueueArn() *string                { return q.resource.AttrJobQueueArn() }
func (q *trainingQueue) SchedulingPolicy() ISchedulingPolicy { return q.policy }
func (q *trainingQueue) Priority() int                       { return q.priority }
func (q *trainingQueue) Resource() awsbatch.CfnJobQueue      { return q.resource }
func (q *trainingQueue) ServiceEnvironments() []OrderedServiceEnvironment {
	return append([]OrderedServiceEnvironment(nil), q.envs...)
}

func (q *trainingQueue) FairShares() []FairShare {
	if p, ok := q.policy.(FairSharePolicy); ok {
		return p.Shares()
	}
	return nil
}

// JobQueueName is the queue's name: the given name, else the last part of
// its ARN (a job queue's Ref is its ARN).
func (q *trainingQueue) JobQueueName() *string {
	if q.name != "" {
		return jsii.String(q.name)
	}
	return awscdk.Fn_Select(jsii.Number(1), awscdk.Fn_Split(jsii.String("/"), q.JobQueueArn(), nil))
}

func (q *queueBase) SchedulingKind() SchedulingKind { return q.kind }
func (q *queueBase) ExecutionRole() IExecutionRole  { return q.role }
func (q *queueBase) QuotaShares() []QuotaShare      { return append([]QuotaShare(nil), q.shares...) }

func (q *queueBase) GrantSubmitServiceJob(grantee awsiam.IGrantable) awsiam.Grant {
	if q.role == nil {
		addError(q, "trainq.TrainingQueue: GrantSubmitServiceJob needs the queue's ExecutionRole, which is nil")
		return awsiam.Grant_Drop(grantee, jsii.String("batch:SubmitServiceJob"))
	}
	return grantSubmitServiceJob(grantee, q.self.JobQueueArn(), q.role)
}

func (q *queueBase) AddQuotaShare(id string, props *QuotaShareProps) QuotaShare {
	s := NewQuotaShare(q.Construct, id, q.self, props)
	if q.kind != SchedulingQuotaShare {
		addError(s, "trainq.QuotaShare: the queue %s schedules by fair share; quota shares need a queue with a QuotaSharePolicy", *q.Node().Path())
	}
	q.shares = append(q.shares, s)
	return s
}

// grantSubmitServiceJob lets grantee submit to the queue: SubmitServiceJob
// acts on the queue and on the new service job, both required resources
// (Service Authorization Reference, AWS Batch), and needs the execution role
// passed.
func grantSubmitServiceJob(grantee awsiam.IGrantable, queueArn *string, role IExecutionRole) awsiam.Grant {
	submit := awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee:      grantee,
		Actions:      jsii.Strings("batch:SubmitServiceJob"),
		ResourceArns: &[]*string{queueArn, serviceJobsArn(queueArn)},
	})
	// Lineage and the platform's tags are trainq's: a job submitted
	// directly carries none of them, whatever the grantee's own policies
	// allow (an explicit deny wins over any allow).
	grantee.GrantPrincipal().AddToPrincipalPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("NoTrainqTags"),
		Effect:     awsiam.Effect_DENY,
		Actions:    jsii.Strings("batch:SubmitServiceJob", "batch:TagResource", "batch:UntagResource"),
		Resources:  jsii.Strings("*"),
		Conditions: &map[string]interface{}{"ForAnyValue:StringLike": map[string]interface{}{"aws:TagKeys": contract.TagPrefix + "*"}},
	}))
	return submit.Combine(role.GrantPassRole(grantee))
}

// serviceJobsArn is the ARN pattern of every service job in the queue's
// account and region: service jobs get their ids when submitted.
func serviceJobsArn(queueArn *string) *string {
	c := awscdk.Arn_Split(queueArn, awscdk.ArnFormat_SLASH_RESOURCE_NAME)
	return awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("arn:"), c.Partition, jsii.String(":batch:"), c.Region, jsii.String(":"), c.Account, jsii.String(":service-job/*"),
	})
}

// TrainingQueueAttributes describe an existing queue to import.
type TrainingQueueAttributes struct {
	// JobQueueArn is the ARN of the queue. Required.
	JobQueueArn string
	// ExecutionRole is the role its jobs run as. Required.
	ExecutionRole IExecutionRole
	// SchedulingKind is the kind of its scheduling policy.
	// Default: SchedulingQuotaShare.
	SchedulingKind SchedulingKind
}

type importedQueue struct {
	queueBase
	arn string
}

// FromTrainingQueueAttributes imports an existing SAGEMAKER_TRAINING queue.
// Invalid attributes fail synthesis with a message naming the attribute.
func FromTrainingQueueAttributes(scope constructs.Construct, id string, attrs *TrainingQueueAttributes) ITrainingQueue {
	if attrs == nil {
		attrs = &TrainingQueueAttributes{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	kind := attrs.SchedulingKind
	switch {
	case kind == "":
		kind = SchedulingQuotaShare
	case kind != SchedulingQuotaShare && kind != SchedulingFairShare:
		addError(c, "trainq.FromTrainingQueueAttributes: SchedulingKind is %q; want SchedulingQuotaShare or SchedulingFairShare", kind)
	}
	if attrs.ExecutionRole == nil {
		addError(c, "trainq.FromTrainingQueueAttributes: ExecutionRole is nil; want an IExecutionRole (FromExecutionRoleArn)")
	}
	if !isToken(attrs.JobQueueArn) && !batchrules.ValidJobQueueARN(attrs.JobQueueArn) {
		addError(c, "trainq.FromTrainingQueueAttributes: JobQueueArn is %q; want arn:aws:batch:REGION:ACCOUNT:job-queue/NAME", attrs.JobQueueArn)
	}
	q := &importedQueue{queueBase: queueBase{Construct: c, role: attrs.ExecutionRole, kind: kind}, arn: attrs.JobQueueArn}
	q.self = q
	addCheck(c, func() []string { return q.checkShares("trainq.FromTrainingQueueAttributes", nil) })
	return q
}

func (q *importedQueue) JobQueueArn() *string { return jsii.String(q.arn) }
func (q *importedQueue) JobQueueName() *string {
	if isToken(q.arn) {
		return awscdk.Arn_Split(jsii.String(q.arn), awscdk.ArnFormat_SLASH_RESOURCE_NAME).ResourceName
	}
	return jsii.String(batchrules.JobQueueName(q.arn))
}
func (q *importedQueue) ServiceEnvironments() []OrderedServiceEnvironment { return nil }
func (q *importedQueue) FairShares() []FairShare                          { return nil }
