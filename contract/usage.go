package contract

// The usage action: instance-seconds per team × class × instance type ×
// day or month from the job ledger, within quota vs borrowed, goodput vs
// lost, with each team and class's jobs by outcome and their waits. Usage
// carries no job id or name, so every caller sees every team's usage, as
// the queue action's usage rows. Field names are a public contract,
// documented in docs/submission.md.

// ActionUsage reads the usage of a window from the job ledger
// (Response.Usage).
const ActionUsage = "usage"

// Limits of a usage request.
const (
	// MaxUsageDays bounds a usage window: the ledger keeps jobs about 13
	// months by default (ledger.retentionDays).
	MaxUsageDays = 400
	// MaxUsageViewRows bounds UsageView.Rows: 20 teams × 5 classes × 5
	// types × 31 days; past it the answer says to ask by month.
	MaxUsageViewRows = 20 * 5 * 5 * 31
)

// UsageView is the usage of [Since, Until] (RFC 3339; Until is now when
// the window reaches past it).
type UsageView struct {
	Since  string `json:"since"`
	Until  string `json:"until"`
	Period string `json:"period"`
	// Rows are sorted by team, class, instance type and period.
	Rows []UsageRow `json:"rows"`
	// Groups are per team and class.
	Groups []UsageGroup `json:"groups"`
	// Priced is true when the platform gives an hourly price of every
	// instance type in Rows (ledger.hourlyPrices): each row has a Cost.
	Priced bool `json:"priced"`
	// Note says what the answer left out.
	Note string `json:"note,omitempty"`
	// Budgets are every team's budgets (platform teams[].budgets) now,
	// whatever the window: the figures a submission's answer shows.
	Budgets []BudgetView `json:"budgets,omitempty"`
}

// UsageRow is one team's usage of one instance type by one class in one
// period, in instance-seconds (exact to the millisecond).
type UsageRow struct {
	Team         string `json:"team"`
	Class        string `json:"class"`
	InstanceType string `json:"instanceType"`
	// Period is the UTC day (2026-12-01) or month (2026-12).
	Period string `json:"period"`
	// InstanceSeconds = WithinQuota + Borrowed = Goodput + LostPreempted
	// + LostTimedOut + Failed + Running.
	InstanceSeconds float64 `json:"instanceSeconds"`
	WithinQuota     float64 `json:"withinQuotaSeconds"`
	Borrowed        float64 `json:"borrowedSeconds"`
	Goodput         float64 `json:"goodputSeconds"`
	LostPreempted   float64 `json:"lostPreemptedSeconds"`
	LostTimedOut    float64 `json:"lostTimedOutSeconds"`
	Failed          float64 `json:"failedSeconds"`
	Running         float64 `json:"runningSeconds"`
	// Cost is InstanceSeconds / 3600 × the type's hourly price, when the
	// platform gives one.
	Cost *float64 `json:"cost,omitempty"`
}

// UsageGroup is what happened to one team's jobs of one class.
type UsageGroup struct {
	Team  string `json:"team"`
	Class string `json:"class"`
	// Outcomes counts jobs that ended in the window by outcome
	// (succeeded, failed, cancelled, rerouted, preempted, timed-out) and
	// the jobs still running.
	Outcomes map[string]int `json:"outcomes"`
	// Waits are over the jobs that ended in the window after running:
	// nearest-rank percentiles, seconds.
	WaitP50Seconds int64 `json:"waitP50Seconds"`
	WaitP95Seconds int64 `json:"waitP95Seconds"`
	WaitMaxSeconds int64 `json:"waitMaxSeconds"`
	Waited         int   `json:"waited"`
}
