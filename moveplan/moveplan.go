package moveplan

import (
	"slices"
	"sort"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// Job is what the planner knows of one waiting job (or one that AWS Batch
// ended for lack of SageMaker capacity).
type Job struct {
	// ID breaks ties between jobs of equal priority that became RUNNABLE
	// at the same millisecond.
	ID string
	// Class is the job's priority class; nil or a class without Reroute
	// never moves.
	Class *platform.Class
	// Team is the job's team (its share).
	Team platform.Team
	// Priority is the job's scheduling priority (higher starts first).
	Priority int
	// InstanceType is the payload's instance type; "" (instance groups)
	// never moves.
	InstanceType string
	// Instances is the payload's instance count.
	Instances int
	// Moves is how many times the job's lineage moved already.
	Moves int
	// Since is when the job last became RUNNABLE (Unix ms), or when it
	// stopped for a Failed job.
	Since int64
	// Failed: AWS Batch ended it for capacity; it need not wait
	// reroute.afterSeconds and takes no room.
	Failed bool
	// Blocked: RUNNABLE, but Batch says SageMaker lacks capacity for its
	// type, so it does not start there whatever the quota says.
	Blocked bool
	// Marked: a move of the job is recorded already, or it is a
	// replacement whose old job still lives. It never moves (Kueue skips a
	// workload already marked for preemption): the recorded move is
	// converged instead. It still takes room on its own type when it fits
	// there, since it may start there first.
	Marked bool
}

// Verdict is what the planner decides for one job at its turn.
type Verdict int

const (
	// Waits: not eligible (its class does not re-route, its type is not in
	// the class's list, it has not waited long enough, or it is Marked).
	Waits Verdict = iota
	// Fits: it has room on its own type and starts there when its turn
	// comes; it takes that room.
	Fits
	// Moves: it moves to the returned type, whose room it takes.
	Moves
	// NoRoom: eligible, but no other type of its class has room for it.
	NoRoom
	// MaxMoves: it would move, but its lineage moved reroute.maxMoves
	// times already.
	MaxMoves
)

// Compare orders two jobs as AWS Batch starts them: higher scheduling
// priority first, then the longest waiting. It returns -1 when x comes
// first, 1 when y does, 0 on a tie (callers break it deterministically).
func Compare(xPriority int, xSince int64, yPriority int, ySince int64) int {
	switch {
	case xPriority > yPriority:
		return -1
	case xPriority < yPriority:
		return 1
	case xSince < ySince:
		return -1
	case xSince > ySince:
		return 1
	}
	return 0
}

// Order sorts jobs in the order the planner walks them (Compare, then by
// ID).
func Order(jobs []*Job) {
	sort.SliceStable(jobs, func(a, b int) bool {
		x, y := jobs[a], jobs[b]
		if c := Compare(x.Priority, x.Since, y.Priority, y.Since); c != 0 {
			return c < 0
		}
		return x.ID < y.ID
	})
}

// Decide is the rule for one job at its turn, at now (Unix ms), with
// room(t) the instances of type t its team could start now
// (platform.Headroom over the run's view of capacity):
//
//   - a runnable job that fits on its own type (and is not Blocked) Fits;
//   - else a job is eligible when it is not Marked, its class re-routes,
//     its type is one of the class's reroute.instanceTypes and it waited
//     reroute.afterSeconds (a Failed job need not wait);
//   - an eligible job Moves to the first other type of the list with room
//     for all its instances, unless its lineage moved reroute.maxMoves
//     times (MaxMoves); with none, NoRoom;
//   - every other job Waits.
func Decide(j *Job, now int64, room func(instanceType string) int) (Verdict, string) {
	if !j.Failed && !j.Blocked && j.InstanceType != "" && room(j.InstanceType) >= j.Instances {
		return Fits, ""
	}
	if j.Marked || j.Class == nil || j.Class.Reroute == nil || j.InstanceType == "" {
		return Waits, ""
	}
	rr := j.Class.Reroute
	if !slices.Contains(rr.InstanceTypes, j.InstanceType) {
		return Waits, ""
	}
	if !j.Failed && now-j.Since < int64(rr.AfterSeconds)*1000 {
		return Waits, ""
	}
	to := ""
	for _, t := range rr.InstanceTypes {
		if t != j.InstanceType && room(t) >= j.Instances {
			to = t
			break
		}
	}
	switch {
	case to == "":
		return NoRoom, ""
	case j.Moves >= rr.MaxMoves:
		return MaxMoves, ""
	}
	return Moves, to
}

// Move is one planned move.
type Move struct {
	Job *Job
	To  string
}

// Plan is what one run decided.
type Plan struct {
	// Moves are the moves, in the order Batch would start the jobs.
	Moves []Move
	// MaxMoves counts jobs that would move but have moved reroute.maxMoves
	// times.
	MaxMoves int
	// NoRoom counts eligible jobs left where they are because no other
	// type of their class has room for them.
	NoRoom int
}

// Decided plans one run from one snapshot's usage u (not changed), at now
// (Unix ms): it walks jobs in Order and decides each (Decide) against a
// view of capacity that counts the room each job before it takes — a job
// that Fits on its own type, a job that Moves on its new one — so that two
// moves never count on the same free instances and no job moves into room
// a higher-priority job starts in. It sorts jobs.
func Decided(p *platform.Platform, jobs []*Job, u *batchrules.Usage, now int64) Plan {
	var out Plan
	view := copyUsage(u)
	Order(jobs)
	for _, j := range jobs {
		room := func(t string) int { return p.Headroom(j.Team, t, view) }
		v, to := Decide(j, now, room)
		switch v {
		case Fits:
			take(view, j.Team.Name, j.InstanceType, j.Instances)
		case Moves:
			take(view, j.Team.Name, to, j.Instances)
			out.Moves = append(out.Moves, Move{Job: j, To: to})
		case NoRoom:
			out.NoRoom++
		case MaxMoves:
			out.MaxMoves++
		}
	}
	return out
}

// take counts n more instances of instanceType in use by share.
func take(u *batchrules.Usage, share, instanceType string, n int) {
	u.ByType[instanceType] += float64(n)
	if u.ByShare[share] == nil {
		u.ByShare[share] = map[string]float64{}
	}
	u.ByShare[share][instanceType] += float64(n)
}

// copyUsage returns a deep copy of u, an empty usage for nil.
func copyUsage(u *batchrules.Usage) *batchrules.Usage {
	out := &batchrules.Usage{ByType: map[string]float64{}, ByShare: map[string]map[string]float64{}}
	if u == nil {
		return out
	}
	out.PerShare = u.PerShare
	for k, v := range u.ByType {
		out.ByType[k] = v
	}
	for s, m := range u.ByShare {
		out.ByShare[s] = make(map[string]float64, len(m))
		for k, v := range m {
			out.ByShare[s][k] = v
		}
	}
	return out
}
