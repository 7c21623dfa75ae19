package simulate_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	htmlstd "html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// report runs jobs on p (labelled label) and FIFO and returns the report.
func report(t *testing.T, label string, p *platform.Platform, jobs []trace.Job) *simulate.Report {
	t.Helper()
	rep := &simulate.Report{Schema: simulate.Schema, Trace: label + ".csv"}
	for _, pol := range []simulate.Policy{simulate.PolicyPlatform, simulate.PolicyFIFO} {
		res, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		res.Label = label
		if pol == simulate.PolicyFIFO {
			res.Label = "fifo"
		}
		rep.Runs = append(rep.Runs, res)
	}
	return rep
}

func html(t *testing.T, rep *simulate.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := simulate.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// figure returns the <figure id="id"> element of page.
func figure(t *testing.T, page, id string) string {
	t.Helper()
	start := strings.Index(page, `<figure id="`+id+`">`)
	if start < 0 {
		t.Fatalf("no figure %q", id)
	}
	end := strings.Index(page[start:], "</figure>")
	return page[start : start+end]
}

// svgTexts lists the contents of an SVG's <text> elements.
func svgTexts(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestReportFigures(t *testing.T) {
	// One instance, in-share preemption off. x (production, 50 s) runs 0–50;
	// p (production, 40 s) waits 50 s and runs 50–90; r (research) waits
	// 90 s. FIFO takes them in the same order. Production's p95 is the 2nd of
	// 2 waits (⌈1.9⌉), 50 s; research's only wait is 90 s = 1m30s. No sweep
	// job: sweep gets no bars. Makespan 0–1090 s.
	p := quotaPlatform(t, 1, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %s, instances: 1}], inSharePreemption: false}\n", p5))
	rep := report(t, "one", p, []trace.Job{job("x", "a").class("production").runs(50).Job(),
		job("p", "a").class("production").runs(40).Job(), job("r", "a").Job()})
	page := html(t, rep)
	t.Run("bar labels give exact durations and classes without jobs have no bars", func(t *testing.T) {
		texts := strings.Join(svgTexts(figure(t, page, "p95")), "|")
		for _, want := range []string{"|50s|", "|1m30s|", "|production|", "|research|"} {
			if !strings.Contains("|"+texts+"|", want) {
				t.Errorf("p95 figure texts %q lack %q", texts, want)
			}
		}
		if strings.Contains(texts, "sweep") || strings.Contains(texts, "0.0") {
			t.Errorf("p95 figure texts %q show the class without jobs, or hours rounded to 0.1", texts)
		}
	})
	t.Run("the time axis ends where the run ends", func(t *testing.T) {
		// 1090 s = 0.303 h: ticks every 0.05 h up to 0.3, none beyond.
		var ticks []float64
		for _, s := range svgTexts(figure(t, page, "utilization-time")) {
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				ticks = append(ticks, v)
			}
		}
		if len(ticks) == 0 || ticks[len(ticks)-1] != 0.3 {
			t.Errorf("time ticks %v, want 0 … 0.3 (the run is 0.303 h long)", ticks)
		}
	})
	t.Run("the page has every chart and no external resource", func(t *testing.T) {
		for _, id := range []string{"utilization-split", "utilization-time", "teams-held", "p95", "waits-cdf", "backlog", "totals"} {
			figure(t, page, id)
		}
		// url(#id) names a pattern of the page itself.
		local := strings.ReplaceAll(page, "url(#", "")
		for _, bad := range []string{"<script", "<link", "src=", "url(", "@import", "https://"} {
			if strings.Contains(local, bad) {
				t.Errorf("report.html contains %q: it must be self-contained", bad)
			}
		}
	})
}

func TestReportSameBytes(t *testing.T) {
	p := platform.Default()
	var jobs []trace.Job
	trace.Generate(p, trace.GenerateOptions{Seed: 4, Jobs: 500}, func(j trace.Job) error { jobs = append(jobs, j); return nil })
	a, b := html(t, report(t, "default", p, jobs)), html(t, report(t, "default", p, jobs))
	if a != b {
		t.Error("two reports of the same inputs differ")
	}
}

