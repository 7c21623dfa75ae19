package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// WriteReport writes report.html (WriteHTML) and report.json (WriteJSON)
// into dir, created when missing, and returns the paths written.
func WriteReport(dir string, r *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	var page, js bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		return nil, err
	}
	if err := WriteJSON(&js, r); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range []struct {
		name string
		data []byte
	}{{"report.html", page.Bytes()}, {"report.json", js.Bytes()}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return nil, fmt.Errorf("write report: %w", err)
		}
		out = append(out, path)
	}
	return out, nil
}

// timeAxis converts simulated seconds since the first submission to the
// time axis's unit: hours, or days for runs of three days or more.
type timeAxis struct {
	unit  float64
	label string
}

func newTimeAxis(span int64) timeAxis {
	if span >= 3*86400 {
		return timeAxis{86400, "days since the first submission"}
	}
	return timeAxis{3600, "hours since the first submission"}
}

// WriteHTML writes r as one self-contained HTML page (no scripts, styles or
// images from elsewhere): the runs side by side, the differences from the
// first run, charts as inline SVG, and tables per class and team.
func WriteHTML(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	p := &page{w: bw, r: r}
	p.write()
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report.html: %w", err)
	}
	return nil
}

type page struct {
	w      *bufio.Writer
	r      *Report
	styles []runStyle
}

// st is the runs' styles (made once).
func (p *page) st() []runStyle {
	if p.styles == nil {
		p.styles = runStyles(p.r.Runs)
	}
	return p.styles
}

func (p *page) f(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p *page) write() {
	r := p.r
	p.styles = runStyles(r.Runs)
	first := r.Runs[0]
	var labels []string
	for _, res := range r.Runs {
		labels = append(labels, res.Label)
	}
	p.f("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>trainq simulate: %s</title>\n", esc(r.Trace))
	p.f("<style>\nbody{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}\ntable{border-collapse:collapse;margin:8px 0 24px}\n" +
		"th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}\ntd{white-space:nowrap}\nth:first-child,td:first-child{text-align:left}\n" +
		"thead th{background:#f2f2f2}\nfigure{margin:0 0 24px}\nfigcaption{font-size:13px;color:#555;max-width:900px}\n" +
		".better{color:" + BetterColor + "}.worse{color:" + WorseColor + "}\n.note{background:#fff8c5;padding:6px 10px;max-width:900px}\n</style>\n</head>\n<body>\n")
	p.f("<h1>trainq simulate: %s</h1>\n", esc(r.Trace))
	p.f("<p id=\"summary\">%d jobs, %d runs: %s. Makespan of %s: %s. The first run is the baseline of the differences. "+
		"In every chart a run has one colour, line style and marker (see each chart's legend or row names).</p>\n",
		first.Jobs, len(r.Runs), esc(strings.Join(labels, ", ")), esc(first.Label), Duration(first.MakespanSeconds))
	for _, same := range identicalRuns(r.Runs) {
		var names []string
		for _, i := range same {
			names = append(names, r.Runs[i].Label)
		}
		p.f("<p class=\"note\" id=\"identical\">Runs %s have identical results: their lines and bars coincide. Each run's markers sit at places of their own along the shared line, so every one of them shows.</p>\n",
			esc(strings.Join(names, ", ")))
	}

	runs, classes, teams := summaryRows(r)
	p.f("<h2>Runs side by side</h2>\n")
	p.table("runs", runs)
	if len(r.Runs) > 1 {
		p.f("<h2>Differences from %s</h2>\n", esc(first.Label))
		p.differences()
	}
	p.f("<h2>Utilization</h2>\n")
	p.figure("utilization-split", p.utilizationSplit(),
		"Each run's capacity (all pools × its makespan): goodput, the work that went into completed jobs (solid); work lost to preemption (hatched) and to timeouts (cross-hatched), checkpointed work of jobs that failed included; idle (empty). Exact instance-seconds are in report.json.")
	p.figure("utilization-time", p.utilizationOverTime(),
		"Busy: the share of all pools running jobs. Goodput: the share whose work went into completed jobs — their completing attempts, and what checkpoints kept of their earlier attempts, booked when the job completes; work of a job that failed is never goodput, as in the table. Each point is a bucket of the run; the last bucket is as long as what is left of the run.")
	p.figure("teams-held", p.teams(), "Share of all pools each team's running jobs held over each run (its busy instance-seconds ÷ all pools × the run's makespan); a row per team, a marker per run.")
	p.f("<h2>Waiting</h2>\n")
	p.figure("p95", p.waitBars(95), "p95 wait of completed jobs per class and run; a run with no completed job of a class shows \"no jobs\", a class without completed jobs in any run is left out.")
	p.figure("waits-cdf", p.waitCDF(), "Fraction of completed jobs that waited at most x, a panel per class with completed jobs.")
	p.figure("backlog", p.backlog(), "Waiting jobs, averaged over each bucket, a panel per class with jobs in the trace.")
	p.f("<h2>Makespan, preemptions and failures</h2>\n")
	p.figure("totals", p.totals(), "Per run, each on its own axis and unit: the makespan (first submission to last end), the preemptions and the failed jobs.")
	p.rerouting()
	p.f("<h2>Classes</h2>\n")
	p.table("classes", classes)
	p.f("<h2>Teams</h2>\n")
	p.teamSpellings()
	p.table("teams", teams)
	p.failures()
	p.f("</body>\n</html>\n")
}

