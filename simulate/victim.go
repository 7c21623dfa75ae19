package simulate

// Victim is a running job that a preemption could stop, as a VictimChooser
// sees it.
type Victim struct {
	JobID string
	Team  string
	Class string
	// SchedulingPriority is the job's AWS Batch scheduling priority.
	SchedulingPriority int
	Instances          int
	// StartedAt is when the job's current attempt started.
	StartedAt int64
	// Order is the job's submission order in the trace (0 for the first).
	Order int64
	// CrossShare is true when the job runs on capacity its team borrowed from
	// the preemptor's team (cross-share preemption), false when it is a
	// lower-priority job of the preemptor's own team (in-share preemption).
	CrossShare bool
}

// Preemptor is the waiting job that needs capacity.
type Preemptor struct {
	JobID              string
	Team               string
	SchedulingPriority int
	Instances          int
	// Now is the simulated time of the decision.
	Now int64
}

// VictimChooser picks which of candidates to preempt next for p and returns
// its index. It is called again, with the remaining candidates, until the
// preemptor fits. It must be a pure function of its arguments, so that runs
// stay deterministic.
//
// AWS Batch documents that it "considers the number and type of instances a
// job is borrowing, relative priorities of the jobs and the duration of the
// jobs, and applies a custom heuristic"
// (https://docs.aws.amazon.com/batch/latest/userguide/preemption.html) but
// not the heuristic itself; this is the seam to try another rule.
type VictimChooser func(p Preemptor, candidates []Victim) int

// DefaultVictims is trainq's documented rule. Among the candidates it picks,
// in order of the first key that differs:
//  1. borrowed capacity before in-share work (restoring a quota is what
//     cross-share preemption is for);
//  2. the lowest scheduling priority;
//  3. the most recently started (the least work lost);
//  4. the fewest instances (the smallest disruption);
//  5. the latest submitted.
func DefaultVictims(_ Preemptor, c []Victim) int {
	best := 0
	for i := 1; i < len(c); i++ {
		if victimBefore(c[i], c[best]) {
			best = i
		}
	}
	return best
}

func victimBefore(a, b Victim) bool {
	switch {
	case a.CrossShare != b.CrossShare:
		return a.CrossShare
	case a.SchedulingPriority != b.SchedulingPriority:
		return a.SchedulingPriority < b.SchedulingPriority
	case a.StartedAt != b.StartedAt:
		return a.StartedAt > b.StartedAt
	case a.Instances != b.Instances:
		return a.Instances < b.Instances
	}
	return a.Order > b.Order
}
