package simulate

import (
	"math"
	"strings"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

// runCSV runs the trace rows (after the header) on the default platform.
func runCSV(t *testing.T, rows string) *Result {
	t.Helper()
	tr, err := trace.NewReader(strings.NewReader("submit_s,duration_s,instances,instance_type,class,team\n" + rows))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(platform.Default(), tr, Options{Policy: PolicyPlatform})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGoodputSeriesMatchesTheTotals: the goodput and lost lines of the
// report add up, over the run, to the totals' goodput and lost work —
// also when checkpoints kept work of a job that then failed. On the default
// platform sweep allows 86,400 s an attempt and no retry and checkpoints
// every 1,800 s: a sweep job of 100,000 s times out at 86,400 s with 86,400
// s kept (48 checkpoints) and fails, so its 2 × 86,400 instance-seconds are
// all lost; a research job of 3,600 s completes: 2 × 3,600 of goodput.
func TestGoodputSeriesMatchesTheTotals(t *testing.T) {
	res := runCSV(t, "0,100000,2,ml.p5.48xlarge,sweep,search-ranking\n0,3600,2,ml.p5.48xlarge,research,search-research\n")
	sum := func(row []float64) float64 {
		s := 0.0
		for _, v := range row {
			s += v
		}
		return s
	}
	w := res.InstanceSeconds
	if w.Goodput != 2*3600 || w.Lost() != 2*86400 {
		t.Errorf("totals: goodput %d, lost %d; want 7200 and 172800", w.Goodput, w.Lost())
	}
	if g, l := sum(res.series.Goodput), sum(res.series.Lost); math.Abs(g-float64(w.Goodput)) > 1e-6 || math.Abs(l-float64(w.Lost())) > 1e-6 {
		t.Errorf("series: goodput %.0f, lost %.0f; want the totals' %d and %d", g, l, w.Goodput, w.Lost())
	}
}

// TestAClassWithoutJobsDrawsNoBacklogLine: the trace above has sweep and
// research jobs and no production job: the backlog has a panel for sweep
// and one for research, none for production.
func TestAClassWithoutJobsDrawsNoBacklogLine(t *testing.T) {
	res := runCSV(t, "0,3600,2,ml.p5.48xlarge,sweep,search-ranking\n0,3600,2,ml.p5.48xlarge,research,search-research\n")
	res.Label = "default"
	svg := (&page{r: &Report{Runs: []*Result{res}}}).backlog()
	if strings.Contains(svg, ">production<") || !strings.Contains(svg, ">sweep<") || !strings.Contains(svg, ">research<") {
		t.Errorf("backlog panels: want sweep and research, not production:\n%s", svg)
	}
}

// TestTheGoodputLineIsTheTablesGoodput: the report's goodput line, averaged
// over the run, is the table's goodput. On the trace of
// TestGoodputSeriesMatchesTheTotals the sweep job fails after 86,400 s with
// 86,400 s kept by checkpoints, which is lost, not goodput; the research
// job's 2 × 3,600 instance-seconds are the only goodput. The run lasts
// 86,400 s on 100 instances (40 p5 + 60 p4d): goodput 7,200 ÷ 8,640,000 =
// 1/1200, while the busy line averages (172,800 + 7,200) ÷ 8,640,000 =
// 1/48.
func TestTheGoodputLineIsTheTablesGoodput(t *testing.T) {
	res := runCSV(t, "0,100000,2,ml.p5.48xlarge,sweep,search-ranking\n0,3600,2,ml.p5.48xlarge,research,search-research\n")
	p := &page{r: &Report{Runs: []*Result{res}}}
	ax, xMax := p.axis()
	xs, ys := p.goodputLine(res, ax)
	area := 0.0
	for i := 0; i+1 < len(xs); i++ {
		area += (xs[i+1] - xs[i]) * (ys[i] + ys[i+1]) / 2
	}
	if got := area / xMax; math.Abs(got-1.0/1200) > 1e-9 {
		t.Errorf("the goodput line averages %.6f of all pools, want 1/1200 = %.6f", got, 1.0/1200)
	}
}