// teamSpellings notes the teams that runs name otherwise: a fair-share
// identifier has no '-', so a platform's search-ranking is search_ranking in
// its fair-share variant, and the trace's jobs of the team are in one row.
func (p *page) teamSpellings() {
	var notes []string
	for _, t := range teamRows(p.r) {
		var other []string
		for i, g := range t.of {
			if g != nil && g.Name != t.name {
				other = append(other, fmt.Sprintf("%s in %s", g.Name, p.r.Runs[i].Label))
			}
		}
		if len(other) > 0 {
			notes = append(notes, t.name+" is "+strings.Join(other, ", "))
		}
	}
	if len(notes) == 0 {
		return
	}
	p.f("<p class=\"note\" id=\"team-names\">Teams named otherwise by some runs' platforms (the same once '-' and '_' are read alike; a fair-share identifier allows no '-'), one row each: %s.</p>\n",
		esc(strings.Join(notes, "; ")))
}

// identicalRuns lists the sets of runs (two or more) whose results are the
// same in every figure the report draws.
func identicalRuns(runs []*Result) [][]int {
	key := func(x *Result) any {
		var s Series
		if x.series != nil {
			s = *x.series
		}
		return struct {
			Jobs, Completed, Failed, Preemptions, Timeouts, Moves int
			Makespan                                              int64
			Work                                                  Work
			Classes, Teams                                        []GroupStats
			Goodput, Lost                                         []float64
			TeamBusy, ClassWaiting                                [][]float64
		}{x.Jobs, x.Completed, x.Failed, x.Preemptions, x.Timeouts, x.Moves, x.MakespanSeconds, x.InstanceSeconds,
			x.Classes, x.Teams, s.Goodput, s.Lost, s.TeamBusy, s.ClassWaiting}
	}
	var out [][]int
	done := make([]bool, len(runs))
	for i := range runs {
		if done[i] {
			continue
		}
		same := []int{i}
		for j := i + 1; j < len(runs); j++ {
			if !done[j] && reflect.DeepEqual(key(runs[i]), key(runs[j])) {
				same, done[j] = append(same, j), true
			}
		}
		if len(same) > 1 {
			out = append(out, same)
		}
	}
	return out
}

func (p *page) table(id string, rows []row) {
	p.f("<table id=\"%s\">\n<thead><tr><th></th>", id)
	for _, res := range p.r.Runs {
		p.f("<th>%s (%s)</th>", esc(res.Label), esc(res.Policy))
	}
	p.f("</tr></thead>\n<tbody>\n")
	for _, rw := range rows {
		p.f("<tr><td>%s</td>", esc(strings.TrimSpace(rw.name)))
		for _, c := range rw.cells {
			p.f("<td>%s</td>", esc(c))
		}
		p.f("</tr>\n")
	}
	p.f("</tbody>\n</table>\n")
}

func (p *page) figure(id, svg, caption string) {
	p.f("<figure id=\"%s\">\n%s<figcaption>%s</figcaption>\n</figure>\n", id, svg, esc(caption))
}

// delta is one line of the differences table: a value per run and how to
// show the change from the first, with whether lower is better.
type delta struct {
	name        string
	value       func(*Result) (float64, bool) // false: no value (no completed job)
	base        func(v float64) string        // the first run's value
	show        func(d float64) string        // a change from it
	lowerBetter bool
}

