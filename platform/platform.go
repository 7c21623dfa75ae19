// Package platform is trainq's single description of a GPU training platform:
// capacity pools, scheduling mode, priority classes, teams, monitoring and
// submission settings. It loads the description from YAML or JSON, applies
// documented defaults and validates it, reporting every problem at once.
// AWS Batch's own rules (names, ARNs, quota shares) are package batchrules',
// the one package of trainq it imports.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs,
// so that Lambdas, the CLI and the simulator stay small.
package platform

import "github.com/trainq/trainq/batchrules"

// Mode is the scheduling policy kind of a platform's job queue. AWS Batch makes
// the kind permanent once a policy is attached to a queue.
type Mode string

const (
	// ModeQuota uses quota shares: per-team, per-instance-type capacity with
	// lending, borrowing and preemption. It is the default.
	ModeQuota Mode = "quota"
	// ModeFairShare uses a fair-share scheduling policy: share identifiers with
	// weight factors, share decay and compute reservation.
	ModeFairShare Mode = "fairshare"
)

// Strategy is how a quota share treats idle capacity.
type Strategy string

const (
	// StrategyReserve keeps the share's idle capacity for itself.
	StrategyReserve Strategy = "reserve"
	// StrategyLend lends idle capacity to other shares but never borrows.
	StrategyLend Strategy = "lend"
	// StrategyLendAndBorrow lends idle capacity and borrows other shares' idle
	// capacity, up to the borrow limit.
	StrategyLendAndBorrow Strategy = "lend-and-borrow"
)

// BatchStrategy returns the AWS Batch spelling of s (RESERVE, LEND,
// LEND_AND_BORROW: batchrules' Strategy values), "" for an unknown s.
func (s Strategy) BatchStrategy() string {
	switch s {
	case StrategyReserve:
		return string(batchrules.Reserve)
	case StrategyLend:
		return string(batchrules.Lend)
	case StrategyLendAndBorrow:
		return string(batchrules.LendAndBorrow)
	}
	return ""
}

// Platform is the whole description. Field comments give the default applied
// by ApplyDefaults when a field is omitted. A number field whose omission is
// its 0 and which has a default is tagged zero:"refuse": Parse refuses a 0
// written there instead of replacing it by the default (see zeros.go).
type Platform struct {
	// Name prefixes every named resource (queue, functions, topic, dashboard).
	// Default: "trainq".
	Name string `json:"name,omitempty"`
	// Pools is the GPU capacity of the service environment, per instance type.
	// Required: at least one.
	Pools []Pool `json:"pools,omitempty"`
	// Scheduling selects quota shares or fair share. Default: quota.
	Scheduling Scheduling `json:"scheduling"`
	// Classes are the priority classes. Default: production, research, sweep.
	Classes []Class `json:"classes,omitempty"`
	// Teams are the shares of the queue. Required: at least one.
	Teams []Team `json:"teams,omitempty"`
	// Monitoring holds alarm thresholds and targets.
	Monitoring Monitoring `json:"monitoring"`
	// Submission says who may submit which class and which instance types.
	Submission Submission `json:"submission"`
	// Training lists what the SageMaker execution role may reach.
	Training Training `json:"training"`
	// Rerouting bounds the re-router, which runs when a class sets reroute.
	Rerouting Rerouting `json:"rerouting"`
	// Ledger says how long the job ledger keeps jobs and what an
	// instance-hour costs.
	Ledger Ledger `json:"ledger"`
}

// Ledger configures the job ledger (a DynamoDB table written by the
// observer; trainq history, usage and trace export read it).
type Ledger struct {
	// RetentionDays is how long the ledger keeps a job after it ended (the
	// table's time to live). Default: 400 (about 13 months).
	RetentionDays int `json:"retentionDays,omitempty" zero:"refuse"`
	// HourlyPrices is the price of one instance-hour of each instance type
	// (a pool's), in the currency the organisation bills in, for the cost
	// column of trainq usage. Default: none, and usage shows no cost.
	HourlyPrices map[string]float64 `json:"hourlyPrices,omitempty"`
}

// Rerouting holds the re-router's platform-wide bounds.
type Rerouting struct {
	// MaxMovesPerMinute bounds the moves of all classes together per
	// minute (1–120): each move is one SubmitServiceJob, and AWS Batch
	// allows about 5 submissions a second per account, shared with the
	// submission function. Default: 30.
	MaxMovesPerMinute int `json:"maxMovesPerMinute,omitempty" zero:"refuse"`
	// EveryMinutes is how often the re-router runs (1–60). Default: 1.
	EveryMinutes int `json:"everyMinutes,omitempty" zero:"refuse"`
}

