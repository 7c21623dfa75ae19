package simulate_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// noise runs jobs on p with an AlarmRecorder and evaluates p's alarms.
func noise(t *testing.T, p *platform.Platform, jobs []trace.Job) map[string]int {
	t.Helper()
	rec := simulate.NewAlarmRecorder(p)
	if _, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Observer: rec}); err != nil {
		t.Fatal(err)
	}
	n := simulate.EvaluateAlarms("test", simulate.PlatformRules(p), rec.Series())
	fired := map[string]int{}
	for _, a := range n.Alarms {
		if a.Firings > 0 {
			fired[a.Name] = a.Firings
		}
	}
	return fired
}

func TestAlarmNoiseOfSmallRuns(t *testing.T) {
	// Two teams of 2 p5 each, which they keep to themselves (reserve): a
	// team whose quota is full waits on its own jobs.
	p := quotaPlatform(t, 4, `
  - {name: a, capacity: [{instanceType: ml.p5.48xlarge, instances: 2}], sharing: reserve}
  - {name: b, capacity: [{instanceType: ml.p5.48xlarge, instances: 2}], sharing: reserve}`)
	cases := []struct {
		name string
		jobs []trace.Job
		want map[string]int
	}{
		{
			// Both start at once and end in an hour: nothing waits, nothing fails.
			"a healthy run fires nothing", []trace.Job{j("a1", 0, 3600, 2, "production", "a"), j("b1", 0, 3600, 2, "production", "b")},
			map[string]int{},
		},
		{
			// a2 waits from 0 to 7200 s behind a's own a1 (2 + 1 > 2: full). Past
			// 4 × 900 = 3600 s in 3 of 5 minutes (the minutes at 3660, 3720, 3780 s)
			// the ticket fires, once; no production job waits with room, so nothing
			// pages. Meanwhile b's reserved 2 p5 idle (2 of 4 in use, 50% < 80%)
			// while a2 waits for p5: idle-capacity, a ticket, fires at its 25th
			// idle minute, once.
			"a production job behind its team's own full quota is a ticket, not a page",
			[]trace.Job{j("a1", 0, 7200, 2, "production", "a"), j("a2", 0, 600, 1, "production", "a")},
			map[string]int{"quota-full-wait-production": 1, "idle-capacity": 1},
		},
		{
			// A 3-hour production job whose class allows 2 hours (7200 s) times
			// out; with retries 0 it fails: the platform's failure (a time
			// limit), which pages.
			"a production job that runs out of time pages",
			[]trace.Job{j("a1", 0, 3*3600, 2, "production", "a")},
			map[string]int{"job-failed-production": 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pp := p
			if tc.name == "a production job that runs out of time pages" {
				pp = mustParse(t, `
pools: [{instanceType: ml.p5.48xlarge, instances: 4}]
classes:
  - {name: production, priority: {min: 900, max: 999}, maxRuntimeSeconds: 7200, retries: 0}
teams:
  - {name: a, capacity: [{instanceType: ml.p5.48xlarge, instances: 2}], sharing: reserve}
  - {name: b, capacity: [{instanceType: ml.p5.48xlarge, instances: 2}], sharing: reserve}`)
			}
			if diff := cmp.Diff(tc.want, noise(t, pp, tc.jobs)); diff != "" {
				t.Errorf("alarms fired (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTheExampleTracePagesAtMostOnceAWeek: on the embedded default platform
// and examples/jobs.csv, the default thresholds page at most once a
// simulated week (docs/monitoring.md's pages-per-week table).
func TestTheExampleTracePagesAtMostOnceAWeek(t *testing.T) {
	f, err := os.Open("../examples/jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	p := platform.Default()
	rec := simulate.NewAlarmRecorder(p)
	if _, err := simulate.Run(p, tr, simulate.Options{Observer: rec}); err != nil {
		t.Fatal(err)
	}
	n := simulate.EvaluateAlarms("default", simulate.PlatformRules(p), rec.Series())
	if n.PagesPerWeek > 1 {
		t.Errorf("%.2f pages a simulated week (%d in %d s), want at most 1", n.PagesPerWeek, n.Pages, n.Seconds)
	}
	if n.Seconds < 86400 {
		t.Errorf("the series cover %d s; the example trace spans days", n.Seconds)
	}
}
