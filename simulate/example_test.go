package simulate_test

import (
	"bufio"
	"os"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// runFile simulates the trace file path on p under pol.
func runFile(t *testing.T, p *platform.Platform, path string, pol simulate.Policy) *simulate.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	res, err := simulate.Run(p, r, simulate.Options{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func loadFile(t *testing.T, path string) *platform.Platform {
	t.Helper()
	p, err := platformfile.LoadFileOrDefault(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRerouteExample runs examples/reroute (README.md there has the
// scenario). 16 one-hour research jobs of one team arrive at 0 on the 4 ×
// ml.p5.48xlarge pool; the 4 × ml.p4d.24xlarge pool gets nothing.
//
// Without re-routing p5 runs them four at a time from 0, 3,600, 7,200 and
// 10,800 s: waits 4 × 0, 4 × 3,600, 4 × 7,200, 4 × 10,800; p95 is the
// ⌈0.95 × 16⌉ = 16th wait, 10,800 s.
//
// With research re-routed after 900 s (runs every 60 s, 900 is one): at 900
// the team has no room on p5 and room for 4 on p4d, so r05–r08 move and run
// 900–4,500 on p4d (the run counts them against p4d's room: no fifth
// moves). At 3,600 r01–r04 end; Batch's pass starts r09–r12 on p5 before the
// run of 3,600, which then finds r13–r16 saturated on p5 and p4d full. At
// 4,500 r05–r08 end and the run moves r13–r16 to p4d, where they start.
// Waits 4 × 0, 4 × 900, 4 × 3,600, 4 × 4,500: p95 4,500 s, 58% below
// 10,800 — the "≥ 50%" follows from the arithmetic, not from a
// measurement.
func TestRerouteExample(t *testing.T) {
	const tr = "../examples/reroute/jobs.csv"
	off := runFile(t, loadFile(t, "../examples/reroute/reroute-off.yaml"), tr, simulate.PolicyPlatform)
	on := runFile(t, loadFile(t, "../examples/reroute/reroute-on.yaml"), tr, simulate.PolicyPlatform)
	research := func(r *simulate.Result) simulate.GroupStats { return r.Classes[1] }
	if g := research(off); g.Name != "research" || g.Completed != 16 || g.Wait.P95 != 10800 || g.Wait.P50 != 3600 || off.Moves != 0 {
		t.Errorf("off: %s %d completed, p50 %d, p95 %d, %d moves; want research 16, 3600, 10800, 0", g.Name, g.Completed, g.Wait.P50, g.Wait.P95, off.Moves)
	}
	if g := research(on); g.Completed != 16 || g.Wait.P95 != 4500 || g.Wait.P50 != 900 || on.Moves != 8 || g.Moves != 8 {
		t.Errorf("on: %d completed, p50 %d, p95 %d, %d moves (research %d); want 16, 900, 4500, 8, 8", g.Completed, g.Wait.P50, g.Wait.P95, on.Moves, g.Moves)
	}
	if len(on.Routes) != 1 || on.Routes[0] != (simulate.Route{Class: "research", From: "ml.p5.48xlarge", To: "ml.p4d.24xlarge", Moves: 8}) {
		t.Errorf("routes %+v, want research p5 → p4d 8", on.Routes)
	}
	if off.MakespanSeconds != 14400 || on.MakespanSeconds != 8100 {
		t.Errorf("makespans off %d, on %d; want 14400 and 8100", off.MakespanSeconds, on.MakespanSeconds)
	}
	cut := 1 - float64(research(on).Wait.P95)/float64(research(off).Wait.P95)
	if cut < 0.5 {
		t.Errorf("re-routing cuts research's p95 wait by %.0f%%, want at least 50%%", cut*100)
	}
	// FIFO ignores the reroute block: the on platform's FIFO run is the
	// off platform's.
	if a, b := runFile(t, loadFile(t, "../examples/reroute/reroute-on.yaml"), tr, simulate.PolicyFIFO),
		runFile(t, loadFile(t, "../examples/reroute/reroute-off.yaml"), tr, simulate.PolicyFIFO); a.Moves != 0 || a.Classes[1].Wait != b.Classes[1].Wait {
		t.Errorf("FIFO: %d moves, waits %+v vs %+v; want none and the same waits", a.Moves, a.Classes[1].Wait, b.Classes[1].Wait)
	}
}

// withoutCheckpoints is p with every class's checkpoints off.
func withoutCheckpoints(p *platform.Platform) *platform.Platform {
	q := *p
	q.Classes = nil
	for _, c := range p.Classes {
		c.Checkpoints = nil
		q.Classes = append(q.Classes, c)
	}
	return &q
}

// TestCheckpointsOnExampleTrace replays examples/jobs.csv (what `trainq
// simulate --trace examples/jobs.csv` replays) on the embedded default
// platform, whose research and sweep classes checkpoint every 1,800 s, and
// on the same platform with checkpoints off, and measures the lost
// instance-hours (preempted and timed-out work that no checkpoint kept).
//
// Issue 14 asked for a cut of at least 80%. Under R22 this trace gives
// about 51% (docs/simulate.md, "What checkpoints save"), and the arithmetic
// says why: the default victim rule (R9) preempts the most recently started
// job, so a victim has usually run less than one interval and keeps
// nothing; sweeps run about 40 minutes, barely more than one interval; and
// production, which loses work when it borrows and is reclaimed (R7), has no
// checkpoints. The test holds what the model gives — checkpoints keep at
// least 45% of the lost work and every class with checkpoints loses less —
// rather than a target it does not reach.
func TestCheckpointsOnExampleTrace(t *testing.T) {
	const tr = "../examples/jobs.csv"
	on := runFile(t, platform.Default(), tr, simulate.PolicyPlatform)
	off := runFile(t, withoutCheckpoints(platform.Default()), tr, simulate.PolicyPlatform)
	cut := 1 - float64(on.InstanceSeconds.Lost())/float64(off.InstanceSeconds.Lost())
	t.Logf("lost instance-hours: checkpoints off %.1f, on %.1f: %.1f%% less", off.LostInstanceHours, on.LostInstanceHours, cut*100)
	if off.InstanceSeconds.Lost() == 0 || cut < 0.45 {
		t.Errorf("checkpoints cut lost instance-hours by %.1f%% (off %.1f, on %.1f), want at least 45%%", cut*100, off.LostInstanceHours, on.LostInstanceHours)
	}
	for i, c := range on.Classes {
		o := off.Classes[i]
		if _, ckpt := platform.Default().Classes[i].CheckpointInterval(); ckpt && c.InstanceSeconds.Lost() >= o.InstanceSeconds.Lost() {
			t.Errorf("%s (checkpoints every 1800 s) lost %.1f instance-hours, %.1f without", c.Name, c.LostInstanceHours, o.LostInstanceHours)
		}
	}
	if on.InstanceSeconds.Checkpointed == 0 || on.InstanceSeconds.Busy != on.InstanceSeconds.Goodput+on.InstanceSeconds.Lost() {
		t.Errorf("work %+v: want checkpointed work and busy = goodput + lost", on.InstanceSeconds)
	}
	// The same jobs complete either way, so goodput (the work that went
	// into completed jobs) is the same when no job fails.
	if on.Failed == 0 && off.Failed == 0 && on.InstanceSeconds.Goodput != off.InstanceSeconds.Goodput {
		t.Errorf("goodput %d with checkpoints, %d without: want the same", on.InstanceSeconds.Goodput, off.InstanceSeconds.Goodput)
	}
}

// TestCheckpointsOnStopOnExampleTrace: the same trace and platform, with
// research's and sweep's training code also saving a checkpoint when
// SageMaker stops the job (checkpoints.onStop: SIGTERM and 120 s before the
// end, R22). Every preemption and timeout of those classes then keeps all
// it ran, so they lose nothing by the rule; what is lost is production's,
// which has no checkpoints and loses about 38 of the 390 instance-hours
// lost without checkpoints (TestCheckpointsOnExampleTrace): a cut of about
// 90%, above the 80% issue 14 asked of checkpoints.
func TestCheckpointsOnStopOnExampleTrace(t *testing.T) {
	const tr = "../examples/jobs.csv"
	p := platform.Default()
	q := *p
	q.Classes = nil
	on := true
	for _, c := range p.Classes {
		if c.Checkpoints != nil {
			k := *c.Checkpoints
			k.OnStop = &on
			c.Checkpoints = &k
		}
		q.Classes = append(q.Classes, c)
	}
	stop := runFile(t, &q, tr, simulate.PolicyPlatform)
	off := runFile(t, withoutCheckpoints(p), tr, simulate.PolicyPlatform)
	for i, c := range stop.Classes {
		if q.Classes[i].CheckpointsOnStop() && c.InstanceSeconds.Lost() != 0 {
			t.Errorf("%s checkpoints on stop but lost %d instance-seconds, want 0", c.Name, c.InstanceSeconds.Lost())
		}
	}
	cut := 1 - float64(stop.InstanceSeconds.Lost())/float64(off.InstanceSeconds.Lost())
	t.Logf("lost instance-hours: checkpoints off %.1f, every 30 min and on stop %.1f: %.1f%% less", off.LostInstanceHours, stop.LostInstanceHours, cut*100)
	if cut < 0.80 {
		t.Errorf("checkpoints every 30 min and on stop cut lost instance-hours by %.1f%%, want at least 80%%", cut*100)
	}
}
