package contract

// The job ledger's reads other than usage: history (a row per job with its
// attempts, like Slurm's sacct) and export (the jobs as the rows of a
// simulator trace). Both read the window [since, until] page by page: an
// answer holds at most a page's rows and Next, the cursor of the rest,
// which the caller sends back (Request.Cursor) until Next is empty.
// Through a (class, team) alias the caller sees its team's jobs in full
// and other teams' without id, name, status reasons, training jobs,
// checkpoint or lineage (Redacted); an operator (no alias) sees every job
// in full. Field names are a public contract, documented in
// docs/submission.md.

// Ledger read actions.
const (
	// ActionHistory lists the jobs alive in a window (Response.History).
	ActionHistory = "history"
	// ActionExport lists the jobs submitted in a window as trace rows
	// (Response.Trace).
	ActionExport = "export"
)

// Limits of the ledger reads.
const (
	// MaxHistoryPageJobs bounds HistoryView.Jobs: a job with its attempts
	// is at most a few KiB of JSON, well within Lambda's 6 MB answer.
	MaxHistoryPageJobs = 500
	// MaxTracePageRows bounds TraceView.Rows (about 150 bytes each).
	MaxTracePageRows = 5000
	// MaxLedgerPageQueries bounds the DynamoDB queries of one page, so
	// that a page whose filters keep few jobs still answers in time (with
	// fewer rows, and Next).
	MaxLedgerPageQueries = 20
	// MaxHistoryFilters bounds each of Request.Teams, Classes and States.
	MaxHistoryFilters = 20
)

// HistoryView is one page of the history of [Since, Until] (RFC 3339).
type HistoryView struct {
	Since string `json:"since"`
	Until string `json:"until"`
	// Scope says what the caller sees.
	Scope string `json:"scope"`
	// Jobs are the page's jobs, in no particular order (the CLI sorts
	// them), at most MaxHistoryPageJobs.
	Jobs []HistoryRow `json:"jobs"`
	// Next is the cursor of the rest of the window; empty on the last
	// page.
	Next string `json:"next,omitempty"`
}

// HistoryRow is one job of the ledger.
type HistoryRow struct {
	// JobID, JobName, StatusReason, Checkpoint, ReroutedFrom and MovedTo
	// are empty for a Redacted job.
	JobID    string `json:"jobId,omitempty"`
	JobName  string `json:"jobName,omitempty"`
	Redacted bool   `json:"redacted,omitempty"`
	Team     string `json:"team"`
	Class    string `json:"class"`
	// State is the job's outcome: succeeded, failed, cancelled, rerouted,
	// preempted, timed-out, or running while it lives.
	State string `json:"state"`
	// Status is Batch's latest status of the job.
	Status             string `json:"status"`
	StatusReason       string `json:"statusReason,omitempty"`
	SchedulingPriority int    `json:"schedulingPriority"`
	InstanceType       string `json:"instanceType"`
	Instances          int    `json:"instances"`
	// CreatedAt and EndedAt are RFC 3339 (milliseconds when not whole
	// seconds); EndedAt is empty while the job lives.
	CreatedAt string `json:"createdAt"`
	EndedAt   string `json:"endedAt,omitempty"`
	// WaitSeconds is from creation to the first attempt's start (-1: it
	// never started).
	WaitSeconds float64 `json:"waitSeconds"`
	// Preemptions is how many of its attempts were preempted.
	Preemptions int              `json:"preemptions"`
	Attempts    []HistoryAttempt `json:"attempts"`
	// Checkpoint is where the job keeps checkpoints; ReroutedFrom the job
	// it replaced and MovedTo the job that replaced it (re-router).
	Checkpoint   string `json:"checkpoint,omitempty"`
	ReroutedFrom string `json:"reroutedFrom,omitempty"`
	MovedTo      string `json:"movedTo,omitempty"`
}

// HistoryAttempt is one attempt of a HistoryRow.
type HistoryAttempt struct {
	StartedAt string `json:"startedAt"`
	// StoppedAt is empty while the attempt runs.
	StoppedAt string `json:"stoppedAt,omitempty"`
	// Seconds is how long it ran (to the answer's moment while it runs).
	Seconds float64 `json:"seconds"`
	// Outcome is running, completed, preempted, timed-out or failed.
	Outcome string `json:"outcome"`
	// StatusReason and TrainingJob (the SageMaker training job's ARN) are
	// empty for a Redacted job.
	StatusReason string `json:"statusReason,omitempty"`
	TrainingJob  string `json:"trainingJob,omitempty"`
}

// TraceView is one page of the trace of [Since, Until]: the jobs submitted
// in it that ran and ended, as `trainq simulate --trace` replays them.
type TraceView struct {
	Since string `json:"since"`
	Until string `json:"until"`
	Scope string `json:"scope"`
	// Rows are at most MaxTracePageRows, in no particular order (the CLI
	// sorts the whole trace).
	Rows []TraceRow `json:"rows"`
	Next string     `json:"next,omitempty"`
}

// TraceRow is one job as a trace row (the trace CSV's columns).
type TraceRow struct {
	// SubmitSeconds is from Since to the job's creation.
	SubmitSeconds int64 `json:"submitSeconds"`
	// DurationSeconds is the completing attempt's run (the last
	// attempt's, for a job that failed after running).
	DurationSeconds int64  `json:"durationSeconds"`
	Instances       int    `json:"instances"`
	InstanceType    string `json:"instanceType"`
	Class           string `json:"class"`
	Team            string `json:"team"`
	// JobName is empty for another team's job seen through an alias.
	JobName string `json:"jobName,omitempty"`
	// Priority is the request priority (0-99) whose band position gives
	// the job's scheduling priority; -1 when none does.
	Priority int `json:"priority"`
}
