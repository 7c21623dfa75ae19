package simulate_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// ckptPlatform has one ml.p5.48xlarge instance, team a holding it, and
// production (no checkpoints) over research with research's extra YAML
// (e.g. checkpoints).
func ckptPlatform(t *testing.T, research string) *platform.Platform {
	return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}]\nclasses:\n"+
		"  - {name: production, priority: {min: 900, max: 999}}\n"+
		"  - {name: research, priority: {min: 500, max: 599}%[2]s}\n"+
		"teams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}]\n", p5, research))
}

// TestCheckpoints checks R22 by hand.
func TestCheckpoints(t *testing.T) {
	t.Run("a preempted job resumes from its last checkpoint", func(t *testing.T) {
		// r (research, 10,000 s, checkpoints every 1,800 s) runs from 0; p
		// (production, 100 s) preempts it at 4,000 (R8). r's attempt ran
		// e = 4,000 s: ⌊4000/1800⌋ = 2 checkpoints keep 3,600 s, 400 s are
		// lost. r resumes when p ends at 4,100 with 10,000 − 3,600 = 6,400 s
		// left and completes at 10,500: it ran 4,000 + 6,400 = 10,400 s and
		// waited 10,500 − 0 − 10,400 = 100 s. Work: busy 4,000 + 100 +
		// 6,400 = 10,500; lost 400; goodput 100 (p) + 3,600 + 6,400 =
		// 10,100, of which 3,600 checkpointed.
		p := ckptPlatform(t, ", checkpoints: {intervalSeconds: 1800}")
		jobs := []trace.Job{job("r", "a").runs(10000).Job(), job("p", "a").at(4000).class("production").runs(100).Job()}
		res, recs := records(t, p, "", jobs...)
		want := simulate.JobRecord{ID: "r", Team: "a", Class: "research", InstanceType: p5, Instances: 1, Submit: 0, Start: 4100,
			End: 10500, Wait: 100, Attempts: 2, Preemptions: 1, LostSeconds: 400, SavedSeconds: 3600,
			Outcome: simulate.OutcomeCompleted, RanOn: p5}
		if diff := cmp.Diff(want, recs[1]); diff != "" {
			t.Errorf("record of r (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(simulate.Work{Busy: 10500, Goodput: 10100, LostPreempted: 400, Checkpointed: 3600}, res.InstanceSeconds); diff != "" {
			t.Errorf("work (-want +got):\n%s", diff)
		}
		// lostInstanceHours: 400 / 3600 = 0.1111.
		if res.LostInstanceHours != 0.1111 || res.Classes[1].LostInstanceHours != 0.1111 {
			t.Errorf("lost instance-hours %v, research %v; want 0.1111", res.LostInstanceHours, res.Classes[1].LostInstanceHours)
		}
		// Without checkpoints r restarts from scratch at 4,100 and completes
		// at 14,100, all 4,000 s of its first attempt lost.
		_, recs = records(t, ckptPlatform(t, ""), "", jobs...)
		if r := recs[1]; r.End != 14100 || r.LostSeconds != 4000 || r.SavedSeconds != 0 {
			t.Errorf("without checkpoints: end %d, lost %d, saved %d; want 14100, 4000, 0", r.End, r.LostSeconds, r.SavedSeconds)
		}
	})
	t.Run("a job whose code checkpoints when stopped keeps all it ran", func(t *testing.T) {
		// As above, with onStop: the preemption at 4,000 stops r's training
		// job, and its code saves on SIGTERM: it keeps all 4,000 s, loses
		// nothing, and resumes at 4,100 with 10,000 − 4,000 = 6,000 s left:
		// it completes at 10,100, ran 4,000 + 6,000 = 10,000 s and waited
		// 10,100 − 10,000 = 100 s.
		p := ckptPlatform(t, ", checkpoints: {intervalSeconds: 1800, onStop: true}")
		res, recs := records(t, p, "", job("r", "a").runs(10000).Job(), job("p", "a").at(4000).class("production").runs(100).Job())
		if r := recs[1]; r.ID != "r" || r.End != 10100 || r.Wait != 100 || r.LostSeconds != 0 || r.SavedSeconds != 4000 {
			t.Errorf("record %+v: want r to end at 10100 after waiting 100 s, 0 s lost, 4000 s saved", r)
		}
		if res.LostInstanceHours != 0 {
			t.Errorf("lost instance-hours %v, want 0", res.LostInstanceHours)
		}
	})
	t.Run("a failed job's checkpoints count as lost", func(t *testing.T) {
		// preemptionRetries 0: r fails at its first preemption, at 4,000
		// (R10). Its checkpoints kept 3,600 s, but for nothing: all 4,000
		// s are lost, and checkpointed says what they had kept.
		p := ckptPlatform(t, ", preemptionRetries: 0, checkpoints: {intervalSeconds: 1800}")
		res, recs := records(t, p, "", job("r", "a").runs(10000).Job(), job("p", "a").at(4000).class("production").runs(100).Job())
		if r := recs[0]; r.ID != "r" || r.Outcome != simulate.OutcomeFailed || r.LostSeconds != 4000 || r.SavedSeconds != 3600 {
			t.Errorf("record %+v: want r failed, 4000 s lost, 3600 s saved", r)
		}
		if diff := cmp.Diff(simulate.Work{Busy: 4100, Goodput: 100, LostPreempted: 4000, Checkpointed: 3600}, res.InstanceSeconds); diff != "" {
			t.Errorf("work (-want +got):\n%s", diff)
		}
	})
	t.Run("a timed-out attempt's retry resumes from its last checkpoint", func(t *testing.T) {
		// research: 3,000 s per attempt, 2 attempts, checkpoints every
		// 1,000 s. r needs 5,000 s: its first attempt times out at 3,000
		// keeping ⌊3000/1000⌋·1000 = 3,000 s (R12, R13, R22); the retry
		// runs the 2,000 s left and completes at 5,000. Without checkpoints
		// both attempts run 3,000 s and time out: r fails at 6,000.
		research := ", maxRuntimeSeconds: 3000, retries: 1"
		jobs := []trace.Job{job("r", "a").runs(5000).Job()}
		_, rec := run(t, ckptPlatform(t, research+", checkpoints: {intervalSeconds: 1000}"), "", jobs...)
		if diff := cmp.Diff([]string{"start r@0", "timeout r@3000", "start r@3000", "done r@5000"}, rec.lines); diff != "" {
			t.Errorf("with checkpoints (-want +got):\n%s", diff)
		}
		_, rec = run(t, ckptPlatform(t, research), "", jobs...)
		if diff := cmp.Diff([]string{"start r@0", "timeout r@3000", "start r@3000", "timeout r@6000", "fail r@6000"}, rec.lines); diff != "" {
			t.Errorf("without checkpoints (-want +got):\n%s", diff)
		}
		// FIFO keeps no checkpoints: the same as without.
		_, rec = run(t, ckptPlatform(t, research+", checkpoints: {intervalSeconds: 1000}"), simulate.PolicyFIFO, jobs...)
		if diff := cmp.Diff([]string{"start r@0", "timeout r@3000", "start r@3000", "timeout r@6000", "fail r@6000"}, rec.lines); diff != "" {
			t.Errorf("FIFO (-want +got):\n%s", diff)
		}
	})
}

// reroutePlatform has p5Pool × ml.p5.48xlarge and p4dPool ×
// ml.p4d.24xlarge, team a holding all of both, production without reroute
// and research re-routed between p5 and p4d after 600 s with reroute's
// extra YAML; rerouting is the platform's rerouting block.
func reroutePlatform(t *testing.T, p5Pool, p4dPool int, reroute, rerouting string) *platform.Platform {
	return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: %[3]d}, {instanceType: %[2]s, instances: %[4]d}]\n"+
		"classes:\n  - {name: production, priority: {min: 900, max: 999}}\n"+
		"  - {name: research, priority: {min: 500, max: 599}, reroute: {afterSeconds: 600, instanceTypes: [%[1]s, %[2]s]%[5]s}}\n"+
		"teams: [{name: a, capacity: [{instanceType: %[1]s, instances: %[3]d}, {instanceType: %[2]s, instances: %[4]d}]}]\n"+
		"rerouting: {%[6]s}\n", p5, p4d, p5Pool, p4dPool, reroute, rerouting))
}