// Pool is a capacity of one instance type.
type Pool struct {
	// InstanceType is a SageMaker training instance type, e.g. ml.p5.48xlarge.
	InstanceType string `json:"instanceType"`
	// Instances is how many instances of the type may run at once.
	Instances int `json:"instances"`
}

// Scheduling configures the queue's scheduling policy.
type Scheduling struct {
	// Mode is quota or fairshare. Default: quota.
	Mode Mode `json:"mode,omitempty"`
	// QueuePriority is the job queue's priority among queues sharing the
	// service environment (0–1000, higher first). Default: 10.
	QueuePriority *int `json:"queuePriority,omitempty"`
	// ShareDecaySeconds (fairshare only, 0–604800) is the period over which past
	// usage counts against a share. Default: 3600.
	ShareDecaySeconds *int `json:"shareDecaySeconds,omitempty"`
	// ComputeReservation (fairshare only, 0–99) reserves capacity for share
	// identifiers that are not yet active: (r/100)^activeShares of the pool.
	// Default: 0.
	ComputeReservation *int `json:"computeReservation,omitempty"`
	// JobStateTimeLimitActions are the queue's jobStateTimeLimitActions: for
	// each of AWS Batch's reasons a job at the head of the queue cannot run,
	// how long Batch lets it block the queue in RUNNABLE before it
	// terminates it, so that the jobs behind it run. At most one per
	// reason; an empty list sets none. Default:
	// DefaultJobStateTimeLimitActions (the two misconfigurations terminate
	// after 600 s; a lack of SageMaker capacity waits).
	JobStateTimeLimitActions []JobStateTimeLimitAction `json:"jobStateTimeLimitActions"`
}

// JobStateTimeLimitAction terminates a job that has blocked the queue in
// RUNNABLE for Reason longer than MaxTimeSeconds (Batch's
// JobStateTimeLimitAction with state RUNNABLE and action TERMINATE, the only
// action of a SAGEMAKER_TRAINING queue).
type JobStateTimeLimitAction struct {
	// Reason is one of batchrules.TimeLimitReasons():
	// CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY,
	// MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE or
	// MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED. Required.
	Reason string `json:"reason"`
	// MaxTimeSeconds is how long the job may block the queue first,
	// 600–86400. Required.
	MaxTimeSeconds int `json:"maxTimeSeconds"`
}

// Band is an inclusive range of AWS Batch scheduling priorities (0–9999,
// higher runs first).
type Band struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Contains reports whether sp lies in the band.
func (b Band) Contains(sp int) bool { return sp >= b.Min && sp <= b.Max }

// Class is a priority class such as production, research or sweep.
type Class struct {
	// Name is the class name; it is also the name of the submission function's
	// alias that grants the class. Required.
	Name string `json:"name"`
	// Priority is the class's scheduling-priority band. Bands never overlap, so
	// that the class of a job can be read back from its scheduling priority.
	// Required.
	Priority Band `json:"priority"`
	// MaxRuntimeSeconds caps one attempt of a job (Batch timeoutConfig).
	// Default: 432000 (5 days).
	MaxRuntimeSeconds int `json:"maxRuntimeSeconds,omitempty" zero:"refuse"`
	// Retries is how many times a failed job is retried (0–9; Batch attempts =
	// Retries+1). Default: 0.
	Retries *int `json:"retries,omitempty"`
	// PreemptionRetries is how many times a preempted job is requeued before it
	// is terminated (0–9999). Default: unlimited.
	PreemptionRetries *int `json:"preemptionRetries,omitempty"`
	// Reroute, when set, lets the re-router move the class's jobs that have
	// waited in RUNNABLE past AfterSeconds on an instance type saturated for
	// their team to another of InstanceTypes with headroom. Default: off.
	Reroute *Reroute `json:"reroute,omitempty"`
	// Checkpoints, when set, gives each job of the class a SageMaker
	// CheckpointConfig under its team's artifacts prefix, so that a
	// preempted or moved job resumes where it stopped. Default: off.
	Checkpoints *Checkpoints `json:"checkpoints,omitempty"`
}

// Reroute is a class's re-routing: which waiting jobs move, and where to.
type Reroute struct {
	// AfterSeconds is how long a job waits in RUNNABLE before it may move
	// (60–86400). Default: 1800.
	AfterSeconds int `json:"afterSeconds,omitempty" zero:"refuse"`
	// InstanceTypes are the instance types the class's jobs may move
	// between, in order of preference: at least two, each once, each one of
	// submission.instanceTypes. A job moves only if its own type is one of
	// them. Required.
	InstanceTypes []string `json:"instanceTypes"`
	// MaxMoves bounds how many times one job is moved (1–10), its moves
	// counted along its lineage. Default: 3.
	MaxMoves int `json:"maxMoves,omitempty" zero:"refuse"`
}