// TestRunColoursAreDistinct: every pair of run colours (FIFO's grey
// included) differs by a CIE76 ΔE (CIELAB, D65) of at least 25, and each by
// at least 35 from the white background, the text (#222) and the
// differences table's better and worse colours, so that a run's colour is
// never read as "better" or "worse". (A ΔE of about 2.3 is the smallest
// difference people notice.)
func TestRunColoursAreDistinct(t *testing.T) {
	runs := append([]string{simulate.FIFOColor}, simulate.RunPalette...)
	for i, a := range runs {
		for _, other := range []string{"#ffffff", "#222222", simulate.BetterColor, simulate.WorseColor} {
			if d := deltaE(lab(a), lab(other)); d < 35 {
				t.Errorf("run colour %s is only ΔE %.1f from %s", a, d, other)
			}
		}
		for _, b := range runs[i+1:] {
			if d := deltaE(lab(a), lab(b)); d < 25 {
				t.Errorf("run colours %s and %s differ by ΔE %.1f", a, b, d)
			}
		}
	}
}

// lab converts #rrggbb (sRGB) to CIELAB with the D65 white point.
func lab(hex string) [3]float64 {
	v, _ := strconv.ParseUint(hex[1:], 16, 32)
	lin := func(c uint64) float64 {
		x := float64(c) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(v>>16&255), lin(v>>8&255), lin(v&255)
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

func deltaE(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

// chromium returns Debian's chromium, or skips where it is absent (CI
// images have it: .ci/run installs it, and under CI=true its absence fails).
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is not on PATH (.ci/run installs Debian's chromium): %v", err)
		}
		t.Skip("chromium is not installed here (apt-get install chromium); CI images have it and run this test")
	}
	return path
}

// artifacts is where the report test keeps report.html and its screenshot:
// $TRAINQ_TEST_ARTIFACTS/simulate (.ci/run sets it to .artifacts in the
// clone, which CI keeps), else trainq-test-artifacts/simulate in the
// system's temp dir. The test logs the path.
func artifacts(t *testing.T) string {
	dir := os.Getenv("TRAINQ_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "trainq-test-artifacts")
	}
	dir = filepath.Join(dir, "simulate")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(), "--force-color-profile=srgb", "--hide-scrollbars",
		"--force-device-scale-factor=1"}
	cmd := exec.Command(bin, append(base, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
	}
	return out.Bytes()
}

// sevenRuns is the report of seven runs of one trace on a platform of 20
// teams with a quota share of 3 instances each (one with a name longer than
// a chart shows): the platform as it is (shares), the same platform under
// another name (shares-copy, whose results are identical), four changes of
// its sharing, one with a label longer than a chart shows, and FIFO. The
// trace has no sweep job, so sweep must draw nothing.
func sevenRuns(t *testing.T) *simulate.Report {
	t.Helper()
	plat := func(teamYAML string, pool int) *platform.Platform {
		var teams []string
		for i := 1; i <= 20; i++ {
			name := fmt.Sprintf("team-%02d", i)
			if i == 20 {
				name = "team-20-whose-name-is-longer-than-a-chart-shows"
			}
			teams = append(teams, fmt.Sprintf("  - {name: %s, capacity: [{instanceType: %s, instances: 3}], %s}", name, p5, teamYAML))
		}
		return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: %d}]\nteams:\n%s\n", p5, pool, strings.Join(teams, "\n")))
	}
	const share = "sharing: lend-and-borrow, borrowLimitPercent: 100, inSharePreemption: true"
	var jobs []trace.Job
	if err := trace.Generate(plat(share, 60), trace.GenerateOptions{Seed: 11, Jobs: 3000, Load: 0.9}, func(j trace.Job) error {
		if j.Class != "sweep" {
			jobs = append(jobs, j)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rep := &simulate.Report{Schema: simulate.Schema, Trace: "twenty-teams.csv"}
	for _, r := range []struct {
		label, teams string
		pool         int
		policy       simulate.Policy
	}{
		{"shares", share, 60, simulate.PolicyPlatform},
		{"shares-copy", share, 60, simulate.PolicyPlatform},
		{"no-in-share-preemption", "sharing: lend-and-borrow, borrowLimitPercent: 100, inSharePreemption: false", 60, simulate.PolicyPlatform},
		{"borrow-50", "sharing: lend-and-borrow, borrowLimitPercent: 50, inSharePreemption: true", 60, simulate.PolicyPlatform},
		{"reserve", "sharing: reserve, inSharePreemption: true", 60, simulate.PolicyPlatform},
		{"borrow-200-and-a-label-longer-than-a-chart-shows", "sharing: lend-and-borrow, borrowLimitPercent: 200, inSharePreemption: true", 60, simulate.PolicyPlatform},
		{"fifo", share, 60, simulate.PolicyFIFO},
	} {
		res, err := simulate.Run(plat(r.teams, r.pool), &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: r.policy})
		if err != nil {
			t.Fatal(err)
		}
		res.Label = r.label
		rep.Runs = append(rep.Runs, res)
	}
	return rep
}

// probe is a script the test appends to a copy of report.html. Chromium runs
// it once the page is laid out; it writes what the test checks into the DOM
// as JSON (read back with --dump-dom): the box of every rendered text (SVG
// text elements, and every line of HTML text), every colour each chart
// paints with the run it belongs to, each chart's texts, line dashes and
// markers, and whether each marker is the topmost element at its centre
// (and whether it is a legend's).
const probe = `<script>
(() => {
  const out = {texts: [], colours: [], charts: [], cells: [], height: 0};
  const box = (r, s) => ({s: s, x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height});
  for (const el of document.querySelectorAll('svg text')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.texts.push(box(r, el.textContent));
  }
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    if (!n.data.trim() || n.parentElement.closest('svg, script, title, style')) continue;
    const rg = document.createRange();
    rg.selectNodeContents(n);
    for (const r of rg.getClientRects()) if (r.width > 0 && r.height > 0) out.texts.push(box(r, n.data.trim()));
  }
  for (const td of document.querySelectorAll('#differences td')) out.cells.push({s: td.textContent, c: td.className, color: getComputedStyle(td).color});
  out.height = document.documentElement.scrollHeight;
  document.querySelectorAll('svg').forEach((svg, si) => {
    const chart = {figure: svg.closest('figure').id, title: svg.getAttribute('aria-label'),
      texts: [...svg.querySelectorAll('text')].map(t => t.textContent), lines: [], markers: []};
    for (const el of svg.querySelectorAll('*')) {
      if (['text', 'title', 'defs', 'pattern'].includes(el.tagName)) continue;
      const cs = getComputedStyle(el);
      const run = el.closest('[data-run]');
      for (const c of [cs.fill, cs.stroke]) {
        if (c && c !== 'none' && !c.startsWith('url')) out.colours.push({c: c, run: run ? run.dataset.run : '', chart: si, tag: el.tagName});
      }
    }
    for (const pl of svg.querySelectorAll('polyline[data-run]')) chart.lines.push({run: pl.dataset.run, dash: getComputedStyle(pl).strokeDasharray});
    for (const m of svg.querySelectorAll('[data-marker]')) {
      window.scrollTo(0, Math.max(0, m.getBoundingClientRect().top + scrollY - 300));
      const r = m.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      const at = hit && hit.closest('[data-run]');
      chart.markers.push({run: m.dataset.run, shape: m.dataset.marker, legend: !!m.closest('[data-legend]'), visible: !!at && at.dataset.run === m.dataset.run});
    }
    out.charts.push(chart);
  });
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
`

type probed struct {
	Texts []struct {
		S          string
		X, Y, W, H float64
	}
	Colours []struct {
		C, Run, Tag string
		Chart       int
	}
	Charts []struct {
		Figure, Title string
		Texts         []string
		Lines         []struct{ Run, Dash string }
		Markers       []struct {
			Run, Shape      string
			Legend, Visible bool
		}
	}
	Cells  []struct{ S, C, Color string }
	Height int
}

// TestReportInChromium renders the report of seven runs and 20 teams
// (sevenRuns) in headless Chromium and checks what a platform lead reading
// it relies on, from the laid-out page:
//   - no two texts overlap (their boxes, from the DOM);
//   - a colour means one run on the whole page, each run has one colour,
//     and everything else is drawn in greys;
//   - every chart names each run it draws (legend or row), and in line
//     charts no two runs share a dash and a marker;
//   - every run drawn in a chart shows at least one marker on top at its
//     centre (identical runs do not hide each other), and the page says
//     which runs are identical;
//   - one team chart for all runs, with every team; makespan, preemptions
//     and failures each on a chart of its own; sweep (no job) draws nothing;
//   - a difference shown as no change (0.0 pp, 0s) is not coloured;
//   - the screenshot shows every run's colour.
//
// The page, the probed page and the screenshot stay in the artifacts
// directory the test logs.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	rep := sevenRuns(t)
	dir := artifacts(t)
	if _, err := simulate.WriteReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	probePage := filepath.Join(dir, "report-probe.html")
	if err := os.WriteFile(probePage, bytes.Replace(page, []byte("</body>"), []byte(probe+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, bin, "--window-size=1400,1000", "--dump-dom", "file://"+probePage))
	m := regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote nothing: %.500s", dom)
	}
	var got probed
	if err := json.Unmarshal([]byte(htmlstd.UnescapeString(m[1])), &got); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for i, res := range rep.Runs {
		labels[strconv.Itoa(i)] = res.Label
	}

	t.Run("no two texts overlap", func(t *testing.T) {
		n := 0
		for i, a := range got.Texts {
			for _, b := range got.Texts[i+1:] {
				// Overlap: the boxes share more than half a pixel both ways
				// (boxes of adjacent lines touch).
				ox := math.Min(a.X+a.W, b.X+b.W) - math.Max(a.X, b.X)
				oy := math.Min(a.Y+a.H, b.Y+b.H) - math.Max(a.Y, b.Y)
				if ox > 0.5 && oy > 0.5 {
					if n++; n <= 10 {
						t.Errorf("%q at (%.0f, %.0f) overlaps %q at (%.0f, %.0f) by %.1f × %.1f px", a.S, a.X, a.Y, b.S, b.X, b.Y, ox, oy)
					}
				}
			}
		}
		if n > 10 {
			t.Errorf("and %d more overlaps", n-10)
		}
		if len(got.Texts) < 1000 {
			t.Errorf("%d texts probed: the probe is out of date (the tables alone have more)", len(got.Texts))
		}
		t.Logf("%d text boxes of %d charts and the tables, pairwise: %d overlaps", len(got.Texts), len(got.Charts), n)
	})

	t.Run("a colour means one run", func(t *testing.T) {
		// The greys of text, axes, grid and background mean no run.
		neutral := map[string]bool{"rgb(255, 255, 255)": true, "rgb(34, 34, 34)": true, "rgb(51, 51, 51)": true,
			"rgb(153, 153, 153)": true, "rgb(227, 227, 227)": true, "rgb(0, 0, 0)": true}
		runsOf, coloursOf := map[string]map[string]bool{}, map[string]map[string]bool{}
		for _, c := range got.Colours {
			if neutral[c.C] {
				continue
			}
			if c.Run == "" {
				t.Errorf("chart %d paints a %s in %s, which belongs to no run", c.Chart, c.Tag, c.C)
				continue
			}
			if runsOf[c.C] == nil {
				runsOf[c.C] = map[string]bool{}
			}
			if coloursOf[c.Run] == nil {
				coloursOf[c.Run] = map[string]bool{}
			}
			runsOf[c.C][labels[c.Run]], coloursOf[c.Run][c.C] = true, true
		}
		for c, runs := range runsOf {
			if len(runs) != 1 {
				t.Errorf("colour %s means runs %v", c, runs)
			}
		}
		for i := range rep.Runs {
			if cs := coloursOf[strconv.Itoa(i)]; len(cs) != 1 {
				t.Errorf("run %s is drawn in colours %v, want one", rep.Runs[i].Label, cs)
			}
		}
	})

	t.Run("every run is told apart by more than colour, and shows", func(t *testing.T) {
		for _, c := range got.Charts {
			shapes, dashes := map[string]map[string]bool{}, map[string]map[string]bool{}
			for _, mk := range c.Markers {
				if shapes[mk.Run] == nil {
					shapes[mk.Run] = map[string]bool{}
				}
				shapes[mk.Run][mk.Shape] = true
			}
			for _, l := range c.Lines {
				if dashes[l.Run] == nil {
					dashes[l.Run] = map[string]bool{}
				}
				dashes[l.Run][l.Dash] = true
			}
			style := map[string]string{}
			for run, s := range shapes {
				// Every run drawn is named in the chart, as a chart shows it
				// (at most 28 characters).
				label := []rune(labels[run])
				if len(label) > 28 {
					label = append(label[:27], '…')
				}
				if !slices.Contains(c.Texts, string(label)) {
					t.Errorf("%s: run %s is drawn but not named (texts %q)", c.Title, labels[run], c.Texts)
				}
				if len(s) != 1 || len(dashes[run]) > 1 {
					t.Errorf("%s: run %s has markers %v and dashes %v, want one of each", c.Title, labels[run], s, dashes[run])
				}
				key := fmt.Sprint(s, dashes[run])
				if other, ok := style[key]; ok && len(c.Lines) > 0 {
					t.Errorf("%s: runs %s and %s share the marker and dash %s", c.Title, other, labels[run], key)
				}
				style[key] = labels[run]
				visible := false
				for _, mk := range c.Markers {
					// A legend's marker always shows: only the data's count.
					visible = visible || (mk.Run == run && mk.Visible && !mk.Legend)
				}
				if !visible {
					t.Errorf("%s: no marker of run %s is on top at its centre: it is hidden", c.Title, labels[run])
				}
			}
			if len(shapes) != len(rep.Runs) {
				t.Errorf("%s draws %d runs, want all %d", c.Title, len(shapes), len(rep.Runs))
			}
		}
		if !strings.Contains(string(page), `<p class="note" id="identical">Runs shares, shares-copy have identical results`) {
			t.Error("the page does not say that shares and shares-copy are identical")
		}
	})

	t.Run("the charts", func(t *testing.T) {
		var figures []string
		for _, c := range got.Charts {
			figures = append(figures, c.Figure+": "+c.Title)
			for _, s := range c.Texts {
				if strings.Contains(s, "sweep") {
					t.Errorf("%s shows %q: sweep has no job in the trace", c.Title, s)
				}
			}
			if c.Figure == "teams-held" {
				for _, team := range rep.Runs[0].Teams {
					name := []rune(team.Name)
					if len(name) > 28 {
						name = append(name[:27], '…')
					}
					if !slices.Contains(c.Texts, string(name)) {
						t.Errorf("the team chart lacks team %s", team.Name)
					}
				}
			}
		}
		want := []string{"utilization-split: Utilization: goodput and lost work", "utilization-time: Utilization over time",
			"teams-held: Capacity held by team", "p95: p95 wait by class", "waits-cdf: Wait distribution by class",
			"backlog: Waiting jobs by class", "totals: Makespan per run", "totals: Preemptions per run", "totals: Failed jobs per run"}
		if !slices.Equal(figures, want) {
			t.Errorf("charts %q, want %q", figures, want)
		}
	})

	t.Run("no change is not coloured", func(t *testing.T) {
		zero := regexp.MustCompile(`^[+−-]?[0.]+( pp|s)?$`)
		n := 0
		for _, c := range got.Cells {
			if c.C != "" && zero.MatchString(c.S) {
				t.Errorf("differences: %q is shown as %s (%s)", c.S, c.C, c.Color)
			}
			if strings.HasPrefix(c.S, "−0.0") || strings.HasPrefix(c.S, "+0.0") || strings.HasPrefix(c.S, "−0s") {
				t.Errorf("differences: %q is a signed zero", c.S)
			}
			if c.C != "" {
				n++
			}
		}
		if n == 0 {
			t.Error("differences: no cell is coloured; six runs differ from the first")
		}
	})

	shot := filepath.Join(dir, "report.png")
	runChromium(t, bin, fmt.Sprintf("--window-size=1400,%d", got.Height), "--screenshot="+shot, "file://"+filepath.Join(dir, "report.html"))
	t.Logf("report, probed report and screenshot (1400×%d) kept in %s", got.Height, dir)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	count := map[color.RGBA]int{}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	for i := 0; i+3 < len(rgba.Pix); i += 4 {
		count[color.RGBA{rgba.Pix[i], rgba.Pix[i+1], rgba.Pix[i+2], 255}]++
	}
	// Six runs of the platform take the palette's first six colours, FIFO
	// its grey. Each run's goodput bar alone is at least 14 px high and
	// tens of px long.
	for i, c := range append(slices.Clone(simulate.RunPalette[:6]), simulate.FIFOColor) {
		v, _ := strconv.ParseUint(c[1:], 16, 32)
		if n := count[color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}]; n < 200 {
			t.Errorf("run %s's colour %s covers %d pixels of the screenshot, want at least 200", rep.Runs[i].Label, c, n)
		}
	}
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", x*100) }

