package simulate

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Palette is the report's 20 team colours: Tableau's ten, then ten more
// chosen so that every pair differs by a CIE76 ΔE of at least 25 and each
// stands out from white (TestPaletteColoursAreDistinct). A queue has at most
// 20 quota shares; fair-share teams beyond 20 reuse the colours in order.
var Palette = []string{
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
	"#000075", "#f032e6", "#ffbb78", "#637939", "#b2df8a", "#fb9a99", "#1b9e77", "#e7298a", "#b15928", "#911eb4",
}

// runDashes tells runs apart where colour means team or class: the first
// run solid, then dashed, dotted, dash-dotted.
var runDashes = []string{"", "7 4", "2 3", "8 3 2 3"}

func dash(i int) string { return runDashes[i%len(runDashes)] }

// teamColor is team i's colour.
func teamColor(i int) string { return Palette[i%len(Palette)] }

func esc(s string) string { return html.EscapeString(s) }

// chart is a line chart in an SVG of w × h pixels.
type chart struct {
	title, xLabel, yLabel string
	xMax, yMax            float64
	xTick, yTick          func(float64) string
	lines                 []line
	// stacked draws the lines as stacked areas (they share their xs): each
	// line's values on top of the previous lines'.
	stacked bool
}

type line struct {
	name, color, dash string
	xs, ys            []float64
}

const (
	chartW, chartH             = 920, 360
	plotL, plotR, plotT, plotB = 64, 210, 48, 46
)

// niceStep is a round step (1, 2 or 5 × 10^k) that splits span into about n
// intervals.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
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

// niceCeil rounds v up to a multiple of its nice step (for y axes only: the
// time axis ends where the run ends).
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

// svgOpen starts an SVG tall enough for the chart and a legend of n
// entries, and returns its height.
func svgOpen(b *strings.Builder, title string, n int) int {
	h := max(chartH, plotT+16*n+16)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="12" role="img" aria-label="%s">`+"\n",
		chartW, h, chartW, h, esc(title))
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#fff"/><text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", chartW, h, plotL, esc(title))
	return h
}

func (c *chart) svg() string {
	var b strings.Builder
	svgOpen(&b, c.title, len(c.lines))
	pw, ph := float64(chartW-plotL-plotR), float64(chartH-plotT-plotB)
	xMax, yMax := math.Max(c.xMax, 1e-9), math.Max(c.yMax, 1e-9)
	px := func(x float64) float64 { return float64(plotL) + x/xMax*pw }
	py := func(y float64) float64 { return float64(plotT) + ph - y/yMax*ph }
	ys := niceStep(yMax, 4)
	for y := 0.0; y <= yMax+ys*1e-6; y += ys {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e3e3e3"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			plotL, py(y), chartW-plotR, py(y), plotL-6, py(y)+4, esc(c.yTick(y)))
	}
	xs := niceStep(xMax, 6)
	for x := 0.0; x <= xMax+xs*1e-6; x += xs {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			px(x), chartH-plotB, px(x), chartH-plotB+4, px(x), chartH-plotB+17, esc(c.xTick(x)))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#333"/>`+"\n", plotL, plotT, pw, ph)
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(plotL)+pw/2, chartH-8, esc(c.xLabel))
	fmt.Fprintf(&b, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">%s</text>`+"\n", float64(plotT)+ph/2, float64(plotT)+ph/2, esc(c.yLabel))
	var below []float64
	for i, l := range c.lines {
		if c.stacked {
			if below == nil {
				below = make([]float64, len(l.ys))
			}
			var pts strings.Builder
			for k := range l.xs {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px(l.xs[k]), py(below[k]+l.ys[k]))
			}
			for k := len(l.xs) - 1; k >= 0; k-- {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px(l.xs[k]), py(below[k]))
			}
			for k := range below {
				below[k] += l.ys[k]
			}
			fmt.Fprintf(&b, `<polygon fill="%s" stroke="none" points="%s"><title>%s</title></polygon>`+"\n", l.color, strings.TrimSpace(pts.String()), esc(l.name))
			legend(&b, i, l.name, l.color, "")
			continue
		}
		var pts strings.Builder
		for k := range l.xs {
			fmt.Fprintf(&pts, "%.1f,%.1f ", px(l.xs[k]), py(l.ys[k]))
		}
		d := ""
		if l.dash != "" {
			d = ` stroke-dasharray="` + l.dash + `"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.6"%s points="%s"><title>%s</title></polyline>`+"\n", l.color, d, strings.TrimSpace(pts.String()), esc(l.name))
		legend(&b, i, l.name, l.color, d)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// legend draws entry i of a chart's legend: a solid swatch (exact colour,
// crisp edges) and a line sample in the entry's dash.
func legend(b *strings.Builder, i int, name, color, dashAttr string) {
	y := plotT + 6 + 16*i
	x := chartW - plotR + 10
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s" shape-rendering="crispEdges"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n",
		x, y, color, x+15, y+6, x+37, y+6, color, dashAttr, x+42, y+10, esc(name))
}

// bars is a grouped bar chart: for each group, one bar per series; a nil
// value is drawn as no bar with the label it has (e.g. "no jobs").
type bars struct {
	title, yLabel string
	groups        []string
	series        []string
	colors        []string
	values        [][]*float64 // [group][series]
	labels        [][]string   // [group][series], shown above each bar
	yMax          float64
	yTick         func(float64) string
	// yStep is the y tick step; default: niceStep.
	yStep float64
}

func (c *bars) svg() string {
	var b strings.Builder
	svgOpen(&b, c.title, len(c.series))
	pw, ph := float64(chartW-plotL-plotR), float64(chartH-plotT-plotB)
	yMax := math.Max(c.yMax, 1e-9)
	py := func(y float64) float64 { return float64(plotT) + ph - y/yMax*ph }
	ys := c.yStep
	if ys <= 0 {
		ys = niceStep(yMax, 4)
	}
	for y := 0.0; y <= yMax+ys*1e-6; y += ys {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e3e3e3"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			plotL, py(y), chartW-plotR, py(y), plotL-6, py(y)+4, esc(c.yTick(y)))
	}
	fmt.Fprintf(&b, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">%s</text>`+"\n", float64(plotT)+ph/2, float64(plotT)+ph/2, esc(c.yLabel))
	slot := pw / float64(max(len(c.groups), 1))
	bw := slot * 0.8 / float64(max(len(c.series), 1))
	for g, name := range c.groups {
		x0 := float64(plotL) + slot*float64(g) + slot*0.1
		for s := range c.series {
			x := x0 + bw*float64(s)
			label := c.labels[g][s]
			top := py(0)
			if v := c.values[g][s]; v != nil {
				top = py(*v)
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s</title></rect>`+"\n",
					x, top, bw*0.92, py(0)-top, c.colors[s], esc(name), esc(c.series[s]), esc(label))
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", x+bw*0.46, top-4, esc(label))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+slot*0.4, chartH-plotB+17, esc(name))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#333"/>`+"\n", plotL, py(0), chartW-plotR, py(0))
	for s, name := range c.series {
		legend(&b, s, name, c.colors[s], "")
	}
	b.WriteString("</svg>\n")
	return b.String()
}
