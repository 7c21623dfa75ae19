package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/trainq/trainq/platform"
)

// DefaultLoad is the generator's offered load: half the pools' capacity, so
// that the daily peak (0.75) stays below what even FIFO serves and every
// backlog drains (TestDefaultLoadDrains in package simulate).
const DefaultLoad = 0.5

// GenerateOptions shape a synthetic trace.
type GenerateOptions struct {
	// Seed makes the trace reproducible: the same seed, options and platform
	// give the same rows, byte for byte.
	Seed uint64
	// Jobs is how many jobs to generate. Required (at least 1).
	Jobs int
	// Load is the offered load as a fraction of the pools' capacity: the
	// trace's instance-seconds (duration × instances, summed) ÷ (all pool
	// instances × the time from the first to the last submission). Arrivals
	// follow a daily cycle of ±50%, so the afternoon peak offers 1.5 × Load
	// and the night trough 0.5 × Load. On the default platform the quota
	// policy serves at most about 0.90 of capacity as goodput (0.99 busy,
	// the rest lost to preemption) and FIFO about 0.82 (head-of-line
	// blocking); a load whose peak stays below those drains every day.
	// Default: DefaultLoad.
	Load float64
}

// classProfile is how jobs of one class look: the fraction of all jobs, the
// gang sizes drawn from, the mean duration and how many jobs arrive together.
type classProfile struct {
	fraction  float64
	sizes     []int
	meanSec   float64
	burstMin  int
	burstMax  int
	burstMean float64
}

// profiles assigns the generator's three job shapes to the platform's
// classes by band: the highest band gets production-like jobs (few, large,
// long), the lowest sweep-like jobs (many, single-instance, short, arriving
// in bursts), any others research-like jobs.
func profiles(p *platform.Platform) []classProfile {
	prod := classProfile{fraction: 0.15, sizes: []int{1, 2, 4, 8}, meanSec: 3 * 3600, burstMin: 1, burstMax: 1}
	research := classProfile{fraction: 0.35, sizes: []int{1, 1, 2, 4}, meanSec: 2 * 3600, burstMin: 1, burstMax: 1}
	sweep := classProfile{fraction: 0.5, sizes: []int{1}, meanSec: 40 * 60, burstMin: 5, burstMax: 20}
	order := make([]int, len(p.Classes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Classes[order[a]].Priority.Min > p.Classes[order[b]].Priority.Min })
	out := make([]classProfile, len(p.Classes))
	for rank, ci := range order {
		switch {
		case rank == 0:
			out[ci] = prod
		case rank == len(order)-1:
			out[ci] = sweep
		default:
			out[ci] = research
		}
	}
	total := 0.0
	for _, c := range out {
		total += c.fraction
	}
	for i := range out {
		out[i].fraction /= total
		out[i].burstMean = float64(out[i].burstMin+out[i].burstMax) / 2
	}
	return out
}

// Generate emits opts.Jobs synthetic jobs for platform p in submit order.
// Teams are drawn in proportion to their quota (quota mode) or to 1/weight
// (fairshare mode), instance types in proportion to the team's quota of each
// type (or the pool's capacity), priorities are mostly the default with some
// explicit ones, and durations are log-normal around each class's mean.
func Generate(p *platform.Platform, opts GenerateOptions, emit func(Job) error) error {
	if opts.Jobs < 1 {
		return fmt.Errorf("generate trace: jobs: got %d, want at least 1", opts.Jobs)
	}
	if opts.Load == 0 {
		opts.Load = DefaultLoad
	}
	if opts.Load < 0 || opts.Load > 10 {
		return fmt.Errorf("generate trace: load: got %g, want more than 0 and at most 10", opts.Load)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	profs := profiles(p)

	teamW := make([]float64, len(p.Teams))
	for i, t := range p.Teams {
		if p.Scheduling.Mode == platform.ModeFairShare {
			teamW[i] = 1 / t.Weight
		} else {
			for _, c := range t.Capacity {
				teamW[i] += float64(c.Instances)
			}
		}
	}
	// Mean instance-seconds per job and mean jobs per arrival give the
	// arrival rate that offers opts.Load of the capacity.
	capacity := float64(p.TotalInstances())
	perJob, perArrival := 0.0, 0.0
	classW := make([]float64, len(profs))
	for i, c := range profs {
		meanSize := 0.0
		for _, s := range c.sizes {
			meanSize += float64(s)
		}
		meanSize /= float64(len(c.sizes))
		perJob += c.fraction * meanSize * c.meanSec
		classW[i] = c.fraction / c.burstMean
		perArrival += classW[i] * c.burstMean
	}
	wsum := 0.0
	for _, w := range classW {
		wsum += w
	}
	perArrival /= wsum
	meanGap := perJob * perArrival / (opts.Load * capacity)

	now := 0.0
	seq := 0
	for seq < opts.Jobs {
		// A daily cycle: the rate swings ±50% around its mean (thinning).
		now += rng.ExpFloat64() * meanGap / 1.5
		if rng.Float64() > (1+0.5*math.Sin(2*math.Pi*now/86400))/1.5 {
			continue
		}
		ci := pick(rng, classW)
		c := profs[ci]
		class := p.Classes[ci]
		ti := pick(rng, teamW)
		team := p.Teams[ti]
		it := pickType(rng, p, team)
		n := c.burstMin + rng.IntN(c.burstMax-c.burstMin+1)
		size := c.sizes[rng.IntN(len(c.sizes))]
		if limit := max(1, p.PoolInstances(it)/4); size > limit {
			size = limit
		}
		for k := 0; k < n && seq < opts.Jobs; k++ {
			d := c.meanSec * math.Exp(rng.NormFloat64()*0.8-0.32)
			prio := NoPriority
			if rng.IntN(10) == 0 {
				prio = rng.IntN(MaxPriority + 1)
			}
			seq++
			j := Job{
				ID:           "job-" + strconv.Itoa(seq),
				Submit:       int64(now),
				Duration:     max(60, int64(d)),
				Instances:    size,
				InstanceType: it,
				Class:        class.Name,
				Team:         team.Name,
				Priority:     prio,
			}
			if err := emit(j); err != nil {
				return err
			}
		}
	}
	return nil
}

func pick(rng *rand.Rand, w []float64) int {
	total := 0.0
	for _, v := range w {
		total += v
	}
	x := rng.Float64() * total
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

func pickType(rng *rand.Rand, p *platform.Platform, t platform.Team) string {
	types := p.InstanceTypes()
	w := make([]float64, len(types))
	any := false
	for i, it := range types {
		if c := t.CapacityOf(it); c > 0 {
			w[i], any = float64(c), true
		}
	}
	if !any {
		for i, it := range types {
			w[i] = float64(p.PoolInstances(it))
		}
	}
	return types[pick(rng, w)]
}
