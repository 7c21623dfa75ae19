package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform/platformfile"
)

// trainq status explains a waiting job and estimates its start; trainq
// queue lists the queue. Both print what the submission function answers
// (contract.Explanation, contract.QueueView); the estimate is the CLI's own,
// from the simulator (estimate.go).

// Status is what trainq status prints with --output json: the function's
// answer and, for a waiting job, the start estimate (or why there is none).
type Status struct {
	*contract.Response
	Estimate *Estimate `json:"estimate,omitempty"`
	// EstimateError says why a waiting job has no estimate.
	EstimateError string `json:"estimateError,omitempty"`
}

// queueStatuses are the statuses --status accepts (the queue lists these).
var queueStatuses = []string{"RUNNING", "STARTING", "SCHEDULED", "RUNNABLE"}

// queueFilter is what trainq queue's filters keep.
type queueFilter struct {
	teams, classes, statuses map[string]bool
}

func (f queueFilter) keep(j contract.QueueJob) bool {
	return (len(f.teams) == 0 || f.teams[j.Team]) && (len(f.classes) == 0 || f.classes[j.Class]) && (len(f.statuses) == 0 || f.statuses[j.Status])
}

func set(csv string) map[string]bool {
	if csv == "" {
		return nil
	}
	out := map[string]bool{}
	for _, v := range strings.Split(csv, ",") {
		out[strings.TrimSpace(v)] = true
	}
	return out
}

// queueNotes is what queue's help says before its flags.
const queueNotes = `Lists the queue's running and waiting jobs (RUNNING, STARTING, SCHEDULED,
RUNNABLE), running first, then in the queue's order, with their age, their
place at the front of the queue and of their share, and every share's usage
against its quota. --class and --team select the function alias, as for the
other commands: through it you see your team's jobs in full and other teams'
jobs without id or name; --unqualified, the teams your role is granted (an
operator: every job). The
function lists at most 100 jobs and says so when it left some out.

Each waiting job shows its LIKELY START (with the range of 80% of the
simulated runs) and LATEST START, as trainq status estimates them, from
the whole queue and its history (the lines above the table say what each
assumes); --no-estimate leaves them out.

--filter-team, --filter-class and --status narrow what is printed (each a
comma-separated list); positions, usage and estimates still count every job.
`

func (c *cmd) queueFlags() func() (contract.Request, error) {
	c.notes = queueNotes
	c.examples = []string{
		"trainq queue --class research --team search-ranking",
		"trainq queue --unqualified --filter-team search-research --status RUNNABLE --output json",
	}
	c.aliasFlags("the teams your role is granted in full (an operator: every job)")
	var teams, classes, statuses string
	c.fs.StringVar(&teams, "filter-team", "", "show only jobs of these teams (comma-separated)")
	c.fs.StringVar(&classes, "filter-class", "", "show only jobs of these classes (comma-separated)")
	c.fs.StringVar(&statuses, "status", "", "show only jobs in these statuses (comma-separated: "+strings.Join(queueStatuses, ", ")+")")
	c.fs.BoolVar(&c.noEstimate, "no-estimate", false, "leave out the waiting jobs' likely and latest starts (and the simulation they take)")
	return func() (contract.Request, error) {
		if c.fs.NArg() > 0 {
			return contract.Request{}, cli.Usagef("unexpected arguments %q (queue takes flags only)", c.fs.Args())
		}
		if err := c.checkAlias("through it you see your team's jobs in full, other teams' without id or name"); err != nil {
			return contract.Request{}, err
		}
		c.filter = queueFilter{teams: set(teams), classes: set(classes), statuses: set(statuses)}
		for s := range c.filter.statuses {
			ok := false
			for _, q := range queueStatuses {
				ok = ok || s == q
			}
			if !ok {
				return contract.Request{}, cli.Usagef("--status: got %q, want one or more of %s", s, strings.Join(queueStatuses, ", "))
			}
		}
		return contract.Request{Action: contract.ActionQueue}, nil
	}
}

// aliasFlags sets --team (with the global --class, it selects the function
// alias) and --unqualified, whose scope says what the function without an
// alias gives, for the commands that read rather than act on one job.
func (c *cmd) aliasFlags(unqualifiedScope string) {
	c.fs.StringVar(&c.team, "team", "", "team of the alias (required with --class): with --class it selects the function alias")
	c.fs.BoolVar(&c.unqualified, "unqualified", false, "invoke the function without an alias instead of --class and --team: "+unqualifiedScope)
}

// windowFlags sets --since and --until, the window of the commands that
// read the job ledger; sinceMeans adds what the start also is.
func (c *cmd) windowFlags(since, until *string, sinceMeans string) {
	c.fs.StringVar(since, "since", "", "start of the window"+sinceMeans+": a UTC day (2026-11-01) or an RFC 3339 time (default: 30 days ago)")
	c.fs.StringVar(until, "until", "", "end of the window, as --since (default: now)")
}

