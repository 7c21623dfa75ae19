package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Schema names the JSON layout of Report; it changes when a field's meaning
// changes.
const Schema = "trainq.simulate/v3"

// Report holds the runs of one trace, side by side: each platform's own
// scheduling, then the FIFO baseline.
type Report struct {
	Schema string `json:"schema"`
	// Trace is the trace file's name.
	Trace string `json:"trace"`
	// Runs are in the order given; the first is the one the others are
	// compared with.
	Runs []*Result `json:"runs"`
}

// WriteJSON writes r as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// row is one line of the side-by-side table: a name and a cell per run.
type row struct {
	name  string
	cells []string
}

// summaryRows are the table's and the HTML report's lines: whole-run
// figures, each instance type, then each class and team.
func summaryRows(r *Report) (runs []row, classes []row, teams []row) {
	each := func(name string, f func(*Result) string) row {
		rw := row{name: name}
		for _, res := range r.Runs {
			rw.cells = append(rw.cells, f(res))
		}
		return rw
	}
	first := r.Runs[0]
	runs = append(runs,
		each("utilization", func(x *Result) string { return pct(x.Utilization) }),
		each("goodput", func(x *Result) string { return pct(x.Goodput) }),
		each("lost work", func(x *Result) string { return pct(x.LostWork) }),
		each("lost to preemption", func(x *Result) string {
			return pct(fraction(x.InstanceSeconds.LostPreempted, x.CapacityInstanceSeconds))
		}),
		each("lost to timeouts", func(x *Result) string {
			return pct(fraction(x.InstanceSeconds.LostTimedOut, x.CapacityInstanceSeconds))
		}),
		each("lost instance-hours", func(x *Result) string { return fmt.Sprintf("%.1f", float64(x.InstanceSeconds.Lost())/3600) }),
		each("kept by checkpoints", func(x *Result) string {
			return fmt.Sprintf("%.1f inst-h", float64(x.InstanceSeconds.Checkpointed)/3600)
		}),
		each("moves", func(x *Result) string { return fmt.Sprint(x.Moves) }),
		each("makespan", func(x *Result) string { return Duration(x.MakespanSeconds) }),
		each("completed", func(x *Result) string { return fmt.Sprint(x.Completed) }),
		each("failed", func(x *Result) string { return fmt.Sprint(x.Failed) }),
		each("preemptions", func(x *Result) string { return fmt.Sprint(x.Preemptions) }),
		each("timeouts", func(x *Result) string { return fmt.Sprint(x.Timeouts) }),
	)
	for i, ts := range first.InstanceTypes {
		runs = append(runs,
			each("utilization "+ts.InstanceType, func(x *Result) string { return pct(x.InstanceTypes[i].Utilization) }),
			each("peak "+ts.InstanceType, func(x *Result) string {
				return fmt.Sprintf("%d/%d", x.InstanceTypes[i].PeakInstances, x.InstanceTypes[i].Instances)
			}))
	}
	groups := func(pick func(*Result) []GroupStats, withPeak bool) []row {
		var out []row
		for i, g := range pick(first) {
			out = append(out,
				each(g.Name+" jobs done/failed", func(x *Result) string {
					s := pick(x)[i]
					return fmt.Sprintf("%d/%d", s.Completed, s.Failed)
				}),
				each(g.Name+" wait p50", func(x *Result) string { return waitCell(pick(x)[i], pick(x)[i].Wait.P50) }),
				each(g.Name+" wait p95", func(x *Result) string { return waitCell(pick(x)[i], pick(x)[i].Wait.P95) }),
				each(g.Name+" wait p99", func(x *Result) string { return waitCell(pick(x)[i], pick(x)[i].Wait.P99) }),
				each(g.Name+" wait max", func(x *Result) string { return waitCell(pick(x)[i], pick(x)[i].Wait.Max) }),
				each(g.Name+" preemptions", func(x *Result) string { return fmt.Sprint(pick(x)[i].Preemptions) }),
				each(g.Name+" lost work", func(x *Result) string {
					return instanceHours(pick(x)[i].InstanceSeconds.Lost())
				}),
				each(g.Name+" moves", func(x *Result) string { return fmt.Sprint(pick(x)[i].Moves) }))
			if withPeak {
				out = append(out, each(g.Name+" peak instances", func(x *Result) string { return fmt.Sprint(pick(x)[i].PeakInstances) }))
			}
		}
		return out
	}
	classes = groups(func(x *Result) []GroupStats { return x.Classes }, false)
	teams = groups(func(x *Result) []GroupStats { return x.Teams }, true)
	return runs, classes, teams
}

