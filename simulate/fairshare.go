package simulate

import (
	"math"

	"github.com/trainq/trainq/platform"
)

// Fair-share rules, after the AWS Batch API reference (FairsharePolicy,
// ShareAttributes) and user guide: fair-share scheduling
// (https://docs.aws.amazon.com/batch/latest/userguide/fair-share-scheduling.html)
// and share identifiers
// (https://docs.aws.amazon.com/batch/latest/userguide/share-identifiers.html).
// Fair share never preempts: "Quota management is the only AWS Batch
// scheduling algorithm to incorporate preemption"
// (https://docs.aws.amazon.com/batch/latest/userguide/preemption.html).

// fairState tracks each share's usage for fair share.
type fairState struct {
	decay       float64   // the decay window D, shareDecaySeconds (0 → 600)
	reservation int       // computeReservation percent
	weight      []float64 // weight factor per share
	hist        []float64 // decayed instance-seconds per share
	last        int64
}

func newFairState(p *platform.Platform, n int) fairState {
	f := fairState{weight: make([]float64, n), hist: make([]float64, n), decay: shareDecaySeconds(p.Scheduling.ShareDecaySeconds)}
	if p.Scheduling.ComputeReservation != nil {
		f.reservation = *p.Scheduling.ComputeReservation
	}
	for i, t := range p.Teams {
		f.weight[i] = shareWeight(t)
	}
	return f
}

// advance decays each share's past usage to time t: with r instances
// running since the last update dt seconds ago and window D,
// hist ← hist·e^(−dt/D) + r·D·(1 − e^(−dt/D)).
func (f *fairState) advance(e *engine, t int64) {
	if dt := float64(t - f.last); dt > 0 {
		x := math.Exp(-dt / f.decay)
		for s := range f.hist {
			f.hist[s] = f.hist[s]*x + float64(e.runN[s])*f.decay*(1-x)
		}
	}
	f.last = t
}

// usage is share s's weighted usage, the fair-share ordering key (lower goes
// first): weightFactor × (instances running now + decayed past usage / D).
// The share-identifiers page: "The AWS Batch scheduler tracks usage for each
// share identifier by using the (T * weightFactor) formula, where T is the
// vCPU usage over time. The scheduler picks jobs with the lowest usage".
func (f *fairState) usage(e *engine, s int) float64 {
	return f.weight[s] * (float64(e.runN[s]) + f.hist[s]/f.decay)
}

// activeShares counts the shares that use capacity now (shareActive).
func (e *engine) activeShares() int {
	a := 0
	for _, r := range e.runN {
		if shareActive(r) {
			a++
		}
	}
	return a
}

// fairLimit is how many instances of type t may be in use after a job of
// share s starts: the whole pool for a share that is not active (the
// reservation is held for it), else the pool less the compute reservation.
func (e *engine) fairLimit(s, t int) int {
	if !shareActive(e.runN[s]) {
		return e.pool[t]
	}
	return e.pool[t] - reservedInstances(e.pool[t], e.fair.reservation, e.activeShares())
}

// scheduleFair runs the fair-share pass for type t: repeatedly, the share
// with the lowest usage (ties: platform order) starts its first waiting job
// in queue order that fits its limit (fairLimit); a share with nothing that
// fits drops out of the pass, until a share becomes active and the
// reservation shrinks.
func (e *engine) scheduleFair(t int) {
	clear(e.closed)
	for {
		best, bestU := -1, 0.0
		var bestC candidate
		for s := range e.closed {
			if e.closed[s] || e.waiting[s][t].n == 0 {
				continue
			}
			b, ok := e.waiting[s][t].firstFit(e.fairLimit(s, t) - e.used[t])
			if !ok {
				e.closed[s] = true
				continue
			}
			if u := e.fair.usage(e, s); best < 0 || u < bestU {
				best, bestU, bestC = s, u, candidate{bucket: b, ok: true}
			}
		}
		if best < 0 {
			return
		}
		wasActive := shareActive(e.runN[best])
		x := e.waiting[best][t].pop(bestC.bucket)
		e.start(x.idx)
		if !wasActive {
			clear(e.closed) // the reservation shrank: more may fit
		}
	}
}
