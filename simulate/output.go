package simulate

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
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
// figures, each instance type, then each class and team. Types, classes
// and teams are matched by name (runs may be of different platforms), in
// the order they first appear; a run without one shows "-".
func summaryRows(r *Report) (runs []row, classes []row, teams []row) {
	each := func(name string, f func(*Result) string) row {
		rw := row{name: name}
		for _, res := range r.Runs {
			rw.cells = append(rw.cells, f(res))
		}
		return rw
	}
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
		each("lost instance-hours", func(x *Result) string { return instanceHours(x.InstanceSeconds.Lost()) }),
		each("kept by checkpoints", func(x *Result) string { return instanceHours(x.InstanceSeconds.Checkpointed) }),
		each("moves", func(x *Result) string { return fmt.Sprint(x.Moves) }),
		each("makespan", func(x *Result) string { return Duration(x.MakespanSeconds) }),
		each("completed", func(x *Result) string { return fmt.Sprint(x.Completed) }),
		each("failed", func(x *Result) string { return fmt.Sprint(x.Failed) }),
		each("preemptions", func(x *Result) string { return fmt.Sprint(x.Preemptions) }),
		each("timeouts", func(x *Result) string { return fmt.Sprint(x.Timeouts) }),
	)
	typeOf := func(x *Result, name string) (TypeStats, bool) {
		for _, ts := range x.InstanceTypes {
			if ts.InstanceType == name {
				return ts, true
			}
		}
		return TypeStats{}, false
	}
	for _, name := range names(r, func(x *Result) []string {
		var out []string
		for _, ts := range x.InstanceTypes {
			out = append(out, ts.InstanceType)
		}
		return out
	}) {
		cell := func(f func(TypeStats) string) func(*Result) string {
			return func(x *Result) string {
				if ts, ok := typeOf(x, name); ok {
					return f(ts)
				}
				return "-"
			}
		}
		runs = append(runs,
			each("utilization "+name, cell(func(ts TypeStats) string { return pct(ts.Utilization) })),
			each("peak "+name, cell(func(ts TypeStats) string { return fmt.Sprintf("%d/%d", ts.PeakInstances, ts.Instances) })))
	}
	budgeted := slices.ContainsFunc(r.Runs, func(x *Result) bool { return len(x.Budgets) > 0 })
	groups := func(grs []groupRow, withPeak bool) []row {
		var out []row
		for _, gr := range grs {
			name := gr.name
			cell := func(f func(GroupStats) string) func(*Result) string {
				return func(x *Result) string {
					if g := gr.of[slices.Index(r.Runs, x)]; g != nil {
						return f(*g)
					}
					return "-"
				}
			}
			wait := func(v func(WaitStats) int64) func(*Result) string {
				return cell(func(g GroupStats) string { return waitCell(g, v(g.Wait)) })
			}
			if gr.renamed() {
				out = append(out, each(name+" named", cell(func(g GroupStats) string { return g.Name })))
			}
			out = append(out,
				each(name+" jobs done/failed", cell(func(g GroupStats) string { return fmt.Sprintf("%d/%d", g.Completed, g.Failed) })),
				each(name+" wait p50", wait(func(w WaitStats) int64 { return w.P50 })),
				each(name+" wait p95", wait(func(w WaitStats) int64 { return w.P95 })),
				each(name+" wait p99", wait(func(w WaitStats) int64 { return w.P99 })),
				each(name+" wait max", wait(func(w WaitStats) int64 { return w.Max })),
				each(name+" preemptions", cell(func(g GroupStats) string { return fmt.Sprint(g.Preemptions) })),
				each(name+" lost work", cell(func(g GroupStats) string { return instanceHours(g.InstanceSeconds.Lost()) })),
				each(name+" moves", cell(func(g GroupStats) string { return fmt.Sprint(g.Moves) })))
			if withPeak {
				out = append(out, each(name+" peak instances", cell(func(g GroupStats) string { return fmt.Sprint(g.PeakInstances) })))
			}
			if withPeak && budgeted {
				// With budgets, what each team ran, beside what the budget held.
				out = append(out, each(name+" instance-hours", cell(func(g GroupStats) string { return instanceHours(g.InstanceSeconds.Busy) })))
			}
		}
		return out
	}
	classes = groups(classRows(r), false)
	teams = groups(teamRows(r), true)
	return runs, classes, teams
}

