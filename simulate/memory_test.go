package simulate

import (
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/trace"
)

// activeCounter records, at every event, how many jobs were submitted and
// had not ended yet: the peak of that is the most jobs active at once (an
// event follows every submission, at the latest when the job ends).
type activeCounter struct {
	e           *engine
	ended, peak int
	rrPeak      int // entries in the re-routing queues
}

func (a *activeCounter) Observe(ev Event, _ *State) {
	a.peak = max(a.peak, int(a.e.order)-a.ended)
	n := 0
	for i := range a.e.rr.buckets {
		b := &a.e.rr.buckets[i]
		n += b.entries()
	}
	a.rrPeak = max(a.rrPeak, n)
	if ev.Kind == EventComplete || ev.Kind == EventFail {
		a.ended++
	}
}

// TestMemoryIsBoundedByActiveJobs runs generated traces that drain (load
// 0.5) and that do not (load 1.5, the queues only grow) and checks that the
// engine holds one job slot per job active at the peak, not one per job of
// the trace, and that every queue is empty at the end.
func TestMemoryIsBoundedByActiveJobs(t *testing.T) {
	rr, err := platformfile.LoadFileOrDefault("../bench/simulate/reroute.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*platform.Platform{"default": platform.Default(), "re-routing": rr} {
		t.Run(name, func(t *testing.T) { memoryIsBounded(t, p) })
	}
}

// memoryIsBounded checks TestMemoryIsBoundedByActiveJobs on p; with
// re-routing it also checks that the re-routing queues hold about as many
// entries as jobs wait (stale entries are dropped, R23).
func memoryIsBounded(t *testing.T, p *platform.Platform) {
	for _, load := range []float64{0.5, 1.5} {
		for _, pol := range []Policy{PolicyPlatform, PolicyFIFO} {
			var jobs []trace.Job
			if err := trace.Generate(p, trace.GenerateOptions{Seed: 3, Jobs: 20000, Load: load}, func(j trace.Job) error {
				jobs = append(jobs, j)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			e := newEngine(p, Options{Policy: pol, Victims: DefaultVictims})
			c := &activeCounter{e: e}
			e.opts.Observer = c
			if err := e.loop(&SliceSource{Jobs: jobs}); err != nil {
				t.Fatal(err)
			}
			if len(e.jobs) != c.peak {
				t.Errorf("load %g, %s: %d job slots for a peak of %d active jobs", load, pol, len(e.jobs), c.peak)
			}
			if load < 1 && c.peak*10 > len(jobs) {
				t.Errorf("load %g, %s: %d of %d jobs active at once; the trace does not drain", load, pol, c.peak, len(jobs))
			}
			if c.rrPeak > 2*c.peak+64*len(e.rr.buckets) {
				t.Errorf("load %g, %s: re-routing queues held up to %d entries for at most %d active jobs", load, pol, c.rrPeak, c.peak)
			}
			if e.ends.len() != 0 || e.fifo.len() != 0 || sum(e.waitN) != 0 {
				t.Errorf("load %g, %s: left %d running, %d in FIFO, %d waiting", load, pol, e.ends.len(), e.fifo.len(), sum(e.waitN))
			}
		}
	}
}