// Checkpoints are a class's checkpoint settings.
type Checkpoints struct {
	// IntervalSeconds is how often the class's training code writes a
	// checkpoint (60–86400): the simulator counts the work since the last
	// one as lost at a preemption. It changes nothing in AWS. Default: 1800.
	IntervalSeconds int `json:"intervalSeconds,omitempty" zero:"refuse"`
	// OnStop says the class's training code also writes a checkpoint when
	// SageMaker stops the job: on a preemption or a timeout AWS Batch stops
	// the training job, and SageMaker sends SIGTERM and waits 120 s before
	// it ends it. The simulator then counts no work lost at a stop. It
	// changes nothing in AWS. Default: false.
	OnStop *bool `json:"onStop,omitempty"`
}

// ReroutesAfter returns the class's wait threshold in seconds and whether
// its jobs are re-routed at all.
func (c Class) ReroutesAfter() (seconds int, on bool) {
	if c.Reroute == nil {
		return 0, false
	}
	return c.Reroute.AfterSeconds, true
}

// CheckpointsOnStop reports whether the class's training code writes a
// checkpoint when SageMaker stops its job (Checkpoints.OnStop).
func (c Class) CheckpointsOnStop() bool {
	return c.Checkpoints != nil && c.Checkpoints.OnStop != nil && *c.Checkpoints.OnStop
}

// CheckpointInterval returns the class's checkpoint interval in seconds and
// whether its jobs get a checkpoint location at all.
func (c Class) CheckpointInterval() (seconds int, on bool) {
	if c.Checkpoints == nil {
		return 0, false
	}
	return c.Checkpoints.IntervalSeconds, true
}

// Attempts is Batch's retryStrategy.attempts for the class.
func (c Class) Attempts() int {
	if c.Retries == nil {
		return 1
	}
	return *c.Retries + 1
}

// RequestPriorityMax is the highest priority a request may ask for inside its
// class band; request priorities run from 0 to RequestPriorityMax.
const RequestPriorityMax = 99

// DefaultRequestPriority is used when a request names no priority: the middle
// of the band.
const DefaultRequestPriority = 50

// SchedulingPriority maps a request priority (0–RequestPriorityMax) linearly
// onto the class band: 0 → Min, RequestPriorityMax → Max. With the default
// bands, which are 100 wide, priority p maps to Min+p.
func (c Class) SchedulingPriority(p int) int {
	if p < 0 {
		p = 0
	}
	if p > RequestPriorityMax {
		p = RequestPriorityMax
	}
	return c.Priority.Min + p*(c.Priority.Max-c.Priority.Min)/RequestPriorityMax
}

// Team is one share of the queue.
type Team struct {
	// Name is the quota share name or fair-share identifier. Required.
	Name string `json:"name"`
	// Weight (fairshare only, 0.0001–999.9999) is the share's weight factor:
	// a lower weight gets a larger share. Default: 1.
	Weight float64 `json:"weight,omitempty" zero:"refuse"`
	// Capacity (quota only) is the share's guaranteed capacity, 1–5 instance
	// types. Required in quota mode.
	Capacity []Pool `json:"capacity,omitempty"`
	// Sharing (quota only) is reserve, lend or lend-and-borrow.
	// Default: lend-and-borrow.
	Sharing Strategy `json:"sharing,omitempty"`
	// BorrowLimitPercent (quota only, lend-and-borrow only) caps borrowing as a
	// percentage of the share's capacity, -1 for unlimited. Default: unlimited.
	BorrowLimitPercent *int `json:"borrowLimitPercent,omitempty"`
	// InSharePreemption (quota only) lets a higher-priority job preempt a
	// lower-priority one of the same share. Default: true.
	InSharePreemption *bool `json:"inSharePreemption,omitempty"`
	// Training lists what this team's execution role may reach besides the
	// team's prefix of the artifacts bucket and the platform-wide training
	// locations. Default: nothing more.
	Training *TeamTraining `json:"training,omitempty"`
	// Budgets limit the team's instance-hours (or cost) per month or
	// rolling 30 days, each with what a submission gets past 100% per
	// class (budget.go). Default: none.
	Budgets []Budget `json:"budgets,omitempty"`
}