// checkAlias requires --class and --team, or --unqualified; scope says
// what the alias gives.
func (c *cmd) checkAlias(scope string) error {
	switch {
	case (c.class == "" || c.team == "") && !c.unqualified:
		return cli.Usagef("--class and --team are required: they select the function alias you may invoke "+
			"(%s), "+
			"or --unqualified to invoke the function without an alias (operators only)", scope)
	case (c.class != "" || c.team != "") && c.unqualified:
		return cli.Usagef("--class and --team exclude --unqualified")
	}
	return nil
}

// age prints seconds as 45s, 12m05s, 3h20m or 2d04h.
func age(s int64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}

func orDash(v int) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprint(v)
}

// QueueOutput is what trainq queue prints with --output json: the queue
// answer (its jobs and usage narrowed by the filters), each waiting job
// with its start estimate, and what the estimates assume (or why there are
// none).
type QueueOutput struct {
	contract.QueueView
	Jobs          []QueueRow     `json:"jobs"`
	Estimate      *QueueEstimate `json:"estimate,omitempty"`
	EstimateError string         `json:"estimateError,omitempty"`
}

// QueueRow is a listed job with, when it waits, its two estimated starts.
type QueueRow struct {
	contract.QueueJob
	LikelyStart *RowLikely `json:"likelyStart,omitempty"`
	LatestStart *RowStart  `json:"latestStart,omitempty"`
}