// TestReroute checks R23 and R24 by hand. The re-router runs at whole
// multiples of everyMinutes (default 1: every 60 s), after Batch's pass of
// that second.
func TestReroute(t *testing.T) {
	tests := []struct {
		name  string
		p     func(t *testing.T) *platform.Platform
		jobs  []trace.Job
		kinds []string
		want  []string
	}{
		{
			// a0 holds the one p5 until 5,000; r waits on p5 from 30, its
			// team has no room there and the p4d idles. r is due at 30 + 600
			// = 630; the re-router's next run is at 660, where it moves r to
			// the p4d, which starts it at once: wait 660 − 30 = 630 s.
			name:  "R23 a job waiting past afterSeconds on a saturated type moves at the next run to a type with room",
			p:     func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, "", "") },
			jobs:  []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("r", "a").at(30).runs(100).Job()},
			kinds: []string{"start", "move"},
			want:  []string{"start a0@0", "move r@660 ml.p5.48xlarge→ml.p4d.24xlarge", "start r@660"},
		},
		{
			// The same with a production job on p4d until 1,000: the p4d
			// has no room at 660, nor at any run before 1,000; at 1,000 p
			// ends, and the run at 1,020 (the first multiple of 60 after)
			// moves r.
			name: "R23 a job moves only to a type where its team has room",
			p:    func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, "", "") },
			jobs: []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("q", "a").on(p4d).class("production").runs(1000).Job(),
				job("r", "a").at(30).runs(100).Job()},
			kinds: []string{"move"},
			want:  []string{"move r@1020 ml.p5.48xlarge→ml.p4d.24xlarge"},
		},
		{
			// Production is not re-routed: pp waits on p5 for a0 (until
			// 5,000) although the p4d idles.
			name:  "R23 only classes with reroute move",
			p:     func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, "", "") },
			jobs:  []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("pp", "a").at(30).class("production").runs(100).Job()},
			kinds: []string{"start", "move"},
			want:  []string{"start a0@0", "start pp@5000"},
		},
		{
			// r1 and r2 wait on p5 from 0; the p4d has room for one. The run
			// at 600 moves r1 (the older: same time, earlier in the trace)
			// and counts its instance on the p4d, so r2 stays: it starts on
			// p5 when a0 ends at 5,000.
			name:  "R23 a run counts its own moves: two jobs never move into room for one",
			p:     func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, "", "") },
			jobs:  []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("r1", "a").runs(9000).Job(), job("r2", "a").runs(100).Job()},
			kinds: []string{"start", "move"},
			want:  []string{"start a0@0", "move r1@600 ml.p5.48xlarge→ml.p4d.24xlarge", "start r1@600", "start r2@5000"},
		},
		{
			// lo (request priority 10: 510) and hi (90: 590) both wait on p5
			// from 0 and are due at 600; the p4d has room for one. The
			// re-router walks jobs as Batch would start them, higher priority
			// first: hi moves although lo comes first in the trace. hi runs
			// 600–1,600 on the p4d; lo moves at the next run, 1,620.
			name: "R23 a higher scheduling priority moves first",
			p:    func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, "", "") },
			jobs: []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("lo", "a").prio(10).Job(),
				job("hi", "a").prio(90).Job()},
			kinds: []string{"move"},
			want:  []string{"move hi@600 ml.p5.48xlarge→ml.p4d.24xlarge", "move lo@1620 ml.p5.48xlarge→ml.p4d.24xlarge"},
		},
		{
			// Team a has a quota of p5 only; b holds the p4d's quota and
			// lends it. a's r waits on p5 behind a0 while the p4d idles: Batch
			// would let a borrow it, but platform.Headroom (the submitter's
			// and the re-router's rule) gives a team no room on a type it has
			// no quota of, so r never moves and starts when a0 ends.
			name: "R23 a team gets no room on a type it has no quota of",
			p: func(t *testing.T) *platform.Platform {
				return mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 1}, {instanceType: %[2]s, instances: 1}]\n"+
					"classes:\n  - {name: production, priority: {min: 900, max: 999}}\n"+
					"  - {name: research, priority: {min: 500, max: 599}, reroute: {afterSeconds: 600, instanceTypes: [%[1]s, %[2]s]}}\n"+
					"teams: [{name: a, capacity: [{instanceType: %[1]s, instances: 1}]}, {name: b, capacity: [{instanceType: %[2]s, instances: 1}]}]\n", p5, p4d))
			},
			jobs:  []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("r", "a").at(30).runs(100).Job()},
			kinds: []string{"start", "move"},
			want:  []string{"start a0@0", "start r@5000"},
		},
		{
			// Five research jobs wait on p5 from 0, the p4d has room for all
			// five, but maxMovesPerMinute 2: the runs at 600 and 660 move two
			// each, the run at 720 the fifth.
			name: "R24 a run moves at most maxMovesPerMinute jobs",
			p:    func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 5, "", "maxMovesPerMinute: 2") },
			jobs: []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("r1", "a").Job(), job("r2", "a").Job(),
				job("r3", "a").Job(), job("r4", "a").Job(), job("r5", "a").Job()},
			kinds: []string{"move"},
			want: []string{"move r1@600 ml.p5.48xlarge→ml.p4d.24xlarge", "move r2@600 ml.p5.48xlarge→ml.p4d.24xlarge",
				"move r3@660 ml.p5.48xlarge→ml.p4d.24xlarge", "move r4@660 ml.p5.48xlarge→ml.p4d.24xlarge",
				"move r5@720 ml.p5.48xlarge→ml.p4d.24xlarge"},
		},
		{
			// everyMinutes 5: the re-router runs at multiples of 300; r is due
			// at 630 and moves at 900.
			name:  "R24 the re-router runs every everyMinutes",
			p:     func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, "", "everyMinutes: 5") },
			jobs:  []trace.Job{job("a0", "a").class("production").runs(5000).Job(), job("r", "a").at(30).runs(100).Job()},
			kinds: []string{"move"},
			want:  []string{"move r@900 ml.p5.48xlarge→ml.p4d.24xlarge"},
		},
		{
			// maxMoves 2. a0 holds p5 until 2,000. r moves to the p4d at 600
			// and starts; p1 (production) preempts it there at 1,000 (R8) and
			// holds the p4d until 4,000. r waits again from 1,000 (due at
			// 1,600, but p5 is busy until 2,000); the first run after a0
			// ends, at 2,040, moves r back to p5: it runs 2,040–7,040.
			name: "R24 a job moves again while it has moves left",
			p:    func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, ", maxMoves: 2", "") },
			jobs: []trace.Job{job("a0", "a").class("production").runs(2000).Job(), job("r", "a").runs(5000).Job(),
				job("p1", "a").at(1000).on(p4d).class("production").runs(3000).Job()},
			kinds: []string{"move", "start", "done"},
			want: []string{"start a0@0", "move r@600 ml.p5.48xlarge→ml.p4d.24xlarge", "start r@600", "start p1@1000", "done a0@2000",
				"move r@2040 ml.p4d.24xlarge→ml.p5.48xlarge", "start r@2040", "done p1@4000", "done r@7040"},
		},
		{
			// The same with maxMoves 1: r has used its move, so it waits on
			// the p4d for p1 and runs 4,000–9,000 while p5 idles.
			name: "R24 a job moves at most maxMoves times",
			p:    func(t *testing.T) *platform.Platform { return reroutePlatform(t, 1, 1, ", maxMoves: 1", "") },
			jobs: []trace.Job{job("a0", "a").class("production").runs(2000).Job(), job("r", "a").runs(5000).Job(),
				job("p1", "a").at(1000).on(p4d).class("production").runs(3000).Job()},
			kinds: []string{"move", "start", "done"},
			want: []string{"start a0@0", "move r@600 ml.p5.48xlarge→ml.p4d.24xlarge", "start r@600", "start p1@1000", "done a0@2000",
				"done p1@4000", "start r@4000", "done r@9000"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rec := run(t, tc.p(t), "", tc.jobs...)
			if diff := cmp.Diff(tc.want, rec.only(tc.kinds...)); diff != "" {
				t.Errorf("events (-want +got):\n%s\nall: %v", diff, rec.lines)
			}
		})
	}
}

