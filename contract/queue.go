package contract

// Queue visibility: why a job waits (describe's Explanation) and what the
// queue holds (the queue action's QueueView). The submission function
// fills them from AWS Batch's GetJobQueueSnapshot, ListServiceJobs and
// DescribeServiceJob; the CLI prints them (trainq status, trainq queue) and
// estimates start times from them. Field names are a public contract,
// documented in docs/submission.md. Every string the function copies from
// Batch is cut at MaxShownChars (Cut), and every list is bounded.

// ActionQueue lists the queue's waiting and running jobs with the
// snapshot's positions and usage (Response.Queue).
const ActionQueue = "queue"

// Limits of the queue answer.
const (
	// MaxQueueJobs bounds the jobs a queue answer lists, and so the
	// DescribeServiceJob calls it makes (each job's class, priority and
	// instances are only in its description). Jobs are listed running
	// first (RUNNING, STARTING, SCHEDULED, then RUNNABLE); past the bound
	// QueueView.Truncated is true and QueueView.Note says what was left out.
	MaxQueueJobs = 100
	// MaxQueueListPages bounds the ListServiceJobs pages read per status
	// (100 jobs a page).
	MaxQueueListPages = 2
	// MaxUsageRows bounds QueueView.Usage and Explanation.Usage: at most
	// 20 quota shares (AWS Batch's limit per queue) times 5 instance types
	// (a share's limit), plus a row per type for the queue as a whole.
	MaxUsageRows = 20*5 + 5
)

// Wait reasons: Explanation.Reason, one word each, the plain words in
// Explanation.Message.
const (
	// ReasonQueueBlocked: Batch set the job's status reason to one of the
	// reasons a job blocks the head of the queue
	// (batchrules.TimeLimitReasons, e.g.
	// MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED); Explanation.Blocked
	// holds it.
	ReasonQueueBlocked = "queue-blocked"
	// ReasonNotInPool: the job's instance type is not in the platform's
	// pool; it never starts.
	ReasonNotInPool = "not-in-pool"
	// ReasonNeverFits: the job needs more instances than its share could
	// ever hold (its quota and borrow limit, within the pool less the other
	// reserve shares' quotas); it never starts.
	ReasonNeverFits = "never-fits"
	// ReasonQuotaFull: the job would take its share beyond its quota, and
	// the share may not borrow (reserve or lend, or a borrow limit of 0) or
	// there is no idle capacity to borrow.
	ReasonQuotaFull = "quota-full"
	// ReasonBorrowLimit: the job would take its share beyond its quota plus
	// borrow limit.
	ReasonBorrowLimit = "borrow-limit"
	// ReasonPoolFull: the share may hold the job's instances, but the pool
	// has too few idle ones (fair share, or capacity the share cannot take
	// back).
	ReasonPoolFull = "pool-full"
	// ReasonBehindTeam: there is room for the job, but jobs of its own
	// share are ahead of it (higher priority, or earlier at the same one).
	ReasonBehindTeam = "behind-team"
	// ReasonReclaiming: the job fits within its share's quota once Batch
	// preempts jobs of other shares that borrow it.
	ReasonReclaiming = "reclaiming"
	// ReasonNext: there is room and no job of its share is ahead: Batch
	// should start it at its next scheduling pass.
	ReasonNext = "next"
	// ReasonStarting: the job is SCHEDULED or STARTING: Batch has placed it
	// and SageMaker is starting its instances.
	ReasonStarting = "starting"
	// ReasonUnknown: the snapshot had no usage to judge by.
	ReasonUnknown = "unknown"
)

// WaitReasons lists the reasons, in the order the function checks them.
func WaitReasons() []string {
	return []string{ReasonStarting, ReasonQueueBlocked, ReasonNotInPool, ReasonNeverFits, ReasonBorrowLimit,
		ReasonQuotaFull, ReasonPoolFull, ReasonBehindTeam, ReasonReclaiming, ReasonNext, ReasonUnknown}
}

