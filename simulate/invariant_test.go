package simulate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// checker verifies invariants at every event of a run.
type checker struct {
	shares  []batchrules.Share
	t       *testing.T
	p       *platform.Platform
	jobs    map[string]trace.Job
	running map[string]bool
	ended   map[string]int
	order   []string // trace order, to find waiting jobs
	bad     int
	// unordered skips checkNoHigherWaits
	unordered bool
	// ckpt: the run models checkpoints (not FIFO)
	ckpt bool
	// moves of the re-router's current run: instances moved per team and
	// type at movedAt
	movedAt int64
	moved   map[[2]string]int
	// sums over the records: jobs, run and lost instance-seconds
	records   int
	run, lost int64
	// per job, from the events: attempts, ends by kind, the last start, run
	// and lost seconds, the time and kind of its final event
	attempt map[string]*attempts
}

type attempts struct {
	starts, preempts, timeouts, moves int
	lastStart, open                   int64 // open: start of the running attempt, -1 when none
	runnable                          int64 // when it last became RUNNABLE
	run, lost, saved                  int64
	end                               int64
	final                             simulate.EventKind
	typ                               string // the instance type it is on now
}

func (c *checker) errorf(format string, args ...any) {
	c.bad++
	if c.bad <= 5 {
		c.t.Errorf(format, args...)
	}
}

func (c *checker) Observe(e simulate.Event, s *simulate.State) {
	for ti, it := range s.Types {
		if s.Used[ti] > s.Pool[ti] {
			c.errorf("t=%d: %d × %s in use, pool has %d", e.At, s.Used[ti], it, s.Pool[ti])
		}
		sum := 0
		for si, team := range c.p.Teams {
			u := s.TeamUsed[si][ti]
			sum += u
			if c.p.Scheduling.Mode != platform.ModeQuota {
				continue
			}
			q := team.CapacityOf(it)
			limit := team.QuotaShare().Limit(it).Ceiling(s.Pool[ti])
			if u > limit {
				c.errorf("t=%d: team %s holds %d × %s, over its quota %d plus borrow limit (%d)", e.At, team.Name, u, it, q, limit)
			}
		}
		if sum != s.Used[ti] {
			c.errorf("t=%d: teams hold %d × %s, pool use says %d", e.At, sum, it, s.Used[ti])
		}
	}
	a := c.attempt[e.JobID]
	if a == nil {
		a = &attempts{open: -1, lastStart: -1, typ: c.jobs[e.JobID].InstanceType, runnable: c.jobs[e.JobID].Submit}
		c.attempt[e.JobID] = a
	}
	if e.Kind != simulate.EventMove && e.InstanceType != a.typ {
		c.errorf("t=%d: %s: event %v on %s, but the job is on %s", e.At, e.JobID, e.Kind, e.InstanceType, a.typ)
	}
	closeAttempt := func(lost bool) {
		if a.open < 0 {
			c.errorf("t=%d: %s: an attempt ends (%v) but none runs", e.At, e.JobID, e.Kind)
			return
		}
		d := e.At - a.open
		a.run += d
		if lost {
			// R22: checkpoints keep ⌊d/I⌋·I of the attempt.
			keep := int64(0)
			if cl, _ := c.p.Class(e.Class); c.ckpt {
				if iv, on := cl.CheckpointInterval(); on {
					keep = d / int64(iv) * int64(iv)
				}
			}
			a.lost += d - keep
			a.saved += keep
		}
		a.open = -1
	}
	switch e.Kind {
	case simulate.EventStart:
		if !c.unordered {
			c.checkNoHigherWaits(e, s)
		}
		c.running[e.JobID] = true
		if a.open >= 0 {
			c.errorf("t=%d: %s starts while its previous attempt has not ended", e.At, e.JobID)
		}
		a.starts++
		a.open, a.lastStart = e.At, e.At
	case simulate.EventPreempt:
		delete(c.running, e.JobID)
		a.preempts++
		a.runnable = e.At
		closeAttempt(true)
	case simulate.EventTimeout:
		delete(c.running, e.JobID)
		a.timeouts++
		a.runnable = e.At
		closeAttempt(true)
	case simulate.EventComplete:
		closeAttempt(false)
	case simulate.EventMove:
		// R23: only a waiting job moves, from the type it is on, to
		// another of its class's types, at most maxMoves times.
		cl, _ := c.p.Class(e.Class)
		a.moves++
		switch {
		case c.running[e.JobID] || c.ended[e.JobID] > 0:
			c.errorf("t=%d: %s moves but it is not waiting", e.At, e.JobID)
		case e.From != a.typ || e.From == e.InstanceType:
			c.errorf("t=%d: %s moves from %s to %s, but it is on %s", e.At, e.JobID, e.From, e.InstanceType, a.typ)
		case cl.Reroute == nil || !slices.Contains(cl.Reroute.InstanceTypes, e.From) || !slices.Contains(cl.Reroute.InstanceTypes, e.InstanceType):
			c.errorf("t=%d: %s (%s) moves from %s to %s, not both of its class's reroute types", e.At, e.JobID, e.Class, e.From, e.InstanceType)
		case a.moves > cl.Reroute.MaxMoves:
			c.errorf("t=%d: %s moves for the %d-th time, over maxMoves %d", e.At, e.JobID, a.moves, cl.Reroute.MaxMoves)
		case e.At-a.runnable < int64(cl.Reroute.AfterSeconds) || e.At%int64(c.p.Rerouting.EveryMinutes*60) != 0:
			c.errorf("t=%d: %s moves after %d s RUNNABLE (afterSeconds %d), or not at a run of the re-router", e.At, e.JobID, e.At-a.runnable, cl.Reroute.AfterSeconds)
		default:
			// R23: no room on its type, room on the new one, by
			// platform.Headroom over the capacity in use and what this run
			// moved before.
			if e.At != c.movedAt {
				c.movedAt, c.moved = e.At, map[[2]string]int{}
			}
			team, _ := c.p.Team(e.Team)
			if h := c.headroom(s, team, e.From); h >= e.Instances {
				c.errorf("t=%d: %s moves off %s, where team %s has room for %d", e.At, e.JobID, e.From, e.Team, h)
			}
			if h := c.headroom(s, team, e.InstanceType); h < e.Instances {
				c.errorf("t=%d: %s (%d instances) moves to %s, where team %s has room for %d", e.At, e.JobID, e.Instances, e.InstanceType, e.Team, h)
			}
			c.moved[[2]string{e.Team, e.InstanceType}] += e.Instances
		}
		a.typ = e.InstanceType
		a.runnable = e.At
	}
	if e.Kind == simulate.EventComplete || e.Kind == simulate.EventFail {
		delete(c.running, e.JobID)
		c.ended[e.JobID]++
		a.end, a.final = e.At, e.Kind
		if a.open >= 0 {
			c.errorf("t=%d: %s ends with an attempt still running", e.At, e.JobID)
		}
	}
}

