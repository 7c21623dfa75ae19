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
const Schema = "trainq.simulate/v2"

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
				}))
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
		for _, fl := range res.Failures {
			if _, err := fmt.Fprintf(w, "%s: %d jobs failed: %s\n", res.Label, fl.Jobs, fl.Reason); err != nil {
				return fmt.Errorf("write table: %w", err)
			}
		}
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", x*100) }

// instanceHours shows instance-seconds as instance-hours with one decimal,
// or exact seconds below an hour.
func instanceHours(is int64) string {
	if is < 3600 {
		return fmt.Sprintf("%d inst-s", is)
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
