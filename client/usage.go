package client

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/contract"
)

// trainq usage prints the usage action's answer (contract.UsageView): the
// job ledger's instance-hours per team, class and instance type, per day or
// month, within quota vs borrowed, goodput vs lost, with cost when the
// platform prices instance types, and each team and class's jobs by outcome
// and waits.

const usageNotes = `Reads the job ledger through the submission function: instance-hours per
team, class and instance type, per UTC day or month, split into what ran
within the team's quota and what it borrowed (at every moment a team's jobs
on a type count against its quota in the order they started; the rest is
borrowed), and into goodput (attempts that completed their job) and lost work
(preempted, timed out, failed). Running jobs count to now. With the platform
file's ledger.hourlyPrices, a cost column. Usage names no job, so any alias
(or --unqualified) sees every team's usage.

--by keeps the given dimensions (comma-separated: team, class, type) and sums
the others; --period cuts by day or month.
`

// usageDims are what --by may keep.
var usageDims = []string{"team", "class", "type"}

func (c *cmd) usageFlags() func() (contract.Request, error) {
	c.notes = usageNotes
	c.examples = []string{
		"trainq usage --class research --team search-ranking --since 2026-11-01 --until 2026-12-01 --period month",
		"trainq usage --unqualified --since 2026-11-24 --by team --output json",
	}
	c.aliasFlags("operators only")
	var since, until, period, by string
	c.windowFlags(&since, &until, "")
	c.fs.StringVar(&period, "period", "day", "cut the window by day or month")
	c.fs.StringVar(&by, "by", "team,class,type", "dimensions to keep (comma-separated: team, class, type)")
	return func() (contract.Request, error) {
		if c.fs.NArg() > 0 {
			return contract.Request{}, cli.Usagef("unexpected arguments %q (usage takes flags only)", c.fs.Args())
		}
		if err := c.checkAlias("usage shows every team's, whichever alias"); err != nil {
			return contract.Request{}, err
		}
		if period != "day" && period != "month" {
			return contract.Request{}, cli.Usagef("--period: got %q, want day or month", period)
		}
		c.by = nil
		for _, d := range strings.Split(by, ",") {
			d = strings.TrimSpace(d)
			if !slices.Contains(usageDims, d) {
				return contract.Request{}, cli.Usagef("--by: got %q, want one or more of %s", d, strings.Join(usageDims, ", "))
			}
			c.by = append(c.by, d)
		}
		return contract.Request{Action: contract.ActionUsage, Since: since, Until: until, Period: period}, nil
	}
}

// usageLine is one printed row: the kept dimensions and the period.
type usageLine struct {
	key []string
	contract.UsageRow
}

// sumUsage sums rows over the dimensions --by leaves out.
func sumUsage(rows []contract.UsageRow, by []string) []usageLine {
	var out []usageLine
	index := map[string]int{}
	for _, r := range rows {
		var key []string
		for _, d := range by {
			switch d {
			case "team":
				key = append(key, r.Team)
			case "class":
				key = append(key, r.Class)
			case "type":
				key = append(key, r.InstanceType)
			}
		}
		key = append(key, r.Period)
		k := strings.Join(key, "\x00")
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, usageLine{key: key, UsageRow: contract.UsageRow{Period: r.Period}})
		}
		l := &out[i]
		l.InstanceSeconds += r.InstanceSeconds
		l.WithinQuota += r.WithinQuota
		l.Borrowed += r.Borrowed
		l.Goodput += r.Goodput
		l.LostPreempted += r.LostPreempted
		l.LostTimedOut += r.LostTimedOut
		l.Failed += r.Failed
		l.Running += r.Running
		if r.Cost != nil {
			c := *r.Cost
			if l.Cost != nil {
				c += *l.Cost
			}
			l.Cost = &c
		}
	}
	slices.SortFunc(out, func(a, b usageLine) int {
		return strings.Compare(strings.Join(a.key, "\x00"), strings.Join(b.key, "\x00"))
	})
	return out
}

func (c *cmd) printUsage(w io.Writer, r *contract.Response) error {
	if r.Usage == nil {
		return fmt.Errorf("the function's answer has no usage")
	}
	if c.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Usage)
	}
	u := r.Usage
	fmt.Fprintf(w, "Usage %s to %s, by %s (instance-hours)\n\n", u.Since, u.Until, u.Period)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var head []string
	for _, d := range c.by {
		head = append(head, strings.ToUpper(d))
	}
	head = append(head, "PERIOD", "INSTANCE-H", "WITHIN", "BORROWED", "GOODPUT", "LOST", "RUNNING")
	if u.Priced {
		head = append(head, "COST")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	h := func(s float64) string { return fmt.Sprintf("%.1f", s/3600) }
	for _, l := range sumUsage(u.Rows, c.by) {
		cells := append(append([]string{}, l.key...), h(l.InstanceSeconds), h(l.WithinQuota), h(l.Borrowed), h(l.Goodput),
			h(l.LostPreempted+l.LostTimedOut+l.Failed), h(l.Running))
		if u.Priced && l.Cost != nil {
			cells = append(cells, fmt.Sprintf("%.2f", *l.Cost))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEAM\tCLASS\tSUCCEEDED\tFAILED\tCANCELLED\tREROUTED\tPREEMPTED\tTIMED-OUT\tRUNNING\tWAIT P50\tP95\tMAX")
	for _, g := range u.Groups {
		o := g.Outcomes
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", g.Team, g.Class, o["succeeded"], o["failed"], o["cancelled"],
			o["rerouted"], o["preempted"], o["timed-out"], o["running"], wait(g.WaitP50Seconds, g.Waited), wait(g.WaitP95Seconds, g.Waited), wait(g.WaitMaxSeconds, g.Waited))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(u.Budgets) > 0 {
		fmt.Fprintf(w, "\nBudgets now\n\n")
		if err := printBudgets(w, u.Budgets); err != nil {
			return err
		}
	}
	if u.Note != "" {
		fmt.Fprintf(w, "\nNote: %s\n", u.Note)
	}
	return nil
}

// printBudgets prints budgets as a table, the same for trainq usage and
// submit --dry-run: used, limit and forecast in the budget's unit, and when
// it resets; ACTION (a submission's class past 100%) when any is set.
func printBudgets(w io.Writer, budgets []contract.BudgetView) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	withAction := slices.ContainsFunc(budgets, func(b contract.BudgetView) bool { return b.Action != "" })
	head := "TEAM\tBUDGET\tPERIOD\tUSED\tLIMIT\t%\tFORECAST\tUNIT\tRESETS"
	if withAction {
		head += "\tPAST 100%"
	}
	fmt.Fprintln(tw, head)
	n := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, b := range budgets {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s", b.Team, b.Budget, b.Period, n(b.Used), n(b.Limit), b.Percent, n(b.Forecast), b.Unit, b.Resets)
		if withAction {
			line += "\t" + b.Action
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

func wait(s int64, n int) string {
	if n == 0 {
		return "-"
	}
	return (time.Duration(s) * time.Second).String()
}