// printQueue prints the queue view: the jobs the filter keeps, each
// waiting one with its likely and latest start (EstimateQueue, on the
// whole answer), then the usage of the shares (and the queue) it concerns.
func (c *cmd) printQueue(w io.Writer, r *contract.Response) error {
	q := r.Queue
	if q == nil {
		return fmt.Errorf("the function answered without a queue (is it older than the queue action?)")
	}
	out := QueueOutput{QueueView: *q, Jobs: []QueueRow{}}
	if !c.noEstimate {
		out.Estimate, out.EstimateError = c.estimateQueue(q)
	}
	for i, j := range q.Jobs {
		if !c.filter.keep(j) {
			continue
		}
		row := QueueRow{QueueJob: j}
		if out.Estimate != nil {
			row.LikelyStart, row.LatestStart = out.Estimate.Rows[i].Likely, out.Estimate.Rows[i].Latest
		}
		out.Jobs = append(out.Jobs, row)
	}
	out.QueueView.Jobs = nil
	out.Usage = []contract.ShareUsage{}
	for _, u := range q.Usage {
		if u.Share == "" || len(c.filter.teams) == 0 || c.filter.teams[u.Share] {
			out.Usage = append(out.Usage, u)
		}
	}
	if c.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	snap := ""
	if q.SnapshotAt != "" {
		snap = " (capacity as of " + q.SnapshotAt + ")"
	}
	fmt.Fprintf(w, "Queue %s at %s%s: %d of %d jobs shown; %s.\n", q.JobQueue, q.At, snap, len(out.Jobs), len(q.Jobs), q.Scope)
	if q.Note != "" {
		fmt.Fprintf(w, "Note: %s.\n", q.Note)
	}
	switch e := out.Estimate; {
	case e != nil && e.LikelyUnavailable != "":
		fmt.Fprintf(w, "Likely start: unavailable: %s.\n", e.LikelyUnavailable)
	case e != nil:
		fmt.Fprintf(w, "Likely start (with the range of 80%% of the runs): %s; history: %s (%d runs).\n", e.LikelyAssumption, e.History, e.Runs)
	case out.EstimateError != "":
		fmt.Fprintf(w, "Estimated starts: none: %s.\n", out.EstimateError)
	}
	if e := out.Estimate; e != nil {
		fmt.Fprintf(w, "Latest start: %s.\n", e.LatestAssumption)
		if e.Note != "" {
			fmt.Fprintf(w, "Estimate note: %s.\n", e.Note)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tQUEUE POS\tSHARE POS\tTEAM\tCLASS\tPRIORITY\tINSTANCES\tAGE\tRUNNING\tLIKELY START\tLATEST START\tJOB ID\tNAME")
	for _, j := range out.Jobs {
		running, id, name := "-", j.JobID, j.JobName
		if j.StartedAt != "" {
			running = age(j.RunningSeconds) + " of " + age(int64(j.MaxRuntimeSeconds))
		}
		if j.Redacted {
			id, name = "-", "(another team's job)"
		}
		class := j.Class
		if class == "" {
			class = "?"
		}
		likely, latest := "-", "-"
		if l := j.LikelyStart; l != nil {
			likely = fmt.Sprintf("%s (%s–%s)", inCell(l.StartsInSeconds), inCell(l.LowSeconds), inCell(l.HighSeconds))
		}
		if l := j.LatestStart; l != nil {
			latest = inCell(l.StartsInSeconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d × %s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.Status, orDash(j.QueuePosition), orDash(j.SharePosition),
			j.Team, class, j.SchedulingPriority, j.Instances, j.InstanceType, age(j.AgeSeconds), running, likely, latest, id, name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(out.Usage) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHARE\tINSTANCE TYPE\tUSED\tQUOTA\tBORROWED\tMAY BORROW\tIDLE FOR IT\tRECLAIMABLE\tPOOL IN USE")
	for _, u := range out.Usage {
		share := u.Share
		if share == "" {
			share = "(queue)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d of %d\n", share, u.InstanceType, u.Used, orDash(u.Quota), orDash(u.Borrowed), orDash(u.MaxBorrowed),
			u.IdleRoom, u.ReclaimRoom, u.PoolInUse, u.Pool)
	}
	return tw.Flush()
}

// estimateQueue estimates every waiting job of q. A failure is the
// estimate's, never the command's.
func (c *cmd) estimateQueue(q *contract.QueueView) (*QueueEstimate, string) {
	p, err := platformfile.LoadFileOrDefault(c.platform)
	if err != nil {
		return nil, err.Error()
	}
	e, err := EstimateQueue(p, q, EstimateOptions{})
	if err != nil {
		return nil, err.Error()
	}
	return e, ""
}

// estimate asks the function for the queue and simulates it, for the
// waiting job r. A failure is the estimate's, never the command's.
func (c *cmd) estimate(ctx context.Context, r *contract.Response) (*Estimate, string) {
	p, err := platformfile.LoadFileOrDefault(c.platform)
	if err != nil {
		return nil, err.Error()
	}
	q, err := c.invoke(ctx, contract.Request{Action: contract.ActionQueue})
	if err != nil {
		return nil, "the queue could not be read: " + err.Error()
	}
	if q.Queue == nil {
		return nil, "the function answered without a queue (is it older than the queue action?)"
	}
	e, err := EstimateStart(p, q.Queue, r, EstimateOptions{})
	if err != nil {
		return nil, err.Error()
	}
	return e, ""
}

// startCell prints a start: in 1h00m (2026-12-01 17:00 UTC), or never.
func startCell(s Start) string {
	if s.StartsInSeconds < 0 {
		return "never, by the simulated rules"
	}
	by, _ := time.Parse(time.RFC3339, s.StartsBy)
	return fmt.Sprintf("in %s (%s)", age(s.StartsInSeconds), by.UTC().Format("2006-01-02 15:04 MST"))
}

// inCell prints seconds from now, or never.
func inCell(s int64) string {
	if s < 0 {
		return "never"
	}
	return age(s)
}

// printStatus prints describe's answer, and for a waiting job why it waits
// and when it may start.
func (c *cmd) printStatus(w io.Writer, s *Status) error {
	if c.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rows(tw, s.Response)
	e := s.Explanation
	if e == nil {
		return tw.Flush()
	}
	fmt.Fprintf(tw, "WAITING\t%s: %s\n", e.Reason, e.Message)
	pos := "not among the first RUNNABLE jobs the snapshot lists"
	if e.QueuePosition > 0 {
		pos = fmt.Sprintf("%d of the %d jobs at the front of the queue", e.QueuePosition, e.QueueListed)
		if e.AtPositionSince != "" {
			pos += " (there since " + e.AtPositionSince + ")"
		}
	}
	fmt.Fprintf(tw, "QUEUE POSITION\t%s\n", pos)
	if e.RerouteTo != "" {
		fmt.Fprintf(tw, "REROUTE TO\t%s\n", e.RerouteTo)
	}
	if e.SharePosition > 0 {
		fmt.Fprintf(tw, "SHARE POSITION\t%d in team %s\n", e.SharePosition, s.Team)
	}
	for _, u := range e.Usage {
		if u.Share == "" {
			fmt.Fprintf(tw, "POOL\t%d of %d %s in use\n", u.PoolInUse, u.Pool, u.InstanceType)
			continue
		}
		line := fmt.Sprintf("team %s: %d %s in use", u.Share, u.Used, u.InstanceType)
		if u.Sharing != "" {
			line += fmt.Sprintf(" of a quota of %d (%s", u.Quota, u.Sharing)
			if u.MaxBorrowed > 0 {
				line += fmt.Sprintf(", may borrow %d, borrows %d", u.MaxBorrowed, u.Borrowed)
			}
			line += ")"
		}
		line += fmt.Sprintf("; %d idle for it, %d within its quota counting what Batch takes back", u.IdleRoom, u.ReclaimRoom)
		fmt.Fprintf(tw, "SHARE USAGE\t%s\n", line)
	}
	switch e := s.Estimate; {
	case e != nil:
		if e.Likely != nil {
			fmt.Fprintf(tw, "LIKELY START\t%s, range %s to %s, %s\n", startCell(e.Likely.Start), inCell(e.Likely.LowSeconds), inCell(e.Likely.HighSeconds),
				e.Likely.Assumption)
			fmt.Fprintf(tw, "HISTORY USED\t%s (%d runs)\n", e.Likely.History, e.Likely.Runs)
		} else {
			fmt.Fprintf(tw, "LIKELY START\tunavailable: %s\n", e.LikelyUnavailable)
		}
		fmt.Fprintf(tw, "LATEST START\t%s, %s\n", startCell(e.Latest), e.Latest.Assumption)
		if e.Note != "" {
			fmt.Fprintf(tw, "ESTIMATE NOTE\t%s\n", e.Note)
		}
	case s.EstimateError != "":
		fmt.Fprintf(tw, "ESTIMATED START\tnone: %s\n", s.EstimateError)
	}
	return tw.Flush()
}
