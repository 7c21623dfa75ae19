package simulate

import "github.com/trainq/trainq/platform"

// Series are time-bucketed aggregates for plots, in bounded memory: at most
// maxBuckets buckets, whose width doubles (pairs merge) when a run outgrows
// them. Bucket i covers [Start+i·Width, min(Start+(i+1)·Width, End)): the
// last bucket may be partial, and Span says how long each really is.
type Series struct {
	Start, Width, End int64
	// Teams and Classes name the rows of TeamBusy and ClassWaiting.
	Teams, Classes []string
	// Capacity is all pools' instances.
	Capacity int
	// TeamBusy is instance-seconds per team and bucket.
	TeamBusy [][]float64
	// ClassWaiting is waiting-job-seconds per class and bucket.
	ClassWaiting [][]float64
	// Goodput and Lost are instance-seconds per bucket of attempts that
	// completed, and of attempts preempted or timed out (added when each
	// attempt ends, over the buckets it ran in).
	Goodput, Lost []float64
}

const (
	maxBuckets   = 512
	firstWidthS  = 60
	coarsenLimit = 1 << 40
)

func newSeries(p *platform.Platform) Series {
	return Series{Width: firstWidthS, Teams: p.TeamNames(), Classes: p.ClassNames(), Capacity: p.TotalInstances(),
		TeamBusy: make([][]float64, len(p.Teams)), ClassWaiting: make([][]float64, len(p.Classes))}
}

// Buckets is the number of buckets in use.
func (s *Series) Buckets() int { return len(s.Goodput) }

// Span is how many seconds bucket b covers: Width, or less for the last.
func (s *Series) Span(b int) int64 {
	from := s.Start + int64(b)*s.Width
	return max(0, min(from+s.Width, s.End)-from)
}

// bucket returns the bucket of time t, growing (and coarsening) the series
// so that it exists.
func (s *Series) bucket(t int64) int {
	b := int((t - s.Start) / s.Width)
	for b >= maxBuckets && s.Width < coarsenLimit {
		s.coarsen()
		b = int((t - s.Start) / s.Width)
	}
	for len(s.Goodput) <= b {
		for i := range s.TeamBusy {
			s.TeamBusy[i] = append(s.TeamBusy[i], 0)
		}
		for i := range s.ClassWaiting {
			s.ClassWaiting[i] = append(s.ClassWaiting[i], 0)
		}
		s.Goodput = append(s.Goodput, 0)
		s.Lost = append(s.Lost, 0)
	}
	return b
}

// integrate adds [from, to) with running instances per team and waiting
// jobs per class.
func (s *Series) integrate(from, to int64, running, waiting []int) {
	for from < to {
		b := s.bucket(from)
		end := min(to, s.Start+int64(b+1)*s.Width)
		dt := float64(end - from)
		for i, r := range running {
			s.TeamBusy[i][b] += float64(r) * dt
		}
		for i, w := range waiting {
			s.ClassWaiting[i][b] += float64(w) * dt
		}
		from = end
	}
}

// attempt adds an attempt of k instances over [from, to) that ended with
// o, of which checkpoints kept the first keep seconds: the completed
// attempt as goodput, the part not kept as lost. The kept part is booked
// when the job ends (collector.settle): goodput if the job completes, lost
// if it fails, as in the totals. The buckets exist, integrate having
// reached to.
func (s *Series) attempt(from, to, keep int64, k int, o attemptOutcome) {
	if o == attemptCompleted {
		s.add(s.Goodput, from, to, k)
		return
	}
	s.add(s.Lost, from+keep, to, k)
}

// span is [from, to) in simulated seconds.
type span struct{ from, to int64 }

func (s *Series) add(row []float64, from, to int64, k int) {
	for from < to {
		b := s.bucket(from)
		end := min(to, s.Start+int64(b+1)*s.Width)
		row[b] += float64(k) * float64(end-from)
		from = end
	}
}

// coarsen doubles the bucket width, merging pairs of buckets.
func (s *Series) coarsen() {
	merge := func(r []float64) []float64 {
		n := (len(r) + 1) / 2
		for k := range n {
			v := r[2*k]
			if 2*k+1 < len(r) {
				v += r[2*k+1]
			}
			r[k] = v
		}
		return r[:n]
	}
	for i := range s.TeamBusy {
		s.TeamBusy[i] = merge(s.TeamBusy[i])
	}
	for i := range s.ClassWaiting {
		s.ClassWaiting[i] = merge(s.ClassWaiting[i])
	}
	s.Goodput = merge(s.Goodput)
	s.Lost = merge(s.Lost)
	s.Width *= 2
}
