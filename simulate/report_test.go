package simulate_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
		for _, id := range []string{"utilization-split", "utilization-time", "teams-0", "teams-1", "p95", "waits-cdf", "backlog", "totals"} {
			figure(t, page, id)
		}
		for _, bad := range []string{"<script", "<link", "src=", "url(", "@import", "https://"} {
			if strings.Contains(page, bad) {
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

// TestPaletteColoursAreDistinct: every pair of the 20 team colours differs
// by a CIE76 ΔE (CIELAB, D65) of at least 25, and each by at least 40 from
// the white background. (A ΔE of about 2.3 is the smallest difference people
// notice.)
func TestPaletteColoursAreDistinct(t *testing.T) {
	if len(simulate.Palette) != 20 {
		t.Fatalf("%d colours, want 20", len(simulate.Palette))
	}
	white := lab("#ffffff")
	for i, a := range simulate.Palette {
		if d := deltaE(lab(a), white); d < 40 {
			t.Errorf("%s is only ΔE %.1f from white", a, d)
		}
		for _, b := range simulate.Palette[i+1:] {
			if d := deltaE(lab(a), lab(b)); d < 25 {
				t.Errorf("%s and %s differ by ΔE %.1f", a, b, d)
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

// chromium returns Debian's chromium, or skips (fails in CI, where .ci/run
// installs it).
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is not on PATH (.ci/run installs Debian's chromium): %v", err)
		}
		t.Skip("chromium is not installed (apt-get install chromium); CI requires it")
	}
	return path
}

// artifacts is where the report test keeps report.html and its screenshot:
// $TRAINQ_TEST_ARTIFACTS, else trainq-test-artifacts/simulate in the
// system's temp dir. Never in the repository.
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
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(), "--force-color-profile=srgb", "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errOut.String())
	}
	return out.Bytes()
}

// TestReportInChromium renders the report of a 20-team platform in headless
// Chromium: the rendered DOM must show each run's utilization, goodput and
// production p95 and every team, and the screenshot must show all 20 team
// colours exactly (the legend swatches are solid, crisp-edged squares). The
// page and the screenshot stay in the artifacts directory.
func TestReportInChromium(t *testing.T) {
	bin := chromium(t)
	var teams []string
	for i := 1; i <= 20; i++ {
		teams = append(teams, fmt.Sprintf("{name: team_%02d}", i))
	}
	p := mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: 60}]\nscheduling: {mode: fairshare, shareDecaySeconds: 3600}\nteams: [%s]\n",
		p5, strings.Join(teams, ", ")))
	var jobs []trace.Job
	if err := trace.Generate(p, trace.GenerateOptions{Seed: 11, Jobs: 3000, Load: 0.8}, func(j trace.Job) error {
		jobs = append(jobs, j)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rep := report(t, "twenty-teams", p, jobs)
	dir := artifacts(t)
	if _, err := simulate.WriteReport(dir, rep); err != nil {
		t.Fatal(err)
	}
	page := "file://" + filepath.Join(dir, "report.html")

	dom := string(runChromium(t, bin, "--dump-dom", page))
	for _, res := range rep.Runs {
		for _, want := range []string{pct(res.Utilization), pct(res.Goodput), simulate.Duration(res.Classes[0].Wait.P95)} {
			if !strings.Contains(dom, ">"+want+"<") {
				t.Errorf("rendered page lacks %s's figure %q", res.Label, want)
			}
		}
	}
	for i := 1; i <= 20; i++ {
		if name := fmt.Sprintf("team_%02d", i); !strings.Contains(dom, ">"+name+"<") {
			t.Errorf("rendered page lacks team %s", name)
		}
	}
	if n := strings.Count(dom, "<svg"); n != 10 {
		t.Errorf("rendered page has %d charts, want 10: utilization split and over time, one per run for teams (2), p95, wait CDF, backlog, and makespan, preemptions and failed jobs each on its own axis", n)
	}

	shot := filepath.Join(dir, "report.png")
	runChromium(t, bin, "--window-size=1400,7000", "--screenshot="+shot, page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1400 || b.Dy() != 7000 {
		t.Errorf("screenshot is %v, want 1400×7000", b)
	}
	want := map[color.RGBA]int{}
	for _, c := range simulate.Palette {
		v, _ := strconv.ParseUint(c[1:], 16, 32)
		want[color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}] = 0
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	for i := 0; i+3 < len(rgba.Pix); i += 4 {
		c := color.RGBA{rgba.Pix[i], rgba.Pix[i+1], rgba.Pix[i+2], 255}
		if n, ok := want[c]; ok {
			want[c] = n + 1
		}
	}
	for _, c := range simulate.Palette {
		v, _ := strconv.ParseUint(c[1:], 16, 32)
		// Each team's legend swatch alone is 12 × 12 = 144 pixels.
		if n := want[color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}]; n < 144 {
			t.Errorf("team colour %s covers %d pixels of the screenshot, want at least one 12×12 swatch", c, n)
		}
	}
	t.Logf("report and screenshot kept in %s", dir)
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
