package client

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/trace"
)

// trainq history and trainq trace export read the job ledger through the
// submission function's history and export actions, page after page
// (contract.HistoryView, contract.TraceView), and print or write the whole
// window.

const historyNotes = `Lists the jobs of the job ledger alive at some moment of the window (like
Slurm's sacct): one row per job, then one per attempt (JOBID.N), with the
job's outcome (succeeded, failed, cancelled, rerouted, preempted, timed-out,
running), when it was submitted, started and ended, and how long each
attempt ran. --class and --team select the function alias, as for the other
commands: through it you see your team's jobs in full and other teams' jobs
without id, name, reasons, training jobs or checkpoint; --unqualified, the
teams your role is granted (an operator: every job).

--filter-team, --filter-class and --state keep the jobs of those teams,
classes and outcomes (each a comma-separated list). --output csv writes one
row per job, --output json every job with its attempts.
`

const exportNotes = `Writes the jobs of the job ledger submitted in the window as a trace CSV
that trainq simulate --trace replays: submit_s from --since, duration_s the
completing attempt's run, the instances, type, class, team, the job's name
as job_id and its request priority. Left out: jobs that never started, jobs
still running, and jobs the re-router moved (their work is the job that
replaced them). Through an alias, other teams' jobs come without a name.
`

// ledgerPages bounds the pages a history or export reads: 200,000 pages of
// at least one job is beyond any window the ledger keeps.
const ledgerPages = 200_000

// historyFlags sets up trainq history.
func (c *cmd) historyFlags() func() (contract.Request, error) {
	c.notes = historyNotes
	c.examples = []string{
		"trainq history --class research --team search-ranking --since 2026-12-01 --until 2026-12-02",
		"trainq history --unqualified --filter-team search-research --state preempted,timed-out --output csv",
	}
	c.aliasFlags("the teams your role is granted in full (an operator: every job)")
	var since, until, teams, classes, states string
	c.windowFlags(&since, &until, "")
	c.fs.StringVar(&teams, "filter-team", "", "show only jobs of these teams (comma-separated)")
	c.fs.StringVar(&classes, "filter-class", "", "show only jobs of these classes (comma-separated)")
	c.fs.StringVar(&states, "state", "", "show only jobs of these outcomes (comma-separated: succeeded, failed, cancelled, rerouted, preempted, timed-out, running)")
	return func() (contract.Request, error) {
		if c.fs.NArg() > 0 {
			return contract.Request{}, cli.Usagef("unexpected arguments %q (history takes flags only)", c.fs.Args())
		}
		if err := c.checkAlias("through it you see your team's jobs in full, other teams' without id or name"); err != nil {
			return contract.Request{}, err
		}
		return contract.Request{Action: contract.ActionHistory, Since: since, Until: until,
			Teams: list(teams), Classes: list(classes), States: list(states)}, nil
	}
}

// exportFlags sets up trainq trace export.
func (c *cmd) exportFlags() func() (contract.Request, error) {
	c.notes = exportNotes
	c.examples = []string{
		"trainq trace export --unqualified --since 2026-11-01 --until 2026-12-01 --out november.csv",
	}
	c.aliasFlags("the teams your role is granted by name (an operator: every job)")
	var since, until string
	c.windowFlags(&since, &until, ", and time 0 of the trace")
	c.fs.StringVar(&c.out, "out", "", "trace file to write (- for stdout; required)")
	return func() (contract.Request, error) {
		if c.fs.NArg() > 0 {
			return contract.Request{}, cli.Usagef("unexpected arguments %q (trace export takes flags only)", c.fs.Args())
		}
		if err := c.checkAlias("through it other teams' jobs come without a name"); err != nil {
			return contract.Request{}, err
		}
		switch {
		case c.out == "":
			return contract.Request{}, cli.Usagef("--out is required: the trace file to write (- for stdout)")
		case c.out == "-" && c.output == "json":
			return contract.Request{}, cli.Usagef("--output json and --out - both write to stdout; give --out a file")
		}
		return contract.Request{Action: contract.ActionExport, Since: since, Until: until}, nil
	}
}

