package submit

import (
	"context"
	"fmt"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/showback"
)

// usage answers the usage action from the job ledger (Config.Ledger):
// every job alive in the window, attributed within quota or borrowed by
// showback's rule. Usage names no job, so every caller sees every team's
// (as the queue's usage rows).
func (h *Handler) usage(ctx context.Context, req contract.Request) (*contract.Response, error) {
	now := h.cfg.Now()
	var ps problems
	for _, f := range []struct {
		name string
		set  bool
	}{{"jobId", req.JobID != ""}, {"jobName", req.JobName != ""}, {"trainingJob", len(req.TrainingJob) > 0}, {"priority", req.Priority != nil},
		{"teams", len(req.Teams) > 0}, {"classes", len(req.Classes) > 0}, {"states", len(req.States) > 0}, {"cursor", req.Cursor != ""}} {
		if f.set {
			ps.Add(f.name, "given", "nothing: usage reads the window since..until")
		}
	}
	since, until := window(now, req, &ps)
	period := showback.Period(req.Period)
	if period == "" {
		period = showback.Day
	}
	if period != showback.Day && period != showback.Month {
		ps.Add("period", req.Period, "day (the default) or month")
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}
	if h.cfg.Ledger == nil {
		return nil, &Error{Kind: contract.KindUpstream, Message: "usage: no job ledger is configured for the submission function (" + contract.EnvLedgerTable + ")"}
	}
	r, err := ledger.Usage(ctx, h.cfg.Ledger, h.cfg.Platform, ledger.UsageQuery{Since: since, Until: until, Period: period})
	if err != nil {
		return nil, &Error{Kind: contract.KindUpstream, Message: "usage: the job ledger could not be read", Err: err}
	}
	view := usageView(r, h.cfg.Platform.Ledger.HourlyPrices)
	if view.Budgets, err = h.teamBudgets(ctx, now); err != nil {
		return nil, &Error{Kind: contract.KindUpstream, Message: "usage: the budgets could not be read from the job ledger", Err: err}
	}
	return &contract.Response{Usage: view}, nil
}

// window reads a ledger read's since and until (default the 30 days
// before now), at most contract.MaxUsageDays apart, adding any problem to
// ps.
func window(now time.Time, req contract.Request, ps *problems) (since, until time.Time) {
	bad := len(*ps)
	since, until = now.AddDate(0, 0, -30), now
	if req.Since != "" {
		t, err := parseMoment(req.Since)
		if err != nil {
			ps.Add("since", req.Since, "an RFC 3339 time (2026-11-01T00:00:00Z) or a UTC day (2026-11-01)")
		}
		since = t
	}
	if req.Until != "" {
		t, err := parseMoment(req.Until)
		if err != nil {
			ps.Add("until", req.Until, "an RFC 3339 time (2026-12-01T00:00:00Z) or a UTC day (2026-12-01)")
		}
		until = t
	}
	if len(*ps) == bad && (!since.Before(until) || until.Sub(since) > contract.MaxUsageDays*24*time.Hour) {
		ps.Add("since", req.Since, fmt.Sprintf("a moment before until (%s), at most %d days before it", until.UTC().Format(time.RFC3339), contract.MaxUsageDays))
	}
	return since, until
}

// parseMoment reads an RFC 3339 time or a UTC day.
func parseMoment(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, s)
}

// usageView turns a ledger report into the answer, bounded by
// contract.MaxUsageViewRows, with costs when every type is priced.
func usageView(r *ledger.UsageReport, prices map[string]float64) *contract.UsageView {
	v := &contract.UsageView{Since: r.Since.UTC().Format(time.RFC3339), Until: r.Until.UTC().Format(time.RFC3339), Period: string(r.Period), Priced: len(prices) > 0}
	sec := func(ms int64) float64 { return float64(ms) / 1000 }
	keys := r.Table.Keys()
	for _, k := range keys {
		if _, ok := prices[k.InstanceType]; !ok {
			v.Priced = false
		}
	}
	for i, k := range keys {
		if i == contract.MaxUsageViewRows {
			v.Note = fmt.Sprintf("%d of %d rows shown; ask by month or for a shorter window", i, len(keys))
			break
		}
		u := r.Table.Rows[k]
		row := contract.UsageRow{Team: contract.Cut(k.Team, contract.MaxShownChars), Class: k.Class, InstanceType: k.InstanceType, Period: k.Period,
			InstanceSeconds: sec(u.Total()), WithinQuota: sec(u.Within), Borrowed: sec(u.Borrowed), Goodput: sec(u.Goodput),
			LostPreempted: sec(u.LostPreempted), LostTimedOut: sec(u.LostTimedOut), Failed: sec(u.Failed), Running: sec(u.Running)}
		if v.Priced {
			c := sec(u.Total()) / 3600 * prices[k.InstanceType]
			row.Cost = &c
		}
		v.Rows = append(v.Rows, row)
	}
	for _, g := range r.Groups {
		v.Groups = append(v.Groups, contract.UsageGroup{Team: contract.Cut(g.Team, contract.MaxShownChars), Class: g.Class, Outcomes: g.Outcomes,
			WaitP50Seconds: g.WaitP50, WaitP95Seconds: g.WaitP95, WaitMaxSeconds: g.WaitMax, Waited: g.Waited})
	}
	return v
}