func (p *page) differences() {
	pp := func(d float64) string { return signed(d, fmt.Sprintf("%.1f pp", math.Abs(d)*100)) }
	count := func(d float64) string { return signed(d, fmt.Sprintf("%.0f", math.Abs(d))) }
	dur := func(d float64) string { return signed(d, Duration(int64(math.Abs(d)))) }
	always := func(f func(*Result) float64) func(*Result) (float64, bool) {
		return func(x *Result) (float64, bool) { return f(x), true }
	}
	whole := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	seconds := func(v float64) string { return Duration(int64(v)) }
	ds := []delta{
		{"utilization", always(func(x *Result) float64 { return x.Utilization }), pct, pp, false},
		{"goodput", always(func(x *Result) float64 { return x.Goodput }), pct, pp, false},
		{"lost work", always(func(x *Result) float64 { return x.LostWork }), pct, pp, true},
		{"lost instance-hours", always(func(x *Result) float64 { return float64(x.InstanceSeconds.Lost()) }),
			func(v float64) string { return instanceHours(int64(v)) }, func(d float64) string { return signed(d, instanceHours(int64(math.Abs(d)))) }, true},
		{"makespan", always(func(x *Result) float64 { return float64(x.MakespanSeconds) }), seconds, dur, true},
		{"failed", always(func(x *Result) float64 { return float64(x.Failed) }), whole, count, true},
		{"preemptions", always(func(x *Result) float64 { return float64(x.Preemptions) }), whole, count, true},
		{"timeouts", always(func(x *Result) float64 { return float64(x.Timeouts) }), whole, count, true},
	}
	for _, name := range names(p.r, func(x *Result) []string { return groupNames(x.Classes) }) {
		for _, q := range []struct {
			name string
			get  func(WaitStats) int64
		}{{"p50", func(w WaitStats) int64 { return w.P50 }}, {"p95", func(w WaitStats) int64 { return w.P95 }}, {"p99", func(w WaitStats) int64 { return w.P99 }}} {
			ds = append(ds, delta{name + " wait " + q.name, func(x *Result) (float64, bool) {
				g, ok := groupOf(x.Classes, name)
				return float64(q.get(g.Wait)), ok && g.Completed > 0
			}, seconds, dur, true})
		}
	}
	first := p.r.Runs[0]
	p.f("<table id=\"differences\">\n<thead><tr><th></th><th>%s</th>", esc(first.Label))
	for _, res := range p.r.Runs[1:] {
		p.f("<th>%s − %s</th>", esc(res.Label), esc(first.Label))
	}
	p.f("</tr></thead>\n<tbody>\n")
	for _, d := range ds {
		valued := false
		for _, res := range p.r.Runs {
			_, ok := d.value(res)
			valued = valued || ok
		}
		if !valued {
			continue // e.g. the waits of a class no run completed a job of
		}
		base, ok := d.value(first)
		cell := "-"
		if ok {
			cell = d.base(base)
		}
		p.f("<tr><td>%s</td><td>%s</td>", esc(d.name), esc(cell))
		for _, res := range p.r.Runs[1:] {
			v, vok := d.value(res)
			if !ok || !vok {
				p.f("<td>-</td>")
				continue
			}
			diff := v - base
			shown := d.show(diff)
			class := ""
			// A change too small to show ("0.0 pp", "0s") is no change:
			// neither signed nor coloured.
			if math.Abs(diff) > 1e-12 && !zeroShown(shown) {
				if (diff < 0) == d.lowerBetter {
					class = ` class="better"`
				} else {
					class = ` class="worse"`
				}
			}
			p.f("<td%s>%s</td>", class, esc(shown))
		}
		p.f("</tr>\n")
	}
	p.f("</tbody>\n</table>\n")
}

// signed prefixes a magnitude with the sign of d: + or − (U+2212), nothing
// for no change or a change that rounds to none ("0.0 pp", never "−0.0 pp").
func signed(d float64, magnitude string) string {
	switch {
	case zeroShown(magnitude):
		return magnitude
	case d > 1e-12:
		return "+" + magnitude
	case d < -1e-12:
		return "−" + magnitude
	}
	return magnitude
}

func (p *page) axis() (timeAxis, float64) {
	span := int64(0)
	for _, res := range p.r.Runs {
		span = max(span, res.MakespanSeconds)
	}
	ax := newTimeAxis(span)
	return ax, float64(max(span, 1)) / ax.unit
}

