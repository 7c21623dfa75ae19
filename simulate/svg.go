package simulate

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// RunPalette holds the runs' colours, in order; the FIFO baseline is
// FIFOColor. In every chart of the report a colour means one run. The
// colours differ pairwise by a CIE76 ΔE of at least 25, stand out from the
// white background and the text, and are neither the differences table's
// green (better) nor its red (worse) (TestRunColoursAreDistinct). Past nine
// runs the colours repeat; the line style, the marker and the label still
// tell runs apart.
var RunPalette = []string{"#1f77b4", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#bcbd22", "#17becf", "#000075", "#f032e6"}

// FIFOColor is the FIFO baseline's colour.
const FIFOColor = "#7f7f7f"

// BetterColor and WorseColor colour a change from the first run in the
// differences table.
const (
	BetterColor = "#1a7f37"
	WorseColor  = "#b42318"
)

// runDashes and runMarkers tell runs apart by more than colour: run i has
// dash i and marker i, so that up to seven runs differ in both.
var (
	runDashes  = []string{"", "8 4", "2 3", "8 3 2 3", "14 4", "4 2 1 2", "12 3 2 3 2 3"}
	runMarkers = []string{"circle", "square", "triangle", "diamond", "down", "plus", "cross", "star"}
)

// runStyle is how a run is drawn in every chart.
type runStyle struct {
	index                     int
	label, color, dash, shape string
}

func runStyles(runs []*Result) []runStyle {
	var out []runStyle
	k := 0
	for i, res := range runs {
		st := runStyle{index: i, label: res.Label, dash: runDashes[i%len(runDashes)], shape: runMarkers[i%len(runMarkers)]}
		if res.Policy == string(PolicyFIFO) {
			st.color = FIFOColor
		} else {
			st.color = RunPalette[k%len(RunPalette)]
			k++
		}
		out = append(out, st)
	}
	return out
}

func esc(s string) string { return html.EscapeString(s) }

// maxLabel is the most characters of a name a chart shows (the full name is
// in the element's tooltip and the tables).
const maxLabel = 28

// clip cuts s to n characters, the last an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// textWidth is a generous estimate of s's width in pixels at size px in a
// sans-serif font (DejaVu Sans: lowercase letters and digits at most 0.64
// em but m and w, capitals at most 0.8 em but M and W): charts lay out
// their labels with it so that no two overlap.
func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case r == ' ':
			w += 0.35
		case r == 'm' || r == 'w' || r == 'M' || r == 'W' || r == '%' || r == '@':
			w += 1.0
		case r >= 128:
			w += 1.0
		case unicode.IsUpper(r):
			w += 0.8
		default:
			w += 0.65
		}
	}
	return w * size
}

// niceStep is a round step (1, 2 or 5 × 10^k) that splits span into at
// most n intervals.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(max(n, 1))
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// durationSteps are round steps for an axis of seconds.
var durationSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
	86400, 172800, 432000, 864000, 1728000, 4320000, 8640000, 17280000, 43200000}

// durationStep is the smallest round step of seconds that splits span into
// at most n intervals.
func durationStep(span float64, n int) float64 {
	for _, s := range durationSteps {
		if span/s <= float64(n) {
			return s
		}
	}
	return niceStep(span, n)
}

// niceCeil rounds v up to a multiple of its nice step (for value axes only:
// the time axis ends where the run ends).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	s := niceStep(v, 4)
	return math.Ceil(v/s-1e-9) * s
}