// TeamTraining lists S3 locations and ECR repositories only one team's jobs
// may reach, written as in Training.
type TeamTraining struct {
	// S3Read are S3 locations the team's jobs may read. Default: none.
	S3Read []string `json:"s3Read,omitempty"`
	// S3Write are S3 locations the team's jobs may read and write.
	// Default: none.
	S3Write []string `json:"s3Write,omitempty"`
	// ECRRepositories are ECR repositories (in the stack's account and
	// region) the team's jobs may pull from. Default: none.
	ECRRepositories []string `json:"ecrRepositories,omitempty"`
	// VPC runs the team's jobs in subnets and security groups of its own,
	// in place of training.vpc. The execution role may change network
	// interfaces only in its own subnets (condition ec2:Subnet), so teams
	// whose jobs must not delete or modify each other's interfaces each
	// declare subnets no other team uses (Validate refuses a subnet of two
	// fences). Default: training.vpc.
	VPC *TrainingVPC `json:"vpc,omitempty"`
}

// TrainingOf returns the team's own training locations (empty when none).
func (t Team) TrainingOf() TeamTraining {
	if t.Training == nil {
		return TeamTraining{}
	}
	return *t.Training
}

// BorrowLimit returns the borrow limit in percent, -1 meaning unlimited.
func (t Team) BorrowLimit() int {
	if t.BorrowLimitPercent == nil {
		return -1
	}
	return *t.BorrowLimitPercent
}

// PreemptsInShare reports whether in-share preemption is on.
func (t Team) PreemptsInShare() bool {
	return t.InSharePreemption == nil || *t.InSharePreemption
}

// CapacityOf returns the team's quota of instanceType (0 when none).
func (t Team) CapacityOf(instanceType string) int {
	for _, c := range t.Capacity {
		if c.InstanceType == instanceType {
			return c.Instances
		}
	}
	return 0
}

// Monitoring holds alarm thresholds and where alarms go.
type Monitoring struct {
	// Enabled turns the monitor (metrics functions, alarms, dashboard) on.
	// Default: true.
	Enabled *bool `json:"enabled,omitempty"`
	// AlarmEmails receive alarm notifications through the alarm topic.
	// Default: none (subscribe to the topic yourself).
	AlarmEmails []string `json:"alarmEmails,omitempty"`
	// MaxWaitSeconds is, per class, how long the oldest runnable job may wait
	// before an alarm. Default: production 900, research 7200, sweep 43200,
	// any other class 3600.
	MaxWaitSeconds map[string]int `json:"maxWaitSeconds,omitempty"`
	// UtilizationTargetPercent is the capacity utilization below which idle
	// capacity while work waits raises an alarm (1–100). Default: 80.
	UtilizationTargetPercent int `json:"utilizationTargetPercent,omitempty" zero:"refuse"`
	// IdleAlarmSeconds is how long utilization must stay below target while
	// jobs are runnable before the alarm fires (60–86400, whole minutes).
	// Default: 1800.
	IdleAlarmSeconds int `json:"idleAlarmSeconds,omitempty" zero:"refuse"`
	// FailureAlarmClasses are the classes whose every failed job raises an
	// alarm. Default: [production].
	FailureAlarmClasses []string `json:"failureAlarmClasses"`
	// LogRetentionDays is the retention of the functions' log groups.
	// Default: 30.
	LogRetentionDays int `json:"logRetentionDays,omitempty" zero:"refuse"`
	// Page is where alarms of severity page go: what on-call must fix now.
	// Default: a new topic, with AlarmEmails subscribed.
	Page AlarmTarget `json:"page,omitzero"`
	// Ticket is where alarms of severity ticket go: what someone fixes in
	// working hours (a team's own failing code, its full quota, a
	// degraded but working pipeline). Default: a second new topic, with
	// AlarmEmails subscribed.
	Ticket AlarmTarget `json:"ticket,omitzero"`
	// PagingClasses are the classes whose waits with room in the team's
	// quota, and whose failures the platform or AWS caused, page; every
	// other class's alarms are tickets. Default: [production].
	PagingClasses []string `json:"pagingClasses"`
	// RunbookURL is the runbooks page each alarm's description links, a
	// section per alarm (#alarm-name). Default: DefaultRunbookURL.
	RunbookURL string `json:"runbookUrl,omitempty"`
}

// AlarmTarget is where the alarms of one severity go.
type AlarmTarget struct {
	// Emails are subscribed to the severity's topic. Default: none.
	Emails []string `json:"emails,omitempty"`
	// TopicARN is an SNS topic of yours (a paging service's integration,
	// say) that the severity's alarms notify instead of a topic trainq
	// creates; its policy must let cloudwatch.amazonaws.com publish.
	// Default: none (trainq creates the topic).
	TopicARN string `json:"topicArn,omitempty"`
}

