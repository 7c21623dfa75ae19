package contract

// The queue's recent past, as the queue action carries it (QueueView.History)
// for the CLI's likely start: how long jobs of each class and team ran, and
// how many were submitted, over a window that ends now. The submission
// function fills it from the job ledger; it is a bounded summary, never the
// jobs themselves.

// Limits of the history summary.
const (
	// MaxHistoryGroups bounds History.Groups: one per class and team.
	MaxHistoryGroups = 64
	// MaxHistorySamples bounds HistoryGroup.Jobs: the group's most recent
	// completed jobs.
	MaxHistorySamples = 48
	// DefaultHistoryDays is the window the function summarizes.
	DefaultHistoryDays = 7
)

// History is a summary of the jobs of a window [From, To).
type History struct {
	// Source says where it comes from (e.g. "job ledger").
	Source string `json:"source"`
	// From and To bound the window, RFC 3339.
	From string `json:"from"`
	To   string `json:"to"`
	// Groups are per class and team, at most MaxHistoryGroups.
	Groups []HistoryGroup `json:"groups"`
	// Note says what the summary left out.
	Note string `json:"note,omitempty"`
}

// HistoryGroup is one class and team's part of a History.
type HistoryGroup struct {
	Class string `json:"class"`
	Team  string `json:"team"`
	// Submitted is how many of the group's jobs were submitted in the
	// window: its arrival rate.
	Submitted int `json:"submitted"`
	// SubmittedByHour splits Submitted by the hour of the day (UTC) they
	// were submitted in: 24 counts, so that arrivals follow the daily
	// cycle. Empty: spread evenly.
	SubmittedByHour []int `json:"submittedByHour,omitempty"`
	// Batches is how many separate minutes (UTC) the group's jobs were
	// submitted in: jobs submitted together (a sweep) arrive together, so
	// Submitted/Batches is the mean batch. 0: unknown, each job arrives on
	// its own.
	Batches int `json:"batches,omitempty"`
	// Completed is how many of its jobs completed in the window; Jobs
	// holds the most recent of them.
	Completed int `json:"completed"`
	// Jobs are its most recently completed jobs, at most MaxHistorySamples:
	// their shape and how long they ran.
	Jobs []HistoryJob `json:"jobs"`
}

// HistoryJob is one completed job of a HistoryGroup.
type HistoryJob struct {
	InstanceType       string `json:"instanceType"`
	Instances          int    `json:"instances"`
	SchedulingPriority int    `json:"schedulingPriority"`
	// RunSeconds is how long it ran to complete (its work).
	RunSeconds int64 `json:"runSeconds"`
}

// QueueCount counts jobs of one status, team and instance type that a
// queue answer did not list (QueueView.Unlisted). Batch gives a job's
// instance type and count in its summary only once it is scheduled: for
// waiting jobs InstanceType is "" and Instances 0.
type QueueCount struct {
	Status       string `json:"status"`
	Team         string `json:"team"`
	InstanceType string `json:"instanceType"`
	Jobs         int    `json:"jobs"`
	Instances    int    `json:"instances"`
}