// Explanation says why a waiting job (SUBMITTED, PENDING, RUNNABLE,
// SCHEDULED or STARTING) has not started. Describe sets it on such jobs
// (Response.Explanation) when the snapshot could be read; a job that runs
// or has ended has none.
type Explanation struct {
	// Reason is one of WaitReasons.
	Reason string `json:"reason"`
	// Message says it in plain words, with the numbers.
	Message string `json:"message"`
	// QueuePosition is the job's 1-based place among the first RUNNABLE
	// jobs of the queue (the snapshot's frontOfQueue, at most 100); 0 when
	// it is not among them.
	QueuePosition int `json:"queuePosition,omitempty"`
	// QueueListed is how many jobs frontOfQueue listed.
	QueueListed int `json:"queueListed"`
	// SharePosition is the job's 1-based place among the first RUNNABLE
	// jobs of its share (frontOfQuotaShares); 0 when it is not among them.
	SharePosition int `json:"sharePosition,omitempty"`
	// AtPositionSince is when the job reached its place in the queue
	// (earliestTimeAtPosition), RFC 3339.
	AtPositionSince string `json:"atPositionSince,omitempty"`
	// ShareFront is the id of the job at the front of the job's share when
	// another job is there (a job of the same team, which the caller sees).
	ShareFront string `json:"shareFront,omitempty"`
	// Blocked is the reason code of Batch's status reason when the job
	// blocks the queue (one of batchrules.TimeLimitReasons).
	Blocked string `json:"blocked,omitempty"`
	// InstanceType and Instances are what the job asks for.
	InstanceType string `json:"instanceType"`
	Instances    int    `json:"instances"`
	// Usage is the job's share's usage of the job's instance type against
	// its quota, and the pool's.
	Usage []ShareUsage `json:"usage"`
	// SnapshotAt is when the snapshot's usage was last updated, RFC 3339.
	SnapshotAt string `json:"snapshotAt,omitempty"`
	// RerouteTo is, when the job's class reroutes and its own type has no
	// room for it, the type the re-router would move it to now
	// (platform.RerouteTarget); the message says when.
	RerouteTo string `json:"rerouteTo,omitempty"`
}

// ShareUsage is one share's (or, with Share "", the whole queue's) usage of
// one instance type, with its limits by AWS Batch's quota rules
// (batchrules.Limit, batchrules.TypeState.Room).
type ShareUsage struct {
	// Share is the quota share or fair-share identifier; "" for the queue.
	Share        string `json:"share"`
	InstanceType string `json:"instanceType"`
	// Used is the instances of the type the share (or queue) holds.
	Used int `json:"used"`
	// Pool is the service environment's instances of the type, PoolInUse
	// those the queue holds.
	Pool      int `json:"pool"`
	PoolInUse int `json:"poolInUse"`
	// Quota is the share's capacity limit of the type (quota mode).
	Quota int `json:"quota,omitempty"`
	// Sharing is the share's strategy in Batch's spelling (RESERVE, LEND,
	// LEND_AND_BORROW), quota mode only.
	Sharing string `json:"sharing,omitempty"`
	// BorrowLimitPercent is the share's borrow limit (-1: none), and
	// MaxBorrowed the instances beyond Quota it may hold.
	BorrowLimitPercent int `json:"borrowLimitPercent,omitempty"`
	MaxBorrowed        int `json:"maxBorrowed,omitempty"`
	// Borrowed is how many of Used are beyond Quota.
	Borrowed int `json:"borrowed,omitempty"`
	// Room is what the share could start now on idle capacity (IdleRoom)
	// and within its quota counting what Batch takes back from borrowers
	// (ReclaimRoom), in instances (quota mode).
	IdleRoom    int `json:"idleRoom"`
	ReclaimRoom int `json:"reclaimRoom"`
}

