package submit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
)

// The history and export actions read the job ledger (Config.Ledger) a
// page at a time (ledger.Store.JobsPage). Who sees what follows the queue
// action: through an alias a caller sees its team's jobs in full and other
// teams' without id, name, reasons, training jobs, checkpoint or lineage;
// an operator sees every job in full.

// ledgerRead is what history and export share: the checked window and
// filters, and the caller's view of a job.
type ledgerRead struct {
	since, until time.Time
	teams        []string
	classes      []string
	states       []string
	scope        string
	full         func(team string) bool
}

// readRequest checks a history or export request: the window, the
// filters (history only) and the cursor, and refuses what the action does
// not read.
func (h *Handler) readRequest(caller Caller, req contract.Request, filters bool) (*ledgerRead, error) {
	var ps problems
	unused := []struct {
		name string
		set  bool
	}{
		{"jobId", req.JobID != ""}, {"jobName", req.JobName != ""}, {"team", req.Team != ""}, {"class", req.Class != ""},
		{"priority", req.Priority != nil}, {"idempotencyKey", req.IdempotencyKey != ""}, {"instanceTypes", len(req.InstanceTypes) > 0},
		{"trainingJob", len(req.TrainingJob) > 0}, {"maxRuntimeSeconds", req.MaxRuntimeSeconds != nil}, {"retries", req.Retries != nil},
		{"tags", len(req.Tags) > 0}, {"reason", req.Reason != ""}, {"period", req.Period != ""},
		{"teams", !filters && len(req.Teams) > 0}, {"classes", !filters && len(req.Classes) > 0}, {"states", !filters && len(req.States) > 0},
	}
	for _, f := range unused {
		if f.set {
			ps.Addf(f.name, contract.Shown("a value"), "no value for action %s (it reads the window since..until%s)", req.Action,
				map[bool]string{true: ", filtered by teams, classes and states", false: ""}[filters])
		}
	}
	since, until := window(h.cfg.Now(), req, &ps)
	r := &ledgerRead{since: since, until: until}
	check := func(field string, got, known []string) []string {
		if len(got) > contract.MaxHistoryFilters {
			ps.Addf(field, contract.Shown(fmt.Sprintf("%d values", len(got))), "at most %d", contract.MaxHistoryFilters)
			return nil
		}
		for _, v := range got {
			if !slices.Contains(known, v) {
				ps.Add(field, contract.Cut(v, contract.MaxShownChars), "one of "+strings.Join(known, ", "))
			}
		}
		return got
	}
	r.teams = check("teams", req.Teams, h.cfg.Platform.TeamNames())
	r.classes = check("classes", req.Classes, h.cfg.Platform.ClassNames())
	r.states = check("states", req.States, ledger.Outcomes())
	if len(req.Cursor) > ledger.MaxCursorBytes {
		ps.Addf("cursor", contract.Shown(fmt.Sprintf("%d bytes", len(req.Cursor))), "at most %d bytes: the next of the previous page", ledger.MaxCursorBytes)
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}
	if h.cfg.Ledger == nil {
		return nil, &Error{Kind: contract.KindUpstream, Message: req.Action + ": no job ledger is configured for the submission function (" + contract.EnvLedgerTable + ")"}
	}
	switch {
	case caller.operator():
		r.scope = "operator " + caller.Role + ": every job in full"
		r.full = func(string) bool { return true }
	case caller.Alias != "":
		r.scope = fmt.Sprintf("%s: team %s's jobs in full; other teams' jobs without id, name, reasons, training jobs, checkpoint or lineage", caller.scope(), caller.Team)
	default:
		r.scope = fmt.Sprintf("%s: the jobs of team %s in full; other teams' jobs without id, name, reasons, training jobs, checkpoint or lineage", caller.scope(), strings.Join(caller.grant.Teams(h.cfg.Platform), ", "))
	}
	if r.full == nil {
		r.full = func(team string) bool { return caller.seesTeam(h.cfg.Platform, team) }
	}
	return r, nil
}

// keeps reports whether j passes the history's filters.
func (r *ledgerRead) keeps(j *ledger.Job) bool {
	return (len(r.teams) == 0 || slices.Contains(r.teams, j.Team)) &&
		(len(r.classes) == 0 || slices.Contains(r.classes, j.Class)) &&
		(len(r.states) == 0 || slices.Contains(r.states, j.Outcome()))
}

// ledgerError is the answer to a failed ledger read: a cursor that names
// no page of the window is the caller's, anything else upstream.
func ledgerError(action string, err error) error {
	if errors.Is(err, ledger.ErrCursor) {
		var ps problems
		ps.Add("cursor", "given", "the next of the previous page of the same window, or none to start: "+err.Error())
		return invalid(ps)
	}
	return &Error{Kind: contract.KindUpstream, Message: action + ": the job ledger could not be read", Err: err}
}

