package simulate

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteReport writes report.json and four SVG plots into dir (created when
// missing) and returns the paths written:
//   - utilization.svg: share of the pools each team used over time;
//   - backlog.svg: waiting jobs per class over time;
//   - waits.svg: the distribution (CDF) of waits per class;
//   - policy-vs-fifo.svg: p95 wait per class, platform policy next to FIFO.
//
// Solid lines are the platform policy, dashed lines FIFO.
func WriteReport(dir string, r *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		return nil, err
	}
	files := map[string][]byte{
		"report.json":        js.Bytes(),
		"utilization.svg":    seriesChart("Utilization by team (share of all pools)", "utilization", r, true),
		"backlog.svg":        seriesChart("Waiting jobs by class", "waiting jobs", r, false),
		"waits.svg":          waitCDF(r),
		"policy-vs-fifo.svg": p95Bars(r),
	}
	var out []string
	for _, name := range []string{"report.json", "utilization.svg", "backlog.svg", "waits.svg", "policy-vs-fifo.svg"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return nil, fmt.Errorf("write report: %w", err)
		}
		out = append(out, path)
	}
	return out, nil
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"}

const (
	chartW, chartH = 900, 420
	left, right    = 70, 230
	top, bottom    = 40, 50
)

type line struct {
	name   string
	color  string
	dashed bool
	xs, ys []float64
}

func svgHeader(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", chartW, chartH)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/><text x="%d" y="22" font-size="15">%s</text>`+"\n", left, esc(title))
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// plot draws lines in a box with axes labelled xLabel and yLabel.
func plot(title, xLabel, yLabel string, lines []line) []byte {
	var b strings.Builder
	svgHeader(&b, title)
	maxX, maxY := 0.0, 0.0
	for _, l := range lines {
		for i := range l.xs {
			maxX, maxY = math.Max(maxX, l.xs[i]), math.Max(maxY, l.ys[i])
		}
	}
	maxX, maxY = nice(maxX), nice(maxY)
	pw, ph := float64(chartW-left-right), float64(chartH-top-bottom)
	px := func(x float64) float64 { return float64(left) + x/maxX*pw }
	py := func(y float64) float64 { return float64(top) + ph - y/maxY*ph }
	for i := 0; i <= ticks(maxY); i++ {
		y := maxY * float64(i) / float64(ticks(maxY))
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, py(y), chartW-right, py(y), left-6, py(y)+4, num(y))
	}
	for i := 0; i <= ticks(maxX); i++ {
		x := maxX * float64(i) / float64(ticks(maxX))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(x), chartH-bottom+16, num(x))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	fmt.Fprintf(&b, `<text x="%.0f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+pw/2, chartH-10, esc(xLabel))
	fmt.Fprintf(&b, `<text x="14" y="%.0f" transform="rotate(-90 14 %.0f)" text-anchor="middle">%s</text>`+"\n", float64(top)+ph/2, float64(top)+ph/2, esc(yLabel))
	for i, l := range lines {
		var pts strings.Builder
		for k := range l.xs {
			fmt.Fprintf(&pts, "%.1f,%.1f ", px(l.xs[k]), py(l.ys[k]))
		}
		dash := ""
		if l.dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>`+"\n", l.color, dash, strings.TrimSpace(pts.String()))
		ly := top + 14 + 18*i
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"%s/><text x="%d" y="%d">%s</text>`+"\n",
			chartW-right+10, ly, chartW-right+34, ly, l.color, dash, chartW-right+40, ly+4, esc(l.name))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// nice rounds v up to 1, 2 or 5 times a power of ten.
func nice(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// ticks is how many intervals split a nice maximum into round steps.
func ticks(max float64) int {
	lead := max / math.Pow(10, math.Floor(math.Log10(max)))
	if math.Abs(lead-5) < 1e-9 {
		return 5
	}
	return 4
}

func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// seriesChart plots per-team utilization or per-class backlog over time (hours
// from the first submission).
func seriesChart(title, yLabel string, r *Report, teams bool) []byte {
	var lines []line
	for ri, res := range []*Result{r.Policy, r.FIFO} {
		s := res.series
		rows, names := s.ClassWaiting, s.Classes
		if teams {
			rows, names = s.TeamBusy, s.Teams
		}
		for i, row := range rows {
			l := line{name: names[i] + " (" + res.Policy + ")", color: palette[i%len(palette)], dashed: ri == 1}
			for b, v := range row {
				l.xs = append(l.xs, float64(int64(b)*s.Width)/3600)
				y := v / float64(s.Width)
				if teams {
					y /= float64(s.Capacity)
				}
				l.ys = append(l.ys, y)
			}
			lines = append(lines, l)
		}
	}
	return plot(title, "hours since the first submission", yLabel, lines)
}

// waitCDF plots, per class, the fraction of completed jobs that waited at
// most x hours.
func waitCDF(r *Report) []byte {
	var lines []line
	for ri, res := range []*Result{r.Policy, r.FIFO} {
		for i, w := range res.waits {
			l := line{name: res.Classes[i].Name + " (" + res.Policy + ")", color: palette[i%len(palette)], dashed: ri == 1}
			n := len(w)
			step := max(1, n/200)
			for k := 0; k < n; k += step {
				l.xs = append(l.xs, float64(w[k])/3600)
				l.ys = append(l.ys, float64(k+1)/float64(n))
			}
			if n > 0 {
				l.xs = append(l.xs, float64(w[n-1])/3600)
				l.ys = append(l.ys, 1)
			}
			lines = append(lines, l)
		}
	}
	return plot("Wait distribution by class (CDF)", "wait (hours)", "fraction of completed jobs", lines)
}

// p95Bars draws p95 wait per class, policy and FIFO side by side.
func p95Bars(r *Report) []byte {
	var b strings.Builder
	svgHeader(&b, "p95 wait by class: "+r.Policy.Policy+" vs FIFO (hours)")
	maxV := 0.0
	for _, res := range []*Result{r.Policy, r.FIFO} {
		for _, c := range res.Classes {
			maxV = math.Max(maxV, float64(c.Wait.P95)/3600)
		}
	}
	maxV = nice(maxV)
	pw, ph := float64(chartW-left-right), float64(chartH-top-bottom)
	n := len(r.Policy.Classes)
	slot := pw / float64(max(n, 1))
	for i := 0; i <= 4; i++ {
		y := float64(top) + ph - ph*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, y, chartW-right, y, left-6, y+4, num(maxV*float64(i)/4))
	}
	for i := range n {
		for ri, res := range []*Result{r.Policy, r.FIFO} {
			v := float64(res.Classes[i].Wait.P95) / 3600
			h := v / maxV * ph
			x := float64(left) + slot*float64(i) + slot*0.15 + float64(ri)*slot*0.35
			color := []string{"#1f77b4", "#aaaaaa"}[ri]
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/><text x="%.1f" y="%.1f" text-anchor="middle">%.1f</text>`+"\n",
				x, float64(top)+ph-h, slot*0.3, h, color, x+slot*0.15, float64(top)+ph-h-4, v)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", float64(left)+slot*(float64(i)+0.5), chartH-bottom+16, esc(r.Policy.Classes[i].Name))
	}
	for ri, name := range []string{r.Policy.Policy, "fifo"} {
		ly := top + 14 + 18*ri
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="20" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			chartW-right+10, ly-6, []string{"#1f77b4", "#aaaaaa"}[ri], chartW-right+36, ly+4, esc(name))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}