// TestRerouteRecords: a moved job keeps its class, team, priority and its
// trace submission for its wait, and the result counts the move by class
// and route. The first case of TestReroute: r (submitted at 30, 100 s)
// moves at 660 and runs 660–760: wait 760 − 30 − 100 = 630.
func TestRerouteRecords(t *testing.T) {
	p := reroutePlatform(t, 1, 1, "", "")
	res, recs := records(t, p, "", job("a0", "a").class("production").runs(5000).Job(), job("r", "a").at(30).runs(100).Job())
	want := simulate.JobRecord{ID: "r", Team: "a", Class: "research", InstanceType: p5, Instances: 1, Submit: 30, Start: 660, End: 760,
		Wait: 630, Attempts: 1, Outcome: simulate.OutcomeCompleted, Moves: 1, RanOn: p4d}
	if diff := cmp.Diff(want, recs[0]); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	got := []any{res.Moves, res.Routes, res.Classes[0].Moves, res.Classes[1].Moves, res.Teams[0].Moves, res.Classes[1].Wait.Max}
	wantRes := []any{1, []simulate.Route{{Class: "research", From: p5, To: p4d, Moves: 1}}, 0, 1, 1, int64(630)}
	if diff := cmp.Diff(wantRes, got); diff != "" {
		t.Errorf("moves, routes, production, research and team moves, research max wait (-want +got):\n%s", diff)
	}
	wantSettings := simulate.Settings{Rerouting: &simulate.RerouteRun{EveryMinutes: 1, MaxMovesPerMinute: 30},
		Classes: []simulate.ClassSettings{{Name: "production"},
			{Name: "research", Reroute: &platform.Reroute{AfterSeconds: 600, InstanceTypes: []string{p5, p4d}, MaxMoves: 3}}}}
	if diff := cmp.Diff(wantSettings, res.Settings); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
}

