package simulate

import (
	"math"

	"github.com/trainq/trainq/platform"
)

// Fair-share rules, after the AWS Batch user guide: fair-share scheduling
// (https://docs.aws.amazon.com/batch/latest/userguide/fair-share-scheduling.html)
// and share identifiers
// (https://docs.aws.amazon.com/batch/latest/userguide/share-identifiers.html).
// Fair share never preempts: preemption belongs to quota management.

// fairState tracks each share's usage for fair share.
type fairState struct {
	decay       float64   // shareDecaySeconds
	reservation int       // computeReservation percent
	weight      []float64 // weight factor per share
	hist        []float64 // decayed instance-seconds per share
	lastBusy    []int64   // last time the share had waiting or running jobs
	last        int64
}

func newFairState(p *platform.Platform, n int) fairState {
	f := fairState{weight: make([]float64, n), hist: make([]float64, n), lastBusy: make([]int64, n)}
	if p.Scheduling.ShareDecaySeconds != nil {
		f.decay = float64(*p.Scheduling.ShareDecaySeconds)
	}
	if p.Scheduling.ComputeReservation != nil {
		f.reservation = *p.Scheduling.ComputeReservation
	}
	for i, t := range p.Teams {
		f.weight[i] = t.Weight
		if f.weight[i] == 0 {
			f.weight[i] = platform.DefaultWeight
		}
		f.lastBusy[i] = math.MinInt64 / 2
	}
	return f
}

// advance decays each share's past usage to time t: with running instances r
// held since the last update dt seconds ago and decay D,
// hist ← hist·e^(−dt/D) + r·D·(1 − e^(−dt/D)).
func (f *fairState) advance(e *engine, t int64) {
	dt := float64(t - f.last)
	for s := range f.hist {
		r := float64(e.runN[s])
		if e.runN[s] > 0 || e.waitN[s] > 0 {
			f.lastBusy[s] = t
		}
		if f.decay > 0 && dt > 0 {
			x := math.Exp(-dt / f.decay)
			f.hist[s] = f.hist[s]*x + r*f.decay*(1-x)
		}
	}
	f.last = t
}

// usage is share s's weighted usage, the fair-share ordering key (lower goes
// first): weightFactor × (instances running now + decayed past usage / D).
// With shareDecaySeconds 0 only current usage counts, as AWS documents.
func (f *fairState) usage(e *engine, s int) float64 {
	u := float64(e.runN[s])
	if f.decay > 0 {
		u += f.hist[s] / f.decay
	}
	return f.weight[s] * u
}

// active reports whether share s counts as an active share identifier: it has
// waiting or running jobs, or had some less than shareDecaySeconds ago.
func (f *fairState) active(e *engine, s int) bool {
	return e.runN[s] > 0 || e.waitN[s] > 0 || float64(e.now-f.lastBusy[s]) < f.decay
}

// reserved is the compute reservation of type t: while some team is not
// active, floor(pool × (computeReservation/100)^activeShares) instances are
// held back for it. Once every team is active nothing is held back (there is
// no one left to hold it for); this is trainq's reading of the rule.
func (f *fairState) reserved(e *engine, t int) int {
	if f.reservation == 0 {
		return 0
	}
	a := 0
	for s := range f.weight {
		if f.active(e, s) {
			a++
		}
	}
	if a == len(f.weight) {
		return 0
	}
	return int(float64(e.pool[t]) * math.Pow(float64(f.reservation)/100, float64(a)))
}

// scheduleFair runs the fair-share pass for type t: repeatedly, the share
// with the lowest usage (ties: platform order) starts its first waiting job
// in queue order that fits the pool less the compute reservation; a share
// with nothing that fits drops out of the pass.
func (e *engine) scheduleFair(t int) {
	n := len(e.p.Teams)
	if e.cur == nil {
		e.cur = make([]int, n)
		e.closed = make([]bool, n)
	}
	clear(e.cur)
	clear(e.closed)
	limit := e.pool[t] - e.fair.reserved(e, t)
	for {
		best, bestU := -1, 0.0
		for s := range n {
			if e.closed[s] || e.cur[s] >= len(e.waiting[s][t]) {
				continue
			}
			if u := e.fair.usage(e, s); best < 0 || u < bestU {
				best, bestU = s, u
			}
		}
		if best < 0 {
			break
		}
		s := best
		started := false
		q := e.waiting[s][t]
		for e.cur[s] < len(q) {
			en := q[e.cur[s]]
			e.cur[s]++
			if !e.live(en) {
				continue
			}
			idx := en.idx
			if e.used[t]+int(e.jobs[idx].k) <= limit {
				e.start(idx)
				started = true
				break
			}
		}
		if !started {
			e.closed[s] = true
		}
	}
	for s := range n {
		e.compact(s, t)
	}
}