func num(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func percentTick(v float64) string { return num(math.Round(v*1000)/10) + "%" }

// svgDoc builds one chart.
type svgDoc struct {
	b strings.Builder
}

func (d *svgDoc) f(format string, args ...any) { fmt.Fprintf(&d.b, format, args...) }

// open starts an SVG of w × h with its title.
func (d *svgDoc) open(title string, w, h float64) {
	d.f(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12" fill="#222" role="img" aria-label="%s">`+"\n",
		w, h, w, h, esc(title))
	d.f(`<rect width="%.0f" height="%.0f" fill="#fff"/>`+"\n", w, h)
	d.text(16, 22, "start", 14, true, title)
}

// text writes s at (x, y) with its anchor (start, middle, end).
func (d *svgDoc) text(x, y float64, anchor string, size int, bold bool, s string) {
	weight := ""
	if bold {
		weight = ` font-weight="bold"`
	}
	d.f(`<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d"%s>%s</text>`+"\n", x, y, anchor, size, weight, esc(s))
}

func (d *svgDoc) close() string {
	d.b.WriteString("</svg>\n")
	return d.b.String()
}

// marker draws run st's marker centred at (x, y), of radius r, with tip as
// its tooltip.
func (d *svgDoc) marker(st runStyle, x, y, r float64, tip string) {
	attrs := fmt.Sprintf(`data-run="%d" data-marker="%s"`, st.index, st.shape)
	filled := func(path string) {
		d.f(`<path %s d="%s" fill="%s" stroke="#fff" stroke-width="0.6"><title>%s</title></path>`+"\n", attrs, path, st.color, esc(tip))
	}
	stroked := func(path string) {
		d.f(`<path %s d="%s" fill="none" stroke="%s" stroke-width="2.2"><title>%s</title></path>`+"\n", attrs, path, st.color, esc(tip))
	}
	switch st.shape {
	case "circle":
		filled(fmt.Sprintf("M%.1f %.1fa%.1f %.1f 0 1 0 %.1f 0a%.1f %.1f 0 1 0 %.1f 0Z", x-r, y, r, r, 2*r, r, r, -2*r))
	case "square":
		q := r * 0.9
		filled(fmt.Sprintf("M%.1f %.1fh%.1fv%.1fh%.1fZ", x-q, y-q, 2*q, 2*q, -2*q))
	case "triangle":
		filled(fmt.Sprintf("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y-r*1.15, x+r*1.1, y+r*0.85, x-r*1.1, y+r*0.85))
	case "down":
		filled(fmt.Sprintf("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y+r*1.15, x+r*1.1, y-r*0.85, x-r*1.1, y-r*0.85))
	case "diamond":
		filled(fmt.Sprintf("M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y-r*1.2, x+r, y, x, y+r*1.2, x-r, y))
	case "plus":
		stroked(fmt.Sprintf("M%.1f %.1fh%.1fM%.1f %.1fv%.1f", x-r, y, 2*r, x, y-r, 2*r))
	case "cross":
		q := r * 0.8
		stroked(fmt.Sprintf("M%.1f %.1fl%.1f %.1fM%.1f %.1fl%.1f %.1f", x-q, y-q, 2*q, 2*q, x-q, y+q, 2*q, -2*q))
	default: // star
		var p strings.Builder
		for k := range 10 {
			rr := r * 1.25
			if k%2 == 1 {
				rr = r * 0.55
			}
			a := math.Pi * (float64(k)/5 - 0.5)
			cmd := "L"
			if k == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&p, "%s%.1f %.1f", cmd, x+rr*math.Cos(a), y+rr*math.Sin(a))
		}
		filled(p.String() + "Z")
	}
}

// runLegend lists runs at (x, y): each a line sample in the run's dash with
// its marker, and its label.
func (d *svgDoc) runLegend(styles []runStyle, x, y float64) {
	d.f("<g data-legend=\"runs\">\n")
	defer d.f("</g>\n")
	for k, st := range styles {
		yy := y + 20*float64(k)
		dash := ""
		if st.dash != "" {
			dash = ` stroke-dasharray="` + st.dash + `"`
		}
		d.f(`<line data-run="%d" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", st.index, x, yy, x+36, yy, st.color, dash)
		d.marker(st, x+18, yy, 4, st.label)
		d.text(x+44, yy+4, "start", 12, false, clip(st.label, maxLabel))
	}
}

// legendWidth is the width a run legend of styles takes.
func legendWidth(styles []runStyle) float64 {
	w := 0.0
	for _, st := range styles {
		w = math.Max(w, textWidth(clip(st.label, maxLabel), 12))
	}
	return 44 + w + 16
}

// lineChart is a set of panels (small multiples) of lines, one line per run
// in a panel, with one legend of the runs on the right. Colour, dash and
// marker are the run's in every panel; each run's markers sit at places of
// their own along the line, so that runs whose lines coincide all show.
type lineChart struct {
	title, xLabel, yLabel string
	xMax                  float64
	xTick, yTick          func(float64) string
	// cols is the most panels in a row.
	cols   int
	panels []linePanel
	styles []runStyle
}

type linePanel struct {
	title string
	yMax  float64
	lines []runLine
}

type runLine struct {
	run    int
	xs, ys []float64
}

const (
	chartW  = 1200.0
	panelH  = 300.0
	markerR = 4.0
)

func (c *lineChart) svg() string {
	var used []runStyle
	seen := map[int]bool{}
	for _, pn := range c.panels {
		for _, l := range pn.lines {
			seen[l.run] = true
		}
	}
	for _, st := range c.styles {
		if seen[st.index] {
			used = append(used, st)
		}
	}
	legendW := legendWidth(used)
	cols := max(1, min(c.cols, len(c.panels)))
	rows := (len(c.panels) + cols - 1) / cols
	panelW := (chartW - legendW - 10) / float64(cols)
	h := math.Max(40+float64(rows)*panelH+10, 60+20*float64(len(used)))
	var d svgDoc
	d.open(c.title, chartW, h)
	xMax := math.Max(c.xMax, 1e-9)
	for k, pn := range c.panels {
		left, top := float64(k%cols)*panelW, 40+float64(k/cols)*panelH
		pl, pr, pt, pb := left+72, left+panelW-24, top+28, top+panelH-52
		yMax := math.Max(pn.yMax, 1e-9)
		px := func(x float64) float64 { return pl + x/xMax*(pr-pl) }
		py := func(y float64) float64 { return pb - y/yMax*(pb-pt) }
		d.text(pl, top+16, "start", 13, true, clip(pn.title, int((pr-pl)/9)))
		ys := niceStep(yMax, 4)
		for y := 0.0; y <= yMax+ys*1e-6; y += ys {
			d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`+"\n", pl, py(y), pr, py(y))
			d.text(pl-6, py(y)+4, "end", 12, false, c.yTick(y))
		}
		xs := niceStep(xMax, max(2, int((pr-pl)/64)))
		for x := 0.0; x <= xMax+xs*1e-6; x += xs {
			d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999"/>`+"\n", px(x), pb, px(x), pb+4)
			d.text(px(x), pb+17, "middle", 12, false, c.xTick(x))
		}
		d.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", pl, pt, pr-pl, pb-pt)
		d.text((pl+pr)/2, pb+36, "middle", 12, false, c.xLabel)
		d.f(`<text x="%.1f" y="%.1f" transform="rotate(-90 %.1f %.1f)" text-anchor="middle">%s</text>`+"\n",
			left+16, (pt+pb)/2, left+16, (pt+pb)/2, esc(c.yLabel))
		for _, l := range pn.lines {
			st := c.styles[l.run]
			var pts strings.Builder
			for i := range l.xs {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px(l.xs[i]), py(l.ys[i]))
			}
			dash := ""
			if st.dash != "" {
				dash = ` stroke-dasharray="` + st.dash + `"`
			}
			d.f(`<polyline data-run="%d" fill="none" stroke="%s" stroke-width="1.6"%s points="%s"><title>%s</title></polyline>`+"\n",
				st.index, st.color, dash, strings.TrimSpace(pts.String()), esc(st.label))
		}
		// Markers over all lines: run i's k-th of m at the fraction
		// (k + (i+½)/n)/m of the axis, so that no two runs' markers
		// share a place and each is at least 16 px from the next.
		n := len(c.styles)
		m := max(2, int((pr-pl)/(16*float64(n))))
		for _, l := range pn.lines {
			st := c.styles[l.run]
			for k := range m {
				x := xMax * (float64(k) + (float64(l.run)+0.5)/float64(n)) / float64(m)
				if y, ok := valueAt(l.xs, l.ys, x); ok {
					d.marker(st, px(x), py(y), markerR, st.label)
				}
			}
		}
	}
	d.runLegend(used, chartW-legendW+10, 52)
	return d.close()
}

// valueAt is the polyline (xs, ys)'s value at x, or false outside it.
func valueAt(xs, ys []float64, x float64) (float64, bool) {
	for i := 0; i+1 < len(xs); i++ {
		if xs[i] <= x && x <= xs[i+1] && xs[i+1] > xs[i] {
			return ys[i] + (ys[i+1]-ys[i])*(x-xs[i])/(xs[i+1]-xs[i]), true
		}
	}
	return 0, false
}

// hbarChart is horizontal bars: for each group (a class, or none), a row
// per run, named by the run's marker and label, its value written at the
// bar's end. Every row has a line of its own, so no label overlaps another.
type hbarChart struct {
	title, xLabel string
	groups        []hbarGroup
	xMax, xStep   float64
	xTick         func(float64) string
	styles        []runStyle
}

type hbarGroup struct {
	name string
	rows []hbarRow
}

type hbarRow struct {
	run   int
	value *float64 // nil: no bar, only the label (e.g. "no jobs")
	label string
}

const hbarW = 900.0

func (c *hbarChart) svg() string {
	labelW, valueW := 0.0, 0.0
	n := 0
	for _, g := range c.groups {
		for _, r := range g.rows {
			labelW = math.Max(labelW, textWidth(clip(c.styles[r.run].label, maxLabel), 12))
			valueW = math.Max(valueW, textWidth(r.label, 11))
			n++
		}
	}
	l := 36 + labelW + 12
	r := hbarW - valueW - 16
	xMax := math.Max(c.xMax, 1e-9)
	px := func(v float64) float64 { return l + v/xMax*(r-l) }
	rowsH := 0.0
	for _, g := range c.groups {
		if g.name != "" {
			rowsH += 22
		}
		rowsH += 20 * float64(len(g.rows))
	}
	top := 40.0
	bottom := top + rowsH + 4
	var d svgDoc
	d.open(c.title, hbarW, bottom+50)
	step := c.xStep
	if step <= 0 {
		step = niceStep(xMax, max(2, int((r-l)/80)))
	}
	for v := 0.0; v <= xMax+step*1e-6; v += step {
		d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e3e3e3"/>`+"\n", px(v), top, px(v), bottom)
		d.text(px(v), bottom+16, "middle", 12, false, c.xTick(v))
	}
	d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", l, top, l, bottom)
	d.f(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", l, bottom, r, bottom)
	d.text((l+r)/2, bottom+36, "middle", 12, false, c.xLabel)
	y := top
	for _, g := range c.groups {
		if g.name != "" {
			d.text(16, y+16, "start", 12, true, clip(g.name, maxLabel))
			y += 22
		}
		for _, row := range g.rows {
			st := c.styles[row.run]
			d.marker(st, 24, y+10, markerR, st.label)
			d.text(36, y+14, "start", 12, false, clip(st.label, maxLabel))
			end := l
			if row.value != nil {
				end = px(*row.value)
				d.f(`<rect data-run="%d" x="%.1f" y="%.1f" width="%.1f" height="14" fill="%s"><title>%s, %s: %s</title></rect>`+"\n",
					st.index, l, y+3, math.Max(end-l, 0), st.color, esc(g.name), esc(st.label), esc(row.label))
			}
			d.text(end+6, y+14, "start", 11, false, row.label)
			y += 20
		}
	}
	return d.close()
}