// headroom is platform.Headroom of team on instanceType with the capacity
// in use s and the instances the re-router's current run moved.
func (c *checker) headroom(s *simulate.State, team platform.Team, instanceType string) int {
	u := &batchrules.Usage{PerShare: true, ByType: map[string]float64{}, ByShare: map[string]map[string]float64{}}
	for ti, it := range s.Types {
		u.ByType[it] = float64(s.Used[ti])
		for si, name := range s.Teams {
			if u.ByShare[name] == nil {
				u.ByShare[name] = map[string]float64{}
			}
			u.ByShare[name][it] = float64(s.TeamUsed[si][ti])
		}
	}
	for k, n := range c.moved {
		u.ByType[k[1]] += float64(n)
		u.ByShare[k[0]][k[1]] += float64(n)
	}
	return c.p.Headroom(team, instanceType, u)
}

// checkRecord compares a job's record with what its events said.
func (c *checker) checkRecord(r simulate.JobRecord) {
	j, ok := c.jobs[r.ID]
	a := c.attempt[r.ID]
	if !ok || a == nil {
		c.errorf("record for %q: no such job, or no events", r.ID)
		return
	}
	outcome := simulate.OutcomeFailed
	if a.final == simulate.EventComplete {
		outcome = simulate.OutcomeCompleted
	}
	lost := a.lost
	if outcome == simulate.OutcomeFailed {
		lost += a.saved // a failed job's checkpoints were for nothing
	}
	want := simulate.JobRecord{ID: j.ID, Team: j.Team, Class: j.Class, InstanceType: j.InstanceType, Instances: j.Instances,
		Submit: j.Submit, Start: a.lastStart, End: a.end, Wait: a.end - j.Submit - a.run, Attempts: a.starts,
		Preemptions: a.preempts, Timeouts: a.timeouts, LostSeconds: lost, SavedSeconds: a.saved, Outcome: outcome,
		Reason: r.Reason, Moves: a.moves, RanOn: a.typ}
	if diff := cmp.Diff(want, r); diff != "" {
		c.errorf("record of %s disagrees with its events (-events +record):\n%s", r.ID, diff)
	}
	if outcome == simulate.OutcomeCompleted && a.run-a.lost != j.Duration {
		// The work that counted is the job's duration: its last attempt
		// plus what checkpoints kept of the others.
		c.errorf("record of %s: ran %d s, lost %d s, but the job needs %d s", r.ID, a.run, a.lost, j.Duration)
	}
	if (outcome == simulate.OutcomeFailed) != (r.Reason != "") {
		c.errorf("record of %s: outcome %s with reason %q", r.ID, r.Outcome, r.Reason)
	}
	c.run += a.run * int64(j.Instances)
	c.lost += lost * int64(j.Instances)
	c.records++
}