// TestReportShowsReroutingAndCheckpoints: the example of examples/reroute
// with re-routing off and on: the page lists each run's settings and moves,
// and the moves by class and route (8 research jobs p5 → p4d, see
// TestRerouteExample); the table ends with the same lines.
func TestReportShowsReroutingAndCheckpoints(t *testing.T) {
	const tr = "../examples/reroute/jobs.csv"
	off := runFile(t, loadFile(t, "../examples/reroute/reroute-off.yaml"), tr, simulate.PolicyPlatform)
	on := runFile(t, loadFile(t, "../examples/reroute/reroute-on.yaml"), tr, simulate.PolicyPlatform)
	off.Label, on.Label = "reroute-off", "reroute-on"
	rep := &simulate.Report{Schema: simulate.Schema, Trace: "jobs.csv", Runs: []*simulate.Result{off, on}}
	page := html(t, rep)
	for _, want := range []string{
		`<table id="settings">`,
		"<tr><td>reroute-off</td><td>0</td><td style=\"text-align:left\">re-routing off; checkpoints off</td></tr>",
		"<tr><td>reroute-on</td><td>8</td><td style=\"text-align:left\">re-routing every 1 min, at most 30 moves a run: research after 900 s over ml.p5.48xlarge, ml.p4d.24xlarge (3 moves a job); checkpoints off</td></tr>",
		"<tr><td>reroute-on</td><td>research</td><td>ml.p5.48xlarge</td><td>ml.p4d.24xlarge</td><td>8</td></tr>",
		"<tr><td>research moves</td><td>0</td><td>8</td></tr>",
		"<tr><td>research wait p95</td><td>3h00m</td><td class=\"better\">−1h45m</td></tr>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	var table bytes.Buffer
	if err := simulate.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	if want := "reroute-on: research moved ml.p5.48xlarge → ml.p4d.24xlarge: 8\n"; !strings.Contains(table.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, table.String())
	}
	// The embedded default platform checkpoints research and sweep.
	d := report(t, "default", platform.Default(), nil)
	if got := d.Runs[0].Settings.Summary(); got != "re-routing off; checkpoints: research 1800 s, sweep 1800 s" {
		t.Errorf("default platform's settings: %q", got)
	}
	if got := d.Runs[1].Settings.Summary(); got != "re-routing off; checkpoints off" {
		t.Errorf("FIFO's settings: %q", got)
	}
}

