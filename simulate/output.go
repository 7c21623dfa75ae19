package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Schema names the JSON layout of Report; it changes when a field's meaning
// changes.
const Schema = "trainq.simulate/v1"

// Report compares the platform policy with the FIFO baseline on one trace.
type Report struct {
	Schema   string `json:"schema"`
	Platform string `json:"platform"`
	// Mode is the platform's scheduling mode (quota or fairshare).
	Mode  string `json:"mode"`
	Trace string `json:"trace"`
	// Policy is the platform policy's run, FIFO the baseline's.
	Policy *Result `json:"policy"`
	FIFO   *Result `json:"fifo"`
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

// WriteTable writes r as a terminal summary: per class, per team and per
// instance type, the platform policy next to FIFO.
func WriteTable(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	p, f := r.Policy, r.FIFO
	fmt.Fprintf(tw, "trace %s on platform %s (%s): %d jobs\n", r.Trace, r.Platform, r.Mode, p.Jobs)
	fmt.Fprintf(tw, "\t%s\tfifo\t\n", p.Policy)
	fmt.Fprintf(tw, "utilization\t%s\t%s\t\n", pct(p.Utilization), pct(f.Utilization))
	fmt.Fprintf(tw, "makespan\t%s\t%s\t\n", Duration(p.MakespanSeconds), Duration(f.MakespanSeconds))
	fmt.Fprintf(tw, "completed\t%d\t%d\t\n", p.Completed, f.Completed)
	fmt.Fprintf(tw, "failed\t%d\t%d\t\n", p.Failed, f.Failed)
	fmt.Fprintf(tw, "preemptions\t%d\t%d\t\n", p.Preemptions, f.Preemptions)
	for i := range p.InstanceTypes {
		fmt.Fprintf(tw, "utilization %s\t%s\t%s\t\n", p.InstanceTypes[i].InstanceType, pct(p.InstanceTypes[i].Utilization), pct(f.InstanceTypes[i].Utilization))
	}
	fmt.Fprintln(tw)
	groups := func(title string, ps, fs []GroupStats) {
		fmt.Fprintf(tw, "%s\tpolicy\tjobs\tdone\tfailed\tpreempted\twait p50\tp95\tp99\tmax\tmean run\t\n", title)
		for i := range ps {
			for _, row := range []struct {
				name string
				g    GroupStats
			}{{p.Policy, ps[i]}, {"fifo", fs[i]}} {
				g := row.g
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", g.Name, row.name, g.Jobs, g.Completed, g.Failed,
					g.Preemptions, Duration(g.Wait.P50), Duration(g.Wait.P95), Duration(g.Wait.P99), Duration(g.Wait.Max),
					Duration(int64(g.RunSecondsMean)))
			}
		}
		fmt.Fprintln(tw)
	}
	groups("class", p.Classes, f.Classes)
	groups("team", p.Teams, f.Teams)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	for _, res := range []*Result{p, f} {
		for _, fl := range res.Failures {
			if _, err := fmt.Fprintf(w, "%s: %d jobs failed: %s\n", res.Policy, fl.Jobs, fl.Reason); err != nil {
				return fmt.Errorf("write table: %w", err)
			}
		}
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", x*100) }

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