// steps turns per-bucket values into a step line: each bucket's value over
// its whole span (the last bucket's span is what is left of the run, so it
// shows no false drop). x is in the axis unit from the first run's start.
func (p *page) steps(s *Series, ax timeAxis, value func(b int, span float64) float64) ([]float64, []float64) {
	var xs, ys []float64
	origin := p.r.Runs[0].StartSeconds
	for b := range s.Buckets() {
		span := s.Span(b)
		if span <= 0 {
			break
		}
		from := s.Start + int64(b)*s.Width
		v := value(b, float64(span))
		xs = append(xs, float64(from-origin)/ax.unit, float64(from+span-origin)/ax.unit)
		ys = append(ys, v, v)
	}
	return xs, ys
}

func (p *page) utilizationOverTime() string {
	ax, xMax := p.axis()
	c := lineChart{title: "Utilization over time", xLabel: ax.label, yLabel: "share of all pools", xMax: xMax,
		xTick: num, yTick: percentTick, cols: 2, styles: p.st(),
		panels: []linePanel{{title: "busy", yMax: 1}, {title: "goodput", yMax: 1}}}
	for i, res := range p.r.Runs {
		s := res.series
		capacity := float64(max(s.Capacity, 1))
		xs, ys := p.steps(s, ax, func(b int, span float64) float64 {
			busy := 0.0
			for _, row := range s.TeamBusy {
				busy += row[b]
			}
			return busy / (span * capacity)
		})
		c.panels[0].lines = append(c.panels[0].lines, runLine{run: i, xs: xs, ys: ys})
		xs, ys = p.goodputLine(res, ax)
		c.panels[1].lines = append(c.panels[1].lines, runLine{run: i, xs: xs, ys: ys})
	}
	return c.svg()
}

// goodputLine is the run's goodput as a share of all pools, per bucket.
func (p *page) goodputLine(res *Result, ax timeAxis) ([]float64, []float64) {
	s := res.series
	capacity := float64(max(s.Capacity, 1))
	return p.steps(s, ax, func(b int, span float64) float64 { return s.Goodput[b] / (span * capacity) })
}

// teams draws, for every team of any run, the share of all pools its jobs
// held over each run: a row per team, a marker per run, each run a little
// lower in the row than the one before, so that equal values all show.
func (p *page) teams() string {
	teams := teamRows(p.r)
	n := len(p.r.Runs)
	rowH := math.Max(26, 10+5*float64(n))
	nameW := 0.0
	top := 0.0
	for _, t := range teams {
		nameW = math.Max(nameW, textWidth(clip(t.name, maxLabel), 12))
		for i, g := range t.of {
			if g != nil {
				top = math.Max(top, fraction(g.InstanceSeconds.Busy, p.r.Runs[i].CapacityInstanceSeconds))
			}
		}
	}
	xMax := math.Min(1, niceCeil(top))
	legendW := legendWidth(p.st())
	l, r := 16+nameW+12, chartW-legendW-24
	y0 := 40.0
	bottom := y0 + rowH*float64(len(teams))
	var d svgDoc
	d.open("Capacity held by team", chartW, math.Max(bottom+50, 60+20*float64(n)))
	px := func(v float64) float64 { return l + v/xMax*(r-l) }
	step := niceStep(xMax, max(2, int((r-l)/80)))
	for v := 0.0; v <= xMax+step*1e-6; v += step {
		d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`+"\n", px(v), y0, px(v), bottom)
		d.text(px(v), bottom+16, "middle", 12, false, percentTick(v))
	}
	d.text((l+r)/2, bottom+36, "middle", 12, false, "share of all pools held over the run")
	for k, t := range teams {
		y := y0 + rowH*float64(k)
		d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`+"\n", 16.0, y+rowH, r, y+rowH)
		d.text(l-8, y+rowH/2+4, "end", 12, false, clip(t.name, maxLabel))
		for i, res := range p.r.Runs {
			g := t.of[i]
			if g == nil {
				continue
			}
			v := fraction(g.InstanceSeconds.Busy, res.CapacityInstanceSeconds)
			d.marker(p.st()[i], px(v), y+(rowH-5*float64(n-1))/2+5*float64(i), 3.2, fmt.Sprintf("%s, %s: %s", g.Name, res.Label, pct(v)))
		}
	}
	d.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", l, y0, r-l, bottom-y0)
	d.runLegend(p.st(), chartW-legendW+10, 52)
	return d.close()
}

