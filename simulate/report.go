package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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

// runColor is run i's colour in charts where colour means run; FIFO is grey.
func runColor(i int, res *Result) string {
	if res.Policy == string(PolicyFIFO) {
		return "#7f7f7f"
	}
	return Palette[i%len(Palette)]
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
	w *bufio.Writer
	r *Report
}

func (p *page) f(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

func (p *page) write() {
	r := p.r
	first := r.Runs[0]
	var labels []string
	for _, res := range r.Runs {
		labels = append(labels, res.Label)
	}
	p.f("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>trainq simulate: %s</title>\n", esc(r.Trace))
	p.f("<style>\nbody{font-family:sans-serif;margin:24px;color:#222;max-width:1400px}\ntable{border-collapse:collapse;margin:8px 0 24px}\n" +
		"th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}\nth:first-child,td:first-child{text-align:left}\n" +
		"thead th{background:#f2f2f2}\nfigure{margin:0 0 24px}\nfigcaption{font-size:13px;color:#555;max-width:900px}\n" +
		".better{color:#1a7f37}.worse{color:#b42318}\n</style>\n</head>\n<body>\n")
	p.f("<h1>trainq simulate: %s</h1>\n", esc(r.Trace))
	p.f("<p id=\"summary\">%d jobs, %d runs: %s. Makespan of %s: %s. The first run is the baseline of the differences.</p>\n",
		first.Jobs, len(r.Runs), esc(strings.Join(labels, ", ")), esc(first.Label), Duration(first.MakespanSeconds))

	runs, classes, teams := summaryRows(r)
	p.f("<h2>Runs side by side</h2>\n")
	p.table("runs", runs)
	if len(r.Runs) > 1 {
		p.f("<h2>Differences from %s</h2>\n", esc(first.Label))
		p.differences()
	}
	p.f("<h2>Utilization</h2>\n")
	p.figure("utilization-split", p.utilizationBars(),
		"Busy capacity over the whole run, split into goodput (attempts that completed their job) and lost work (attempts preempted or timed out). Exact instance-seconds are in report.json.")
	p.figure("utilization-time", p.utilizationOverTime(),
		"Solid: busy share of all pools; dashed: goodput, the share whose work went into completed jobs (their completing attempts, and what checkpoints kept of their earlier ones; kept work of a job that failed is lost, as in the table). Each point is a bucket of the run; the last bucket is as long as what is left of the run.")
	for i, res := range r.Runs {
		p.figure(fmt.Sprintf("teams-%d", i), p.teamsOverTime(res), "Share of all pools held by each team's running jobs, stacked: the top edge is the run's busy share.")
	}
	p.f("<h2>Waiting</h2>\n")
	p.figure("p95", p.waitBars(95), "p95 wait of completed jobs per class; a class with no completed job in a run shows \"no jobs\".")
	p.figure("waits-cdf", p.waitCDF(), "Fraction of completed jobs that waited at most x. Colour: class; line style: run (see the legend).")
	p.figure("backlog", p.backlog(), "Waiting jobs per class, averaged over each bucket. Colour: class; line style: run.")
	p.f("<h2>Makespan, preemptions and failures</h2>\n")
	p.figure("totals", p.totals(), "Per run, each on its own axis: the makespan (first submission to last end), the preemptions and the failed jobs.")
	p.rerouting()
	p.f("<h2>Classes</h2>\n")
	p.table("classes", classes)
	p.f("<h2>Teams</h2>\n")
	p.table("teams", teams)
	p.failures()
	p.f("</body>\n</html>\n")
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
		{"lost instance-hours", always(func(x *Result) float64 { return float64(x.InstanceSeconds.Lost()) / 3600 }),
			func(v float64) string { return fmt.Sprintf("%.1f", v) }, func(d float64) string { return signed(d, fmt.Sprintf("%.1f", math.Abs(d))) }, true},
		{"makespan", always(func(x *Result) float64 { return float64(x.MakespanSeconds) }), seconds, dur, true},
		{"failed", always(func(x *Result) float64 { return float64(x.Failed) }), whole, count, true},
		{"preemptions", always(func(x *Result) float64 { return float64(x.Preemptions) }), whole, count, true},
		{"timeouts", always(func(x *Result) float64 { return float64(x.Timeouts) }), whole, count, true},
	}
	for i, c := range p.r.Runs[0].Classes {
		for _, q := range []struct {
			name string
			get  func(WaitStats) int64
		}{{"p50", func(w WaitStats) int64 { return w.P50 }}, {"p95", func(w WaitStats) int64 { return w.P95 }}, {"p99", func(w WaitStats) int64 { return w.P99 }}} {
			ds = append(ds, delta{c.Name + " wait " + q.name, func(x *Result) (float64, bool) {
				g := x.Classes[i]
				return float64(q.get(g.Wait)), g.Completed > 0
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
	c := chart{title: "Utilization over time", xLabel: ax.label, yLabel: "share of all pools", xMax: xMax, yMax: 1,
		xTick: num, yTick: percentTick}
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
		c.lines = append(c.lines, line{name: res.Label + " busy", color: runColor(i, res), xs: xs, ys: ys})
		xs, ys = p.steps(s, ax, func(b int, span float64) float64 { return s.Goodput[b] / (span * capacity) })
		c.lines = append(c.lines, line{name: res.Label + " goodput", color: runColor(i, res), dash: "6 3", xs: xs, ys: ys})
	}
	return c.svg()
}

func (p *page) teamsOverTime(res *Result) string {
	ax, xMax := p.axis()
	s := res.series
	capacity := float64(max(s.Capacity, 1))
	c := chart{title: "Capacity held by team: " + res.Label, xLabel: ax.label, yLabel: "share of all pools", xMax: xMax, yMax: 1,
		xTick: num, yTick: percentTick, stacked: true}
	for i, team := range s.Teams {
		xs, ys := p.steps(s, ax, func(b int, span float64) float64 { return s.TeamBusy[i][b] / (span * capacity) })
		c.lines = append(c.lines, line{name: team, color: teamColor(i), xs: xs, ys: ys})
	}
	return c.svg()
}

func (p *page) backlog() string {
	ax, xMax := p.axis()
	c := chart{title: "Waiting jobs by class", xLabel: ax.label, yLabel: "waiting jobs", xMax: xMax, xTick: num, yTick: num}
	top := 0.0
	for ri, res := range p.r.Runs {
		s := res.series
		for ci, class := range s.Classes {
			if !hasJobs(res.Classes, class) {
				continue // a class with no job in the trace draws no line
			}
			xs, ys := p.steps(s, ax, func(b int, span float64) float64 { return s.ClassWaiting[ci][b] / span })
			for _, y := range ys {
				top = math.Max(top, y)
			}
			c.lines = append(c.lines, line{name: class + " · " + res.Label, color: Palette[ci%len(Palette)], dash: dash(ri), xs: xs, ys: ys})
		}
	}
	c.yMax = niceCeil(top)
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
	c := chart{title: "Wait distribution by class", xLabel: "wait (" + unit + ")", yLabel: "fraction of completed jobs",
		xMax: math.Max(float64(top)/ax.unit, 1/ax.unit), yMax: 1, xTick: num, yTick: percentTick}
	for ri, res := range p.r.Runs {
		for ci, h := range res.classWaits {
			if h.N() == 0 {
				continue
			}
			l := line{name: res.Classes[ci].Name + " · " + res.Label, color: Palette[ci%len(Palette)], dash: dash(ri)}
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
			c.lines = append(c.lines, l)
		}
	}
	return c.svg()
}

// waitBars draws the q-th percentile wait per class, a bar per run, labelled
// with the exact duration; classes without a completed job in any run are
// left out.
func (p *page) waitBars(q int) string {
	c := bars{title: fmt.Sprintf("p%d wait by class", q), yLabel: "wait", yTick: func(v float64) string { return Duration(int64(v)) }}
	for i, res := range p.r.Runs {
		c.series = append(c.series, res.Label)
		c.colors = append(c.colors, runColor(i, res))
	}
	top := 0.0
	for ci, class := range p.r.Runs[0].Classes {
		var vs []*float64
		var ls []string
		any := false
		for _, res := range p.r.Runs {
			g := res.Classes[ci]
			if g.Completed == 0 {
				vs, ls = append(vs, nil), append(ls, "no jobs")
				continue
			}
			v := float64(g.Wait.Percentile(q))
			top = math.Max(top, v)
			vs, ls = append(vs, &v), append(ls, Duration(int64(v)))
			any = true
		}
		if any {
			c.groups = append(c.groups, class.Name)
			c.values = append(c.values, vs)
			c.labels = append(c.labels, ls)
		}
	}
	c.yStep = durationStep(top, 4)
	c.yMax = math.Max(math.Ceil(top/c.yStep-1e-9), 1) * c.yStep
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

// utilizationBars stacks goodput and lost work per run, as a share of the
// run's capacity.
func (p *page) utilizationBars() string {
	c := bars{title: "Utilization: goodput and lost work", yLabel: "share of capacity × makespan", yTick: percentTick,
		series: []string{"goodput", "lost: preempted", "lost: timed out", "busy (all)"},
		colors: []string{"#2ca02c", "#ff7f0e", "#d62728", "#1f77b4"}}
	top := 0.0
	for _, res := range p.r.Runs {
		w := res.InstanceSeconds
		vals := []float64{res.Goodput, fraction(w.LostPreempted, res.CapacityInstanceSeconds), fraction(w.LostTimedOut, res.CapacityInstanceSeconds), res.Utilization}
		var vs []*float64
		var ls []string
		for i := range vals {
			v := vals[i]
			top = math.Max(top, v)
			vs, ls = append(vs, &v), append(ls, pct(v))
		}
		c.groups = append(c.groups, res.Label)
		c.values = append(c.values, vs)
		c.labels = append(c.labels, ls)
	}
	c.yMax = math.Min(1, niceCeil(top))
	return c.svg()
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
		c := bars{title: m.name + " per run", yLabel: strings.ToLower(m.name), yTick: num}
		top := 0.0
		var vs []*float64
		var ls []string
		for i, res := range p.r.Runs {
			c.series = append(c.series, res.Label)
			c.colors = append(c.colors, runColor(i, res))
			v := m.value(res)
			top = math.Max(top, v)
			vs, ls = append(vs, &v), append(ls, m.label(res))
		}
		c.groups, c.values, c.labels = []string{strings.ToLower(m.name)}, [][]*float64{vs}, [][]string{ls}
		if m.duration {
			c.yLabel, c.yTick = "time", func(v float64) string { return Duration(int64(v)) }
			c.yStep = durationStep(top, 4)
			c.yMax = math.Max(math.Ceil(top/c.yStep-1e-9), 1) * c.yStep
		} else {
			c.yMax = math.Max(niceCeil(top), 1)
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