// TestFIFOIgnoresRerouteAndCheckpoints: the FIFO baseline of a platform
// with re-routing and checkpoints is the FIFO baseline of the same platform
// without them, figure for figure, and moves nothing.
func TestFIFOIgnoresRerouteAndCheckpoints(t *testing.T) {
	with := mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 4}, {instanceType: %[2]s, instances: 4}]\n"+
		"classes:\n  - {name: production, priority: {min: 900, max: 999}}\n"+
		"  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 7200, retries: 1, checkpoints: {intervalSeconds: 600}, reroute: {afterSeconds: 60, instanceTypes: [%[1]s, %[2]s]}}\n"+
		"teams: [{name: a, capacity: [{instanceType: %[1]s, instances: 2}, {instanceType: %[2]s, instances: 2}]}, {name: b, capacity: [{instanceType: %[1]s, instances: 2}, {instanceType: %[2]s, instances: 2}]}]\n", p5, p4d))
	without := *with
	without.Classes = nil
	for _, c := range with.Classes {
		c.Reroute, c.Checkpoints = nil, nil
		without.Classes = append(without.Classes, c)
	}
	var jobs []trace.Job
	if err := trace.Generate(with, trace.GenerateOptions{Seed: 11, Jobs: 400, Load: 1.2}, func(j trace.Job) error {
		jobs = append(jobs, j)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	a, ra := records(t, with, simulate.PolicyFIFO, jobs...)
	b, rb := records(t, &without, simulate.PolicyFIFO, jobs...)
	if diff := cmp.Diff(b, a, cmpopts.IgnoreUnexported(simulate.Result{})); diff != "" {
		t.Errorf("FIFO with reroute and checkpoints differs from FIFO without (-without +with):\n%s", diff)
	}
	if diff := cmp.Diff(rb, ra); diff != "" {
		t.Errorf("FIFO records differ (-without +with):\n%s", diff)
	}
	if a.Moves != 0 || a.Timeouts == 0 {
		t.Errorf("FIFO: %d moves, %d timeouts; want none, and some timeouts (so that checkpoints could have mattered)", a.Moves, a.Timeouts)
	}
}