func list(csv string) []string {
	var out []string
	for _, v := range strings.Split(csv, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// pages invokes the function with req, then with each answer's next
// cursor, until the window is read whole; next returns an answer's cursor.
func (c *cmd) pages(ctx context.Context, req contract.Request, next func(*contract.Response) (string, error)) error {
	seen := map[string]bool{}
	for range ledgerPages {
		resp, err := c.invoke(ctx, req)
		if err != nil {
			return err
		}
		cursor, err := next(resp)
		if err != nil {
			return err
		}
		if cursor == "" {
			return nil
		}
		if seen[cursor] {
			return fmt.Errorf("the function answered cursor %q twice: its pages do not advance", contract.Cut(cursor, 40))
		}
		seen[cursor] = true
		req.Cursor = cursor
	}
	return fmt.Errorf("more than %d pages: ask for a shorter window", ledgerPages)
}

// history reads the window's every page into one view.
func (c *cmd) history(ctx context.Context, req contract.Request) (*contract.HistoryView, error) {
	var all *contract.HistoryView
	err := c.pages(ctx, req, func(r *contract.Response) (string, error) {
		if r.History == nil {
			return "", fmt.Errorf("the function's answer has no history")
		}
		if all == nil {
			all = r.History
		} else {
			all.Jobs = append(all.Jobs, r.History.Jobs...)
		}
		return r.History.Next, nil
	})
	if err != nil {
		return nil, err
	}
	all.Next = ""
	slices.SortStableFunc(all.Jobs, func(a, b contract.HistoryRow) int {
		if a.CreatedAt != b.CreatedAt {
			return strings.Compare(a.CreatedAt, b.CreatedAt)
		}
		return strings.Compare(a.JobID, b.JobID)
	})
	return all, nil
}

func (c *cmd) printHistory(w io.Writer, v *contract.HistoryView) error {
	switch c.output {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"job_id", "job_name", "team", "class", "state", "status", "scheduling_priority", "instance_type", "instances",
			"created_at", "started_at", "ended_at", "wait_s", "attempts", "preemptions", "run_s", "status_reason"})
		for _, j := range v.Jobs {
			var start string
			var run float64
			for _, a := range j.Attempts {
				run += a.Seconds
			}
			if len(j.Attempts) > 0 {
				start = j.Attempts[0].StartedAt
			}
			wait := ""
			if j.WaitSeconds >= 0 {
				wait = secs(j.WaitSeconds)
			}
			_ = cw.Write([]string{j.JobID, j.JobName, j.Team, j.Class, j.State, j.Status, strconv.Itoa(j.SchedulingPriority), j.InstanceType,
				strconv.Itoa(j.Instances), j.CreatedAt, start, j.EndedAt, wait, strconv.Itoa(len(j.Attempts)), strconv.Itoa(j.Preemptions), secs(run), j.StatusReason})
		}
		cw.Flush()
		return cw.Error()
	}
	fmt.Fprintf(w, "Jobs from %s to %s (%s)\n\n", v.Since, v.Until, v.Scope)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOBID\tNAME\tTEAM\tCLASS\tTYPE\tN\tSTATE\tSUBMIT\tSTART\tEND\tWAIT\tELAPSED")
	for _, j := range v.Jobs {
		id, name := orHidden(j.JobID, j.Redacted), orHidden(j.JobName, j.Redacted)
		start, wait, elapsed := "-", "-", "-"
		if len(j.Attempts) > 0 {
			start = short(j.Attempts[0].StartedAt)
			wait = age(int64(j.WaitSeconds))
			last := j.Attempts[len(j.Attempts)-1]
			end := j.EndedAt
			if end == "" {
				end = last.StoppedAt
			}
			elapsed = elapsedOf(j.Attempts[0].StartedAt, end, last)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", id, name, j.Team, j.Class, j.InstanceType, j.Instances, j.State,
			short(j.CreatedAt), start, short(j.EndedAt), wait, elapsed)
		for i, a := range j.Attempts {
			fmt.Fprintf(tw, "%s.%d\t\t\t\t\t\t%s\t\t%s\t%s\t\t%s\n", id, i+1, a.Outcome, short(a.StartedAt), short(a.StoppedAt), age(int64(a.Seconds)))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(v.Jobs) == 0 {
		fmt.Fprintln(w, "(no jobs)")
	}
	return nil
}

// elapsedOf is from the first start to end, or the last attempt's running
// time added to its start when the job still runs.
func elapsedOf(start, end string, last contract.HistoryAttempt) string {
	s, err := time.Parse(time.RFC3339Nano, start)
	if err != nil {
		return "-"
	}
	if end == "" {
		ls, err := time.Parse(time.RFC3339Nano, last.StartedAt)
		if err != nil {
			return "-"
		}
		return age(int64(ls.Sub(s).Seconds() + last.Seconds))
	}
	e, err := time.Parse(time.RFC3339Nano, end)
	if err != nil {
		return "-"
	}
	return age(int64(e.Sub(s).Seconds()))
}

func orHidden(v string, redacted bool) string {
	if redacted || v == "" {
		return "-"
	}
	return v
}

// short prints an RFC 3339 time to the second without its zone (every
// time is UTC), "-" for none.
func short(t string) string {
	p, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return "-"
	}
	return p.UTC().Format("2006-01-02T15:04:05")
}

func secs(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) }

// ExportSummary is what trace export prints with --output json.
type ExportSummary struct {
	Out   string `json:"out"`
	Jobs  int    `json:"jobs"`
	Since string `json:"since"`
	Until string `json:"until"`
	Scope string `json:"scope"`
}

// export reads the window's every page and writes the trace to --out.
func (c *cmd) export(ctx context.Context, req contract.Request, stdout io.Writer) error {
	var jobs []trace.Job
	var s ExportSummary
	err := c.pages(ctx, req, func(r *contract.Response) (string, error) {
		if r.Trace == nil {
			return "", fmt.Errorf("the function's answer has no trace")
		}
		s.Since, s.Until, s.Scope = r.Trace.Since, r.Trace.Until, r.Trace.Scope
		for _, t := range r.Trace.Rows {
			jobs = append(jobs, trace.Job{ID: t.JobName, Submit: t.SubmitSeconds, Duration: t.DurationSeconds, Instances: t.Instances,
				InstanceType: t.InstanceType, Class: t.Class, Team: t.Team, Priority: t.Priority})
		}
		return r.Trace.Next, nil
	})
	if err != nil {
		return err
	}
	trace.Sort(jobs)
	w, closeOut := stdout, func() error { return nil }
	if c.out != "-" {
		f, err := os.Create(c.out)
		if err != nil {
			return err
		}
		w, closeOut = f, f.Close
	}
	tw, err := trace.NewWriter(w)
	if err == nil {
		for _, j := range jobs {
			if err = tw.Write(j); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = tw.Flush()
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", c.out, err)
	}
	s.Out, s.Jobs = c.out, len(jobs)
	if c.out == "-" {
		return nil
	}
	if c.output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	_, err = fmt.Fprintf(stdout, "wrote %d jobs submitted from %s to %s to %s (%s)\n", s.Jobs, s.Since, s.Until, s.Out, s.Scope)
	return err
}
