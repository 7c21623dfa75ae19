package contract

// ActionBudgets answers every team's budgets now (Response.Budgets) from
// the job ledger: what trainq submit --dry-run shows. Like usage, it names
// no job, so every caller sees every team's.
const ActionBudgets = "budgets"

// BudgetView is one budget of a team as an answer shows it (a submission's,
// the dry-run's and the usage action's): what is used of it, the limit,
// the forecast and when it resets — package budget's figures.
type BudgetView struct {
	Team   string `json:"team"`
	Budget string `json:"budget"`
	// Unit is what Used and Limit count ("instance-hours of
	// ml.p5.48xlarge", "weighted instance-hours", "instance-hours",
	// "cost").
	Unit string `json:"unit"`
	// Period is month or rolling-30-days; Since where the window starts.
	Period string `json:"period"`
	Since  string `json:"since"`
	// Used and Limit are in Unit; Percent is Used of Limit.
	Used    float64 `json:"used"`
	Limit   float64 `json:"limit"`
	Percent float64 `json:"percent"`
	// RatePerHour is the current rate (the instances running now,
	// weighted) and Forecast the usage at the period's end at that rate.
	RatePerHour float64 `json:"ratePerHour"`
	Forecast    float64 `json:"forecast"`
	// Resets is when the team may use the budget again (RFC 3339): a month's
	// next first day; for a rolling window, when what it used so far has
	// aged out of the window down to the limit.
	Resets string `json:"resets"`
	// Over is true once Used has reached Limit.
	Over bool `json:"over"`
	// Action is, in a submission's answer, what the budget does to the
	// submission's class past 100% (alarm, lower-priority, refuse).
	Action string `json:"action,omitempty"`
	// Summary says all of it in one line.
	Summary string `json:"summary"`
}