// jobHistory serves the history action: a page of the jobs alive in the
// window, each with its attempts.
func (h *Handler) jobHistory(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	r, err := h.readRequest(caller, req, true)
	if err != nil {
		return nil, err
	}
	ctx, _, cancel := h.budget(ctx)
	defer cancel()
	now := h.cfg.Now()
	v := &contract.HistoryView{Since: moment(r.since.UnixMilli()), Until: moment(r.until.UnixMilli()), Scope: r.scope, Jobs: []contract.HistoryRow{}}
	v.Next, err = h.cfg.Ledger.JobsPage(ctx, r.since, r.until, req.Cursor, contract.MaxHistoryPageJobs, contract.MaxLedgerPageQueries, func(j *ledger.Job) (bool, error) {
		if !r.keeps(j) {
			return false, nil
		}
		v.Jobs = append(v.Jobs, historyRow(j, now, r.full(j.Team)))
		return true, nil
	})
	if err != nil {
		return nil, ledgerError(req.Action, err)
	}
	return &contract.Response{History: v}, nil
}

// traceExport serves the export action: a page of the window's jobs as
// trace rows (ledger.TraceJob).
func (h *Handler) traceExport(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	r, err := h.readRequest(caller, req, false)
	if err != nil {
		return nil, err
	}
	ctx, _, cancel := h.budget(ctx)
	defer cancel()
	v := &contract.TraceView{Since: moment(r.since.UnixMilli()), Until: moment(r.until.UnixMilli()), Scope: r.scope, Rows: []contract.TraceRow{}}
	v.Next, err = h.cfg.Ledger.JobsPage(ctx, r.since, r.until, req.Cursor, contract.MaxTracePageRows, contract.MaxLedgerPageQueries, func(j *ledger.Job) (bool, error) {
		t, ok := ledger.TraceJob(h.cfg.Platform, j, r.since, r.until)
		if !ok {
			return false, nil
		}
		row := contract.TraceRow{SubmitSeconds: t.Submit, DurationSeconds: t.Duration, Instances: t.Instances, InstanceType: t.InstanceType,
			Class: t.Class, Team: t.Team, Priority: t.Priority}
		if r.full(j.Team) {
			row.JobName = t.ID
		}
		v.Rows = append(v.Rows, row)
		return true, nil
	})
	if err != nil {
		return nil, ledgerError(req.Action, err)
	}
	return &contract.Response{Trace: v}, nil
}

// historyRow is j as history shows it; full false redacts what names the
// job or its work.
func historyRow(j *ledger.Job, now time.Time, full bool) contract.HistoryRow {
	c := func(s string) string { return contract.Cut(s, contract.MaxShownChars) }
	row := contract.HistoryRow{JobID: c(j.JobID), JobName: c(j.JobName), Team: c(j.Team), Class: c(j.Class), State: j.Outcome(),
		Status: c(j.Status), StatusReason: c(j.StatusReason), SchedulingPriority: j.Priority, InstanceType: c(j.InstanceType),
		Instances: j.Instances, CreatedAt: moment(j.CreatedAt), WaitSeconds: -1, Attempts: []contract.HistoryAttempt{},
		Checkpoint: c(j.Checkpoint), ReroutedFrom: c(j.ReroutedFrom), MovedTo: c(j.MovedTo())}
	if j.EndedAt > 0 {
		row.EndedAt = moment(j.EndedAt)
	}
	if len(j.Attempts) > 0 && j.CreatedAt > 0 {
		row.WaitSeconds = float64(j.Attempts[0].StartedAt-j.CreatedAt) / 1000
	}
	for i, a := range j.Attempts {
		stop := a.StoppedAt
		if stop == 0 {
			stop = j.EndedAt
		}
		ran := stop
		if ran == 0 {
			ran = now.UnixMilli()
		}
		at := contract.HistoryAttempt{StartedAt: moment(a.StartedAt), Seconds: float64(max(0, ran-a.StartedAt)) / 1000,
			Outcome: j.AttemptOutcome(i), StatusReason: c(a.StatusReason), TrainingJob: c(a.TrainingJob)}
		if stop > 0 {
			at.StoppedAt = moment(stop)
		}
		if a.Preempted {
			row.Preemptions++
		}
		if !full {
			at.StatusReason, at.TrainingJob = "", ""
		}
		row.Attempts = append(row.Attempts, at)
	}
	row.Preemptions = max(row.Preemptions, j.PreemptedCount)
	if !full {
		row.JobID, row.JobName, row.StatusReason, row.Checkpoint, row.ReroutedFrom, row.MovedTo, row.Redacted = "", "", "", "", "", "", true
	}
	return row
}

// moment is a Unix-millisecond time in RFC 3339, with milliseconds only
// when they are not zero; "" for 0.
func moment(ms int64) string {
	if ms == 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
}