func (p *page) backlog() string {
	ax, xMax := p.axis()
	c := lineChart{title: "Waiting jobs by class", xLabel: ax.label, yLabel: "waiting jobs", xMax: xMax, xTick: num, yTick: num,
		cols: 3, styles: p.st()}
	top := 0.0
	for _, class := range names(p.r, func(x *Result) []string { return x.series.Classes }) {
		pn := linePanel{title: class}
		for ri, res := range p.r.Runs {
			s := res.series
			ci := slices.Index(s.Classes, class)
			if ci < 0 || !hasJobs(res.Classes, class) {
				continue // a class with no job in the trace draws no line
			}
			xs, ys := p.steps(s, ax, func(b int, span float64) float64 { return s.ClassWaiting[ci][b] / span })
			for _, y := range ys {
				top = math.Max(top, y)
			}
			pn.lines = append(pn.lines, runLine{run: ri, xs: xs, ys: ys})
		}
		if len(pn.lines) > 0 {
			c.panels = append(c.panels, pn)
		}
	}
	for i := range c.panels {
		c.panels[i].yMax = niceCeil(top)
	}
	return c.svg()
}

func (p *page) waitCDF() string {
	top := int64(0)
	for _, res := range p.r.Runs {
		for _, h := range res.classWaits {
			top = max(top, h.Max())
		}
	}
	ax := newTimeAxis(top)
	unit := "hours"
	if ax.unit == 86400 {
		unit = "days"
	}
	c := lineChart{title: "Wait distribution by class", xLabel: "wait (" + unit + ")", yLabel: "fraction of completed jobs",
		xMax: math.Max(float64(top)/ax.unit, 1/ax.unit), xTick: num, yTick: percentTick, cols: 3, styles: p.st()}
	for _, class := range names(p.r, func(x *Result) []string { return groupNames(x.Classes) }) {
		pn := linePanel{title: class, yMax: 1}
		for ri, res := range p.r.Runs {
			ci := slices.IndexFunc(res.Classes, func(g GroupStats) bool { return g.Name == class })
			if ci < 0 || ci >= len(res.classWaits) || res.classWaits[ci].N() == 0 {
				continue
			}
			h := res.classWaits[ci]
			l := runLine{run: ri}
			prev := 0.0
			h.Each(func(low int64, cum int) {
				x := float64(low) / ax.unit
				y := float64(cum) / float64(h.N())
				l.xs = append(l.xs, x, x)
				l.ys = append(l.ys, prev, y)
				prev = y
			})
			l.xs = append(l.xs, c.xMax)
			l.ys = append(l.ys, 1)
			pn.lines = append(pn.lines, l)
		}
		if len(pn.lines) > 0 {
			c.panels = append(c.panels, pn)
		}
	}
	return c.svg()
}

// waitBars draws the q-th percentile wait per class, a bar per run, labelled
// with the exact duration; classes without a completed job in any run are
// left out.
func (p *page) waitBars(q int) string {
	c := hbarChart{title: fmt.Sprintf("p%d wait by class", q), xLabel: "wait", styles: p.st(),
		xTick: func(v float64) string { return Duration(int64(v)) }}
	top := 0.0
	for _, class := range names(p.r, func(x *Result) []string { return groupNames(x.Classes) }) {
		g := hbarGroup{name: class}
		any := false
		for i, res := range p.r.Runs {
			s, ok := groupOf(res.Classes, class)
			if !ok || s.Completed == 0 {
				g.rows = append(g.rows, hbarRow{run: i, label: "no jobs"})
				continue
			}
			v := float64(s.Wait.Percentile(q))
			top = math.Max(top, v)
			g.rows = append(g.rows, hbarRow{run: i, value: &v, label: Duration(int64(v))})
			any = true
		}
		if any {
			c.groups = append(c.groups, g)
		}
	}
	c.xStep = durationStep(top, 6)
	c.xMax = math.Max(math.Ceil(top/c.xStep-1e-9), 1) * c.xStep
	return c.svg()
}

// Percentile is the stats' q-th percentile for q in 50, 95, 99 (else Max).
func (w WaitStats) Percentile(q int) int64 {
	switch q {
	case 50:
		return w.P50
	case 95:
		return w.P95
	case 99:
		return w.P99
	}
	return w.Max
}