// Severities of alarms.
const (
	SeverityPage   = "page"
	SeverityTicket = "ticket"
)

// IsEnabled reports whether monitoring is on.
func (m Monitoring) IsEnabled() bool { return m.Enabled == nil || *m.Enabled }

// Submission configures the submission function.
type Submission struct {
	// InstanceTypes are the instance types jobs may use, in fallback order.
	// Default: the pool's types, in pool order.
	InstanceTypes []string `json:"instanceTypes,omitempty"`
	// Submitters are IAM roles granted to submit, describe, cancel and
	// re-prioritize jobs of the listed classes for the listed teams, and to
	// see those teams' jobs in the queue. The submission function decides
	// from the caller's verified identity (see Access). Default: none.
	Submitters []Submitter `json:"submitters,omitempty"`
	// Operators are IAM roles that act platform-wide: submit any class for
	// any team, describe, cancel and re-prioritize any job, see every job.
	// No role is an operator unless listed here. Default: none.
	Operators []Operator `json:"operators,omitempty"`
}

// Operator is an IAM role that acts for every class and team.
type Operator struct {
	// RoleARN is the ARN of an existing IAM role.
	RoleARN string `json:"roleArn"`
}

// Submitter grants an existing IAM role the right to submit some classes
// for some teams: every (class, team) pair of the two lists.
type Submitter struct {
	// RoleARN is the ARN of an existing IAM role.
	RoleARN string `json:"roleArn"`
	// Classes are the class names the role may submit.
	Classes []string `json:"classes"`
	// Teams are the team names the role may submit for. Required: a
	// submitter without teams is refused rather than granted every team
	// (list them all to mean that), so that no grant reaches a team's quota
	// share unnamed.
	Teams []string `json:"teams"`
}

// Training lists what the SageMaker execution role may reach, beyond the
// platform's own artifacts bucket.
type Training struct {
	// S3Read are S3 locations the jobs may read: s3://bucket/ (the whole
	// bucket), s3://bucket/prefix/ (a prefix, ending in "/") or
	// s3://bucket/path/file.ext (one object); see ParseS3URI for the rules.
	// Default: none.
	S3Read []string `json:"s3Read,omitempty"`
	// S3Write are S3 locations the jobs may read and write, written as in
	// S3Read. Default: none.
	S3Write []string `json:"s3Write,omitempty"`
	// ECRRepositories are names of ECR repositories in the stack's account and
	// region that hold training images. Default: none.
	ECRRepositories []string `json:"ecrRepositories,omitempty"`
	// AWSManagedImages lets jobs pull AWS's prebuilt training images (AWS Deep Learning Containers,
	// which the SageMaker Python SDK picks by default) from AWS's ECR registries. Default: true.
	AWSManagedImages *bool `json:"awsManagedImages,omitempty"`
	// VPC runs the jobs in these subnets and security groups (SageMaker VpcConfig); the execution
	// role then gets the EC2 network-interface permissions SageMaker documents. Default: none.
	VPC *TrainingVPC `json:"vpc,omitempty"`
	// KMSKeys are ARNs of KMS keys the jobs may use: SSE-KMS buckets, output, volume and checkpoint
	// keys, encrypted repositories. Default: none.
	KMSKeys []string `json:"kmsKeys,omitempty"`
	// LogRetentionDays is the retention the stack sets on SageMaker's training log group
	// (/aws/sagemaker/TrainingJobs), which SageMaker creates without one: one of CloudWatch
	// Logs' retentions. The group is the account's and region's, shared by every SageMaker
	// training job there, trainq's or not. Default: DefaultTrainingLogRetentionDays (400, about
	// 13 months, as long as the ledger remembers a job).
	LogRetentionDays int `json:"logRetentionDays,omitempty" zero:"refuse"`
}

// UsesAWSManagedImages reports whether AWSManagedImages is on (true when unset).
func (t Training) UsesAWSManagedImages() bool {
	return t.AWSManagedImages == nil || *t.AWSManagedImages
}

// TrainingVPC is where jobs run when they use a VPC.
type TrainingVPC struct {
	// Subnets are subnet IDs (subnet-0123abcd…), 1–16.
	Subnets []string `json:"subnets"`
	// SecurityGroups are security group IDs (sg-0123abcd…), 1–5.
	SecurityGroups []string `json:"securityGroups"`
}