// waitCell shows a wait, or "-" for a group with no completed job.
func waitCell(g GroupStats, v int64) string {
	if g.Completed == 0 {
		return "-"
	}
	return Duration(v)
}

// WriteTable writes r as a terminal summary, the runs side by side.
func WriteTable(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "trace %s: %d jobs\n", r.Trace, r.Runs[0].Jobs)
	header := []string{""}
	for _, res := range r.Runs {
		header = append(header, res.Label+" ("+res.Policy+")")
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	runs, classes, teams := summaryRows(r)
	for _, block := range [][]row{runs, classes, teams} {
		for _, rw := range block {
			fmt.Fprintln(tw, rw.name+"\t"+strings.Join(rw.cells, "\t")+"\t")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	for _, res := range r.Runs {
		lines := []string{res.Label + ": " + res.Settings.Summary()}
		for _, rt := range res.Routes {
			lines = append(lines, fmt.Sprintf("%s: %s moved %s → %s: %d", res.Label, rt.Class, rt.From, rt.To, rt.Moves))
		}
		for _, fl := range res.Failures {
			lines = append(lines, fmt.Sprintf("%s: %d jobs failed: %s", res.Label, fl.Jobs, fl.Reason))
		}
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return fmt.Errorf("write table: %w", err)
			}
		}
	}
	return nil
}

// Summary says in one line what a run modelled of re-routing and
// checkpoints, e.g. "re-routing every 1 min, at most 30 moves a run:
// research after 900 s over ml.p5.48xlarge, ml.p4d.24xlarge (3 moves a
// job); checkpoints: research 1800 s, sweep 1800 s".
func (s Settings) Summary() string {
	var rr, ck []string
	for _, c := range s.Classes {
		if c.Reroute != nil {
			rr = append(rr, fmt.Sprintf("%s after %d s over %s (%d moves a job)", c.Name, c.Reroute.AfterSeconds,
				strings.Join(c.Reroute.InstanceTypes, ", "), c.Reroute.MaxMoves))
		}
		if c.CheckpointSeconds > 0 {
			if c.CheckpointOnStop {
				ck = append(ck, fmt.Sprintf("%s %d s and on stop", c.Name, c.CheckpointSeconds))
			} else {
				ck = append(ck, fmt.Sprintf("%s %d s", c.Name, c.CheckpointSeconds))
			}
		}
	}
	out := "re-routing off"
	if s.Rerouting != nil && len(rr) > 0 {
		out = fmt.Sprintf("re-routing every %d min, at most %d moves a run: %s", s.Rerouting.EveryMinutes,
			s.Rerouting.MaxMovesPerMinute, strings.Join(rr, "; "))
	}
	if len(ck) == 0 {
		return out + "; checkpoints off"
	}
	return out + "; checkpoints: " + strings.Join(ck, ", ")
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", x*100) }

// instanceHours shows instance-seconds in one unit, instance-hours: one
// decimal, two below an hour (0.25 inst-h), so that a column never mixes
// units.
func instanceHours(is int64) string {
	if is > 0 && is < 3600 {
		return fmt.Sprintf("%.2f inst-h", float64(is)/3600)
	}
	return fmt.Sprintf("%.1f inst-h", float64(is)/3600)
}

// Duration formats seconds compactly: 45s, 12m05s, 3h07m, 2d04h.
func Duration(s int64) string {
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
