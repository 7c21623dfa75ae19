package simulate

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/trainq/trainq/alarms"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// week is a simulated week in seconds.
const week = 7 * 24 * 3600

// AlarmNoise is how often each of a platform's alarms would have fired
// over a recorded run.
type AlarmNoise struct {
	// Label names the run; Seconds is how long the series cover.
	Label   string `json:"label"`
	Seconds int64  `json:"seconds"`
	// Alarms are the platform's alarms, in rule order.
	Alarms []AlarmFirings `json:"alarms"`
	// Pages and Tickets are the firings of each severity, and per
	// simulated week (firings × 604800 s ÷ Seconds).
	Pages          int     `json:"pages"`
	Tickets        int     `json:"tickets"`
	PagesPerWeek   float64 `json:"pagesPerWeek"`
	TicketsPerWeek float64 `json:"ticketsPerWeek"`
}

// AlarmFirings is one alarm over a run.
type AlarmFirings struct {
	Name     string `json:"name"`
	Severity string `json:"severity"`
	// Simulated is false for an alarm on a function's or queue's own AWS
	// metric (errors, throttles, dead letters), which a simulation does
	// not produce: a healthy pipeline is assumed.
	Simulated bool `json:"simulated"`
	// Firings are how many times it went from OK to ALARM; FirstAt is the
	// simulated time (seconds) of the first, -1 when none.
	Firings int     `json:"firings"`
	PerWeek float64 `json:"perWeek"`
	FirstAt int64   `json:"firstAt"`
}

// PlatformRules are every alarm a Monitor would create for p with a
// submitter that has a dead-letter queue (and a re-router when a class
// reroutes), in order: the rules the constructs build alarms from.
func PlatformRules(p *platform.Platform) []alarms.Rule {
	rules := alarms.QueueRules(alarms.QueueThresholdsOf(p))
	rules = append(rules, alarms.PipelineRules()...)
	var paging []string
	for _, k := range contract.Kinds() {
		if !k.CallersMistake() {
			paging = append(paging, string(k))
		}
	}
	rules = append(rules, alarms.SubmitterRules(paging, true)...)
	if p.Reroutes() {
		rules = append(rules, alarms.RerouterRules([]string{metrics.RefusedSubmit, metrics.RefusedTerminate}, 3, 900, max(5, p.Rerouting.EveryMinutes)*60)...)
	}
	return rules
}

// EvaluateAlarms evaluates rules over series as CloudWatch would
// (alarms.Rule.Datapoints, Evaluate) and counts each alarm's firings.
func EvaluateAlarms(label string, rules []alarms.Rule, series *AlarmSeries) *AlarmNoise {
	n := &AlarmNoise{Label: label, Seconds: int64(series.Minutes) * 60}
	perWeek := func(k int) float64 {
		if n.Seconds == 0 {
			return 0
		}
		return math.Round(float64(k)*week/float64(n.Seconds)*100) / 100
	}
	for _, r := range rules {
		f := AlarmFirings{Name: r.Name, Severity: r.Severity, Simulated: r.Trainq(), FirstAt: -1}
		if f.Simulated {
			fired := r.Evaluate(r.Datapoints(series.Term, series.Minutes))
			f.Firings = len(fired)
			if len(fired) > 0 {
				// The end of the first breaching period.
				f.FirstAt = series.Start + int64((fired[0]+1)*r.PeriodSeconds)
			}
		}
		f.PerWeek = perWeek(f.Firings)
		if r.Severity == platform.SeverityPage {
			n.Pages += f.Firings
		} else {
			n.Tickets += f.Firings
		}
		n.Alarms = append(n.Alarms, f)
	}
	n.PagesPerWeek, n.TicketsPerWeek = perWeek(n.Pages), perWeek(n.Tickets)
	return n
}

// WriteAlarmNoise prints each run's alarms: severity, firings, firings per
// simulated week, the first firing; then the pages and tickets per week.
func WriteAlarmNoise(w io.Writer, runs []*AlarmNoise) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, n := range runs {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "alarms of %s over %.1f simulated days\n", n.Label, float64(n.Seconds)/86400)
		fmt.Fprintln(tw, "alarm\tseverity\tfirings\tper week\tfirst at (s)")
		for _, a := range n.Alarms {
			if !a.Simulated {
				fmt.Fprintf(tw, "%s\t%s\t-\t-\tnot simulated (function health)\n", a.Name, a.Severity)
				continue
			}
			first := "-"
			if a.FirstAt >= 0 {
				first = fmt.Sprint(a.FirstAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\n", a.Name, a.Severity, a.Firings, a.PerWeek, first)
		}
		fmt.Fprintf(tw, "pages\t\t%d\t%.2f\t\n", n.Pages, n.PagesPerWeek)
		fmt.Fprintf(tw, "tickets\t\t%d\t%.2f\t\n", n.Tickets, n.TicketsPerWeek)
	}
	return tw.Flush()
}