// checkNoHigherWaits: when a job starts, no job of a higher class in the
// same share and type may be waiting that fits within its own quota on idle
// capacity (in quota mode), or in the idle pool (otherwise).
func (c *checker) checkNoHigherWaits(e simulate.Event, s *simulate.State) {
	if r := c.p.Scheduling.ComputeReservation; r != nil && *r > 0 {
		// The reservation changes what fits; checked without it below.
		return
	}
	started, _ := c.p.Class(e.Class)
	ti, si := typeIndex(s, e.InstanceType), teamIndex(c.p, e.Team)
	free := s.Pool[ti] - s.Used[ti] + e.Instances // before this start
	teamUsed := s.TeamUsed[si][ti] - e.Instances
	for _, id := range c.order {
		j := c.jobs[id]
		if j.Submit > e.At {
			break
		}
		typ := j.InstanceType
		if a := c.attempt[id]; a != nil {
			typ = a.typ
		}
		if c.running[id] || c.ended[id] > 0 || id == e.JobID || j.Team != e.Team || typ != e.InstanceType {
			continue
		}
		h, _ := c.p.Class(j.Class)
		if h.Priority.Min <= started.Priority.Max {
			continue
		}
		fits := j.Instances <= free
		if c.p.Scheduling.Mode == platform.ModeQuota {
			team := c.p.Teams[si]
			fits = fits && teamUsed+j.Instances <= team.CapacityOf(j.InstanceType)
		}
		if fits {
			c.errorf("t=%d: %s (%s) started while %s (%s) of the same team waits and fits", e.At, e.JobID, e.Class, id, j.Class)
		}
	}
}

func typeIndex(s *simulate.State, it string) int {
	for i, t := range s.Types {
		if t == it {
			return i
		}
	}
	return -1
}