// names lists the names pick gives of every run, each once, in the order
// they first appear.
func names(r *Report, pick func(*Result) []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, res := range r.Runs {
		for _, n := range pick(res) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// groupRow is one class or one team across the runs: its name (as the
// first run that has it names it) and, per run, its figures (nil when the
// run has none).
type groupRow struct {
	name string
	of   []*GroupStats
}

// renamed reports whether a run names the row's team otherwise.
func (gr groupRow) renamed() bool {
	for _, g := range gr.of {
		if g != nil && g.Name != gr.name {
			return true
		}
	}
	return false
}

// classRows matches the runs' classes by name, in the order they first
// appear.
func classRows(r *Report) []groupRow {
	var out []groupRow
	for _, name := range names(r, func(x *Result) []string { return groupNames(x.Classes) }) {
		gr := groupRow{name: name, of: make([]*GroupStats, len(r.Runs))}
		for i, x := range r.Runs {
			for k := range x.Classes {
				if x.Classes[k].Name == name {
					gr.of[i] = &x.Classes[k]
				}
			}
		}
		out = append(out, gr)
	}
	return out
}

// teamRows matches the runs' teams, in the order they first appear: by the
// trace's name for them (the same trace's search-ranking is search_ranking
// in a fair-share run, GroupStats.TraceName), and a team without jobs to the
// one row of another run whose name is the same once '-' and '_' are read
// alike.
func teamRows(r *Report) []groupRow {
	var out []groupRow
	byKey := map[string]int{}
	for i, x := range r.Runs {
		var later []int
		for k := range x.Teams {
			key := cmp.Or(x.Teams[k].TraceName, x.Teams[k].Name)
			if row, ok := byKey[key]; ok && out[row].of[i] == nil {
				out[row].of[i] = &x.Teams[k]
			} else {
				later = append(later, k)
			}
		}
		for _, k := range later {
			g := &x.Teams[k]
			key := cmp.Or(g.TraceName, g.Name)
			alike := -1
			for row := range out {
				if out[row].of[i] == nil && sameTeamKey(out[row].name) == sameTeamKey(key) {
					if alike >= 0 {
						alike = -1
						break
					}
					alike = row
				}
			}
			if alike < 0 {
				alike = len(out)
				out = append(out, groupRow{name: g.Name, of: make([]*GroupStats, len(r.Runs))})
				if _, taken := byKey[key]; !taken {
					byKey[key] = alike
				}
			}
			out[alike].of[i] = g
		}
	}
	return out
}

func groupNames(gs []GroupStats) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	return out
}

// groupOf is the group named name, if gs has it.
func groupOf(gs []GroupStats, name string) (GroupStats, bool) {
	for _, g := range gs {
		if g.Name == name {
			return g, true
		}
	}
	return GroupStats{}, false
}

// waitCell shows a wait, or "-" for a group with no completed job.
func waitCell(g GroupStats, v int64) string {
	if g.Completed == 0 {
		return "-"
	}
	return Duration(v)
}

// WriteTable writes r as a terminal summary, the runs side by side: names
// left-aligned, figures right-aligned, every block (runs, classes, teams)
// in the same columns.
func WriteTable(w io.Writer, r *Report) error {
	header := row{}
	for _, res := range r.Runs {
		header.cells = append(header.cells, res.Label+" ("+res.Policy+")")
	}
	runs, classes, teams := summaryRows(r)
	blocks := [][]row{{header}, runs, classes, teams}
	nameW, colW := 0, make([]int, len(r.Runs))
	for _, block := range blocks {
		for _, rw := range block {
			nameW = max(nameW, utf8.RuneCountInString(rw.name))
			for j, c := range rw.cells {
				colW[j] = max(colW[j], utf8.RuneCountInString(c))
			}
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "trace %s: %d jobs\n", r.Trace, r.Runs[0].Jobs)
	for k, block := range blocks {
		for _, rw := range block {
			bw.WriteString(rw.name + strings.Repeat(" ", nameW-utf8.RuneCountInString(rw.name)))
			for j, c := range rw.cells {
				bw.WriteString(strings.Repeat(" ", 2+colW[j]-utf8.RuneCountInString(c)) + c)
			}
			bw.WriteString("\n")
		}
		if k > 0 {
			bw.WriteString("\n")
		}
	}
	for _, res := range r.Runs {
		fmt.Fprintf(bw, "%s: %s\n", res.Label, res.Settings.Summary())
		for _, rt := range res.Routes {
			fmt.Fprintf(bw, "%s: %s moved %s → %s: %d\n", res.Label, rt.Class, rt.From, rt.To, rt.Moves)
		}
		for _, fl := range res.Failures {
			fmt.Fprintf(bw, "%s: %d jobs failed: %s\n", res.Label, fl.Jobs, fl.Reason)
		}
		if res.BudgetRefused > 0 {
			fmt.Fprintf(bw, "%s: %d jobs refused by budgets (never run)\n", res.Label, res.BudgetRefused)
		}
		for _, b := range res.Budgets {
			fmt.Fprintf(bw, "%s: budget %s of team %s (%s, %g %s): %d accepted, %d alarmed, %d lowered, %d refused\n", res.Label, b.Budget, b.Team,
				b.Period, b.Limit, b.Unit, b.Accepted, b.Alarmed, b.Lowered, b.Refused)
			for _, pd := range b.Periods {
				reached := "never reached"
				if pd.Reached != "" {
					reached = fmt.Sprintf("reached %s, work ran %s after (longest attempt %s)", pd.Reached, Duration(pd.HeldAfterSeconds), Duration(pd.LongestRunSeconds))
				}
				fmt.Fprintf(bw, "%s:   %s to %s used %.1f, %.1f over; %s\n", res.Label, pd.Since, pd.Until, pd.Used, pd.Over, reached)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
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