// utilizationSplit draws each run's capacity as one bar of 100%: goodput
// solid, lost to preemption hatched, lost to timeouts cross-hatched, idle
// empty, all in the run's colour, its figures written beside it.
func (p *page) utilizationSplit() string {
	labelW, textW := 0.0, 0.0
	texts := make([]string, len(p.r.Runs))
	for i, res := range p.r.Runs {
		w := res.InstanceSeconds
		texts[i] = fmt.Sprintf("busy %s: goodput %s, lost %s (preempted %s, timed out %s)", pct(res.Utilization), pct(res.Goodput),
			pct(res.LostWork), pct(fraction(w.LostPreempted, res.CapacityInstanceSeconds)), pct(fraction(w.LostTimedOut, res.CapacityInstanceSeconds)))
		labelW = math.Max(labelW, textWidth(clip(res.Label, maxLabel), 12))
		textW = math.Max(textW, textWidth(texts[i], 11))
	}
	l := 36 + labelW + 12
	r := math.Max(l+200, chartW-textW-16)
	top := 70.0
	bottom := top + 20*float64(len(p.r.Runs)) + 4
	var d svgDoc
	d.open("Utilization: goodput and lost work", math.Max(chartW, r+textW+16), bottom+50)
	d.f("<defs>\n")
	for _, st := range p.st() {
		d.f(`<pattern id="lost-preempted-%d" data-run="%d" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="%s" stroke-width="3"/></pattern>`+"\n",
			st.index, st.index, st.color)
		d.f(`<pattern id="lost-timedout-%d" data-run="%d" patternUnits="userSpaceOnUse" width="6" height="6"><rect width="6" height="6" fill="#fff"/><path d="M0 0L6 6M6 0L0 6" stroke="%s" stroke-width="1.6"/></pattern>`+"\n",
			st.index, st.index, st.color)
	}
	d.f(`<pattern id="key-preempted" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#222" stroke-width="3"/></pattern>` + "\n")
	d.f(`<pattern id="key-timedout" patternUnits="userSpaceOnUse" width="6" height="6"><rect width="6" height="6" fill="#fff"/><path d="M0 0L6 6M6 0L0 6" stroke="#222" stroke-width="1.6"/></pattern>` + "\n")
	d.f("</defs>\n")
	// The key: what each fill means, in black (the colour is the run's).
	x := 16.0
	for _, k := range []struct{ fill, name string }{{"#222", "goodput"}, {"url(#key-preempted)", "lost to preemption"},
		{"url(#key-timedout)", "lost to timeouts"}, {"#fff", "idle"}} {
		d.f(`<rect x="%.1f" y="36" width="24" height="14" fill="%s" stroke="#222"/>`+"\n", x, k.fill)
		d.text(x+30, 48, "start", 12, false, k.name)
		x += 30 + textWidth(k.name, 12) + 24
	}
	px := func(v float64) float64 { return l + v*(r-l) }
	for v := 0.0; v <= 1+1e-9; v += 0.25 {
		d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`+"\n", px(v), top, px(v), bottom)
		d.text(px(v), bottom+16, "middle", 12, false, percentTick(v))
	}
	d.text((l+r)/2, bottom+36, "middle", 12, false, "share of capacity × makespan")
	for i, res := range p.r.Runs {
		st := p.st()[i]
		y := top + 20*float64(i)
		d.marker(st, 24, y+10, markerR, st.label)
		d.text(36, y+14, "start", 12, false, clip(st.label, maxLabel))
		w := res.InstanceSeconds
		from := 0.0
		for _, seg := range []struct {
			v    float64
			fill string
		}{{res.Goodput, st.color}, {fraction(w.LostPreempted, res.CapacityInstanceSeconds), fmt.Sprintf("url(#lost-preempted-%d)", i)},
			{fraction(w.LostTimedOut, res.CapacityInstanceSeconds), fmt.Sprintf("url(#lost-timedout-%d)", i)}} {
			if seg.v > 0 {
				d.f(`<rect data-run="%d" x="%.1f" y="%.1f" width="%.1f" height="14" fill="%s"><title>%s</title></rect>`+"\n",
					i, px(from), y+3, px(from+seg.v)-px(from), seg.fill, esc(res.Label+": "+texts[i]))
			}
			from += seg.v
		}
		d.f(`<rect data-run="%d" x="%.1f" y="%.1f" width="%.1f" height="14" fill="none" stroke="%s"/>`+"\n", i, l, y+3, r-l, st.color)
		d.text(r+8, y+14, "start", 11, false, texts[i])
	}
	return d.close()
}

// totals draws makespan, preemptions and failed jobs per run, each in a
// chart of its own on its own axis and unit (never one normalized axis for
// three quantities).
func (p *page) totals() string {
	var b strings.Builder
	for _, m := range []struct {
		name     string
		value    func(*Result) float64
		label    func(*Result) string
		duration bool
	}{
		{"Makespan", func(x *Result) float64 { return float64(x.MakespanSeconds) }, func(x *Result) string { return Duration(x.MakespanSeconds) }, true},
		{"Preemptions", func(x *Result) float64 { return float64(x.Preemptions) }, func(x *Result) string { return fmt.Sprint(x.Preemptions) }, false},
		{"Failed jobs", func(x *Result) float64 { return float64(x.Failed) }, func(x *Result) string { return fmt.Sprint(x.Failed) }, false},
	} {
		c := hbarChart{title: m.name + " per run", xLabel: strings.ToLower(m.name), xTick: num, styles: p.st()}
		top := 0.0
		var g hbarGroup
		for i, res := range p.r.Runs {
			v := m.value(res)
			top = math.Max(top, v)
			g.rows = append(g.rows, hbarRow{run: i, value: &v, label: m.label(res)})
		}
		c.groups = []hbarGroup{g}
		if m.duration {
			c.xLabel, c.xTick = "time", func(v float64) string { return Duration(int64(v)) }
			c.xStep = durationStep(top, 6)
			c.xMax = math.Max(math.Ceil(top/c.xStep-1e-9), 1) * c.xStep
		} else {
			c.xMax = math.Max(niceCeil(top), 1)
			c.xStep = math.Max(1, niceStep(c.xMax, 6))
		}
		b.WriteString(c.svg())
	}
	return b.String()
}

// rerouting shows each run's re-routing and checkpoint settings and its
// moves by class and route.
func (p *page) rerouting() {
	p.f("<h2>Re-routing and checkpoints</h2>\n<table id=\"settings\">\n<thead><tr><th>run</th><th>moves</th><th style=\"text-align:left\">settings</th></tr></thead>\n<tbody>\n")
	for _, res := range p.r.Runs {
		p.f("<tr><td>%s</td><td>%d</td><td style=\"text-align:left\">%s</td></tr>\n", esc(res.Label), res.Moves, esc(res.Settings.Summary()))
	}
	p.f("</tbody>\n</table>\n")
	any := false
	for _, res := range p.r.Runs {
		any = any || len(res.Routes) > 0
	}
	if !any {
		return
	}
	p.f("<table id=\"routes\">\n<thead><tr><th>run</th><th>class</th><th>from</th><th>to</th><th>moves</th></tr></thead>\n<tbody>\n")
	for _, res := range p.r.Runs {
		for _, rt := range res.Routes {
			p.f("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n", esc(res.Label), esc(rt.Class), esc(rt.From), esc(rt.To), rt.Moves)
		}
	}
	p.f("</tbody>\n</table>\n")
}

func (p *page) failures() {
	any := false
	for _, res := range p.r.Runs {
		any = any || len(res.Failures) > 0
	}
	if !any {
		return
	}
	p.f("<h2>Failures</h2>\n<table id=\"failures\">\n<thead><tr><th>run</th><th>jobs</th><th>reason</th></tr></thead>\n<tbody>\n")
	for _, res := range p.r.Runs {
		for _, f := range res.Failures {
			p.f("<tr><td>%s</td><td>%d</td><td style=\"text-align:left\">%s</td></tr>\n", esc(res.Label), f.Jobs, esc(f.Reason))
		}
	}
	p.f("</tbody>\n</table>\n")
}

// zeroShown reports whether a shown magnitude has no digit but 0.
func zeroShown(s string) bool {
	digits := false
	for _, r := range s {
		if r >= '1' && r <= '9' {
			return false
		}
		digits = digits || r == '0'
	}
	return digits
}

// hasJobs reports whether the class named name had a job in the run.
func hasJobs(classes []GroupStats, name string) bool {
	for _, g := range classes {
		if g.Name == name {
			return g.Jobs > 0
		}
	}
	return false
}