// TestClassesMatchByNameAcrossPlatforms: two platforms whose classes are
// listed in other orders, on the trace of TestReportFigures (one instance:
// x, production, runs 0–50; p, production, waits 50 s; r, research, waits
// 90 s, in both, as priorities decide, not the list's order). Each class's
// row shows that class's figures in both runs: production p95 50s, research
// 1m30s (see TestReportFigures), in the table and in report.html.
func TestClassesMatchByNameAcrossPlatforms(t *testing.T) {
	team := fmt.Sprintf("  - {name: a, capacity: [{instanceType: %s, instances: 1}], inSharePreemption: false}\n", p5)
	a := quotaPlatform(t, 1, team)
	b := mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 1}]\nclasses:\n"+
		"  - {name: sweep, priority: {min: 100, max: 199}, maxRuntimeSeconds: 86400}\n"+
		"  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 259200}\n"+
		"  - {name: production, priority: {min: 900, max: 999}, maxRuntimeSeconds: 432000}\n"+
		"teams:\n%s", p5, team))
	jobs := []trace.Job{job("x", "a").class("production").runs(50).Job(), job("p", "a").class("production").runs(40).Job(), job("r", "a").Job()}
	rep := &simulate.Report{Schema: simulate.Schema, Trace: "three.csv"}
	for _, r := range []struct {
		label string
		p     *platform.Platform
	}{{"listed", a}, {"reversed", b}} {
		res, err := simulate.Run(r.p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: simulate.PolicyPlatform})
		if err != nil {
			t.Fatal(err)
		}
		res.Label = r.label
		rep.Runs = append(rep.Runs, res)
	}
	var table bytes.Buffer
	if err := simulate.WriteTable(&table, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []*regexp.Regexp{regexp.MustCompile(`(?m)^production wait p95 +50s +50s$`), regexp.MustCompile(`(?m)^research wait p95 +1m30s +1m30s$`)} {
		if !want.MatchString(table.String()) {
			t.Errorf("table lacks a line %s:\n%s", want, table.String())
		}
	}
	page := html(t, rep)
	for _, want := range []string{"<tr><td>production wait p95</td><td>50s</td><td>50s</td></tr>", "<tr><td>research wait p95</td><td>1m30s</td><td>1m30s</td></tr>",
		"<tr><td>production wait p95</td><td>50s</td><td>0s</td></tr>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