// QueueView is the queue action's answer (Response.Queue): the waiting and
// running jobs and the usage of every share.
//
// Through a (class, team) alias the caller sees its team's jobs (every
// class) in full, and other teams' jobs without their id, ARN, name and
// status reason (Redacted): their share, class, status, priority,
// instances, times and positions, which is what the usage and the start
// estimate need. An operator (no alias) sees every job in full.
type QueueView struct {
	JobQueue string `json:"jobQueue"`
	// At is when the function answered, RFC 3339; ages count to it.
	At string `json:"at"`
	// Scope says what the caller sees.
	Scope string `json:"scope"`
	// Jobs are the listed jobs: RUNNING, STARTING, SCHEDULED, then
	// RUNNABLE; in each, the queue's order where the snapshot gives it,
	// else oldest first. At most MaxQueueJobs.
	Jobs []QueueJob `json:"jobs"`
	// Usage is every share's usage of every pool instance type, and the
	// queue's (Share ""). At most MaxUsageRows.
	Usage []ShareUsage `json:"usage"`
	// QueueListed is how many jobs the snapshot's frontOfQueue listed.
	QueueListed int `json:"queueListed"`
	// Truncated is true when jobs were left out (over MaxQueueJobs, or
	// past MaxQueueListPages pages of a status); Note says which.
	Truncated bool   `json:"truncated,omitempty"`
	Note      string `json:"note,omitempty"`
	// Unlisted counts the jobs listed by Batch but left out past
	// MaxQueueJobs, by status, team and instance type (their class and
	// priority are unknown: only a description has them); at most
	// MaxUsageRows rows. Uncounted is true when a status had more than
	// MaxQueueListPages pages: those jobs are not even counted.
	Unlisted  []QueueCount `json:"unlisted,omitempty"`
	Uncounted bool         `json:"uncounted,omitempty"`
	// History is the queue's recent past (runtimes and arrivals per class
	// and team) that the CLI's likely start draws from; nil with
	// NoHistory saying why when the function has none.
	History   *History `json:"history,omitempty"`
	NoHistory string   `json:"noHistory,omitempty"`
	// SnapshotAt is when the snapshot's usage was last updated, RFC 3339.
	SnapshotAt string `json:"snapshotAt,omitempty"`
	// RerouteTo is, when the job's class reroutes and its own type has no
	// room for it, the type the re-router would move it to now
	// (platform.RerouteTarget); the message says when.
	RerouteTo string `json:"rerouteTo,omitempty"`
}

// QueueJob is one job of a QueueView.
type QueueJob struct {
	// JobID, JobName and StatusReason are empty for a Redacted job.
	JobID   string `json:"jobId,omitempty"`
	JobName string `json:"jobName,omitempty"`
	// Redacted is true for another team's job seen through an alias.
	Redacted bool   `json:"redacted,omitempty"`
	Team     string `json:"team"`
	// Class is the job's class (its trainq:class tag, or its priority's
	// band); "" when neither names one.
	Class              string `json:"class"`
	Status             string `json:"status"`
	SchedulingPriority int    `json:"schedulingPriority"`
	InstanceType       string `json:"instanceType"`
	Instances          int    `json:"instances"`
	// MaxRuntimeSeconds is the job's limit per attempt (its
	// timeoutConfig), else its class's.
	MaxRuntimeSeconds int `json:"maxRuntimeSeconds,omitempty"`
	// CreatedAt and StartedAt (RUNNING and STARTING jobs) are RFC 3339;
	// AgeSeconds counts from CreatedAt, RunningSeconds from StartedAt, to
	// QueueView.At.
	CreatedAt      string `json:"createdAt,omitempty"`
	StartedAt      string `json:"startedAt,omitempty"`
	AgeSeconds     int64  `json:"ageSeconds"`
	RunningSeconds int64  `json:"runningSeconds,omitempty"`
	// QueuePosition and SharePosition are 1-based places in the
	// snapshot's frontOfQueue and frontOfQuotaShares (RUNNABLE jobs); 0
	// when not listed there.
	QueuePosition int    `json:"queuePosition,omitempty"`
	SharePosition int    `json:"sharePosition,omitempty"`
	StatusReason  string `json:"statusReason,omitempty"`
}