func teamIndex(p *platform.Platform, name string) int {
	for i, t := range p.Teams {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// TestInvariantsOnGeneratedTraces runs generated traces through several
// platforms and both policies and checks, at every event: capacity per type
// and per team (borrow limits included) is never exceeded; a higher-class job
// that fits never waits while a lower-class job of its team starts; every
// attempt ends (preempted, timed out or completed) before the next starts;
// a move (R23, R24) is of a waiting job, from the type it is on to another
// of its class's, after afterSeconds RUNNABLE, at a run of the re-router,
// off a type where its team has no room onto one where it has room
// (platform.Headroom, counting the run's earlier moves), at most maxMoves
// times.
// At the end: every job ended exactly once (completed or failed); each job's
// record agrees with its events (attempts, preemptions, timeouts, last start,
// end, wait, lost seconds, outcome); the records' run and lost work add up
// to the result's exact busy and lost instance-seconds, busy = goodput +
// lost; and utilization is at most 1.
func TestInvariantsOnGeneratedTraces(t *testing.T) {
	platforms := map[string]string{
		"default": "",
		"reserve, lend and a borrow limit": fmt.Sprintf(`pools: [{instanceType: %[1]s, instances: 10}, {instanceType: ml.p4d.24xlarge, instances: 6}]
classes:
  - {name: production, priority: {min: 900, max: 999}, preemptionRetries: 2}
  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 7200, retries: 1}
  - {name: sweep, priority: {min: 100, max: 199}}
teams:
  - {name: a, capacity: [{instanceType: %[1]s, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 2}], borrowLimitPercent: 50}
  - {name: b, capacity: [{instanceType: %[1]s, instances: 3}], sharing: reserve}
  - {name: c, capacity: [{instanceType: %[1]s, instances: 2}, {instanceType: ml.p4d.24xlarge, instances: 4}], sharing: lend, inSharePreemption: false}
`, p5),
		"re-routing and checkpoints": fmt.Sprintf(`pools: [{instanceType: %[1]s, instances: 8}, {instanceType: ml.p4d.24xlarge, instances: 6}]
classes:
  - {name: production, priority: {min: 900, max: 999}, preemptionRetries: 3}
  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 7200, retries: 1, checkpoints: {intervalSeconds: 900}, reroute: {afterSeconds: 300, instanceTypes: [ml.p4d.24xlarge, %[1]s], maxMoves: 2}}
  - {name: sweep, priority: {min: 100, max: 199}, checkpoints: {intervalSeconds: 600}, reroute: {afterSeconds: 60, instanceTypes: [%[1]s, ml.p4d.24xlarge]}}
teams:
  - {name: a, capacity: [{instanceType: %[1]s, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 2}], borrowLimitPercent: 50}
  - {name: b, capacity: [{instanceType: %[1]s, instances: 3}], sharing: reserve}
  - {name: c, capacity: [{instanceType: %[1]s, instances: 1}, {instanceType: ml.p4d.24xlarge, instances: 4}], sharing: lend}
rerouting: {maxMovesPerMinute: 3}
`, p5),
		"fair share with re-routing": fmt.Sprintf(`pools: [{instanceType: %[1]s, instances: 6}, {instanceType: ml.p4d.24xlarge, instances: 6}]
scheduling: {mode: fairshare, shareDecaySeconds: 600}
classes:
  - {name: production, priority: {min: 900, max: 999}}
  - {name: research, priority: {min: 500, max: 599}, reroute: {afterSeconds: 120, instanceTypes: [%[1]s, ml.p4d.24xlarge]}}
  - {name: sweep, priority: {min: 100, max: 199}}
teams: [{name: a, weight: 0.5}, {name: b}, {name: c, weight: 2}]
`, p5),
		"fair share": fmt.Sprintf(`pools: [{instanceType: %s, instances: 12}]
scheduling: {mode: fairshare, shareDecaySeconds: 600}
teams: [{name: a, weight: 0.5}, {name: b}, {name: c, weight: 2}]
`, p5),
		"fair share with reservation": fmt.Sprintf(`pools: [{instanceType: %s, instances: 12}]
scheduling: {mode: fairshare, shareDecaySeconds: 1800, computeReservation: 40}
teams: [{name: a, weight: 0.5}, {name: b}, {name: c, weight: 2}]
`, p5),
	}
	moves, saved := map[string]int{}, map[string]int64{}
	for name, y := range platforms {
		p := platform.Default()
		if y != "" {
			p = mustParse(t, y)
		}
		for seed := uint64(1); seed <= 4; seed++ {
			var jobs []trace.Job
			if err := trace.Generate(p, trace.GenerateOptions{Seed: seed, Jobs: 400, Load: 1.3}, func(j trace.Job) error {
				jobs = append(jobs, j)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, pol := range []simulate.Policy{simulate.PolicyPlatform, simulate.PolicyFIFO} {
				t.Run(fmt.Sprintf("%s/seed %d/%s", name, seed, pol), func(t *testing.T) {
					res := checkRun(t, p, pol, jobs, true)
					moves[name] += res.Moves
					saved[name] += res.InstanceSeconds.Checkpointed
				})
			}
		}
	}
	// The re-routing platforms must really move jobs and keep checkpoints,
	// or the checks above prove nothing about them.
	if moves["re-routing and checkpoints"] == 0 || saved["re-routing and checkpoints"] == 0 || moves["fair share with re-routing"] == 0 {
		t.Errorf("moves %v, checkpointed instance-seconds %v: want some on the re-routing platforms", moves, saved)
	}
}

// checkRun runs jobs on p under pol with the checker watching every event
// and every job's record, then checks the totals. ordered also checks, at
// every start, that no higher-class job of the team waits that fits (O(n)
// per start: for small traces).
func checkRun(t *testing.T, p *platform.Platform, pol simulate.Policy, jobs []trace.Job, ordered bool) *simulate.Result {
	t.Helper()
	c := &checker{t: t, p: p, jobs: map[string]trace.Job{}, running: map[string]bool{}, ended: map[string]int{},
		attempt: map[string]*attempts{}, unordered: !ordered, ckpt: pol != simulate.PolicyFIFO}
	for _, j := range jobs {
		c.jobs[j.ID] = j
		c.order = append(c.order, j.ID)
	}
	if pol == simulate.PolicyFIFO {
		// FIFO has no classes to respect; only capacity is checked.
		c.p = withoutQuota(p)
	}
	res, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: pol, Observer: c,
		Jobs: func(r simulate.JobRecord) error { c.checkRecord(r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	w := res.InstanceSeconds
	if c.records != len(jobs) || c.run != w.Busy || c.lost != w.Lost() || w.Busy != w.Goodput+w.Lost() {
		c.errorf("%d records for %d jobs; records run %d and lost %d instance-seconds, the result busy %d = goodput %d + lost %d",
			c.records, len(jobs), c.run, c.lost, w.Busy, w.Goodput, w.Lost())
	}
	for _, j := range jobs {
		if c.ended[j.ID] != 1 {
			c.errorf("job %s ended %d times, want exactly once", j.ID, c.ended[j.ID])
		}
	}
	if res.Completed+res.Failed != len(jobs) {
		c.errorf("completed %d + failed %d != %d jobs", res.Completed, res.Failed, len(jobs))
	}
	if res.Utilization > 1 {
		c.errorf("utilization %g > 1", res.Utilization)
	}
	for _, ts := range res.InstanceTypes {
		if ts.Utilization > 1 {
			c.errorf("utilization of %s %g > 1", ts.InstanceType, ts.Utilization)
		}
	}
	return res
}

// TestInvariantsOnPublicTraces runs the Philly-derived traces beside the
// repository (../shared/traces: Chronus MIX1 and Gavel's seed-0 VCs, as
// `trainq trace convert` reads them) through the default platform and FIFO
// under the same checks, but for the per-start priority scan. Users do not
// have the traces, so it skips without them.
func TestInvariantsOnPublicTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("public traces: not in -short")
	}
	p := platform.Default()
	for _, tc := range []struct{ format, file string }{
		{"chronus", "philly_chronus_mix1.csv"},
		{"gavel", "philly_vc_gavel_seed0.csv"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "shared", "traces", tc.file))
			if err != nil {
				t.Skipf("public trace not present (it lives in ../shared/traces beside the repo): %v", err)
			}
			defer f.Close()
			var jobs []trace.Job
			if _, err := trace.Convert(tc.format, f, trace.ConvertOptions{Platform: p}, func(j trace.Job) error {
				jobs = append(jobs, j)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, pol := range []simulate.Policy{simulate.PolicyPlatform, simulate.PolicyFIFO} {
				t.Run(string(pol), func(t *testing.T) { checkRun(t, p, pol, jobs, false) })
			}
		})
	}
}

// withoutQuota returns p as the FIFO baseline sees it: one pool, no shares,
// no classes to order by.
func withoutQuota(p *platform.Platform) *platform.Platform {
	q := *p
	q.Scheduling.Mode = "fifo"
	q.Classes = nil
	for _, c := range p.Classes {
		c.Priority = platform.Band{Min: 0, Max: 0}
		q.Classes = append(q.Classes, c)
	}
	return &q
}
