package reroute

import (
	"sort"

	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// job is what the re-router knows of one of the platform's jobs, read from
// DescribeServiceJob.
type job struct {
	id, name, status string
	class            platform.Class
	team             platform.Team
	priority         int
	instanceType     string // "" when the payload names none (instance groups)
	instances        int
	moves            int
	since            int64 // when it last became RUNNABLE (Unix ms); when it stopped, for a failed job
	failed           bool  // FAILED for capacity: resubmitted, nothing to terminate
	blocked          bool  // RUNNABLE, but Batch says SageMaker lacks capacity for its type
	// replaced: a job of its replacement's name exists (live or ended), so
	// it cannot move again: it only takes room on its own type.
	replaced bool
	payload  string
	d        *batch.DescribeServiceJobOutput
}

// decision is one planned move.
type decision struct {
	j  *job
	to string
}

// planned is what plan decided.
type planned struct {
	moves   []decision
	refused map[string]int
	// skipped counts eligible jobs left where they are because no other
	// type of their class has room for them.
	skipped int
}

// order sorts jobs as Batch would start them: higher scheduling priority
// first, then the longest waiting, then by id (a deterministic tie-break).
func order(jobs []*job) {
	sort.SliceStable(jobs, func(a, b int) bool {
		x, y := jobs[a], jobs[b]
		if x.priority != y.priority {
			return x.priority > y.priority
		}
		if x.since != y.since {
			return x.since < y.since
		}
		return x.id < y.id
	})
}

// plan decides the moves of one run from one snapshot's usage u (which it
// changes: pass a copy), at now (Unix ms). jobs are the platform's
// runnable jobs and its jobs that failed for capacity. It walks them in
// the order Batch starts them (order), and accounts the room each takes:
//
//   - a runnable job that fits on its own type takes that room: it starts
//     there, before any lower-priority job;
//   - an eligible job — its class reroutes, its type is one of the class's
//     reroute.instanceTypes, it waited at least reroute.afterSeconds (a
//     failed job need not wait) — that does not fit on its type (or whose
//     type SageMaker cannot provide now) moves to the first other type of
//     the list with room for its instances (platform.RerouteTarget, the
//     rule trainq status explains a wait with), which it then takes, so that
//     two moves never count on the same free instances; unless its lineage
//     moved reroute.maxMoves times already (refused, MAX_MOVES);
//   - every other job waits and takes nothing, and so does a job whose
//     replacement exists already (replaced): it cannot move again.
func plan(p *platform.Platform, jobs []*job, u *batchrules.Usage, now int64) planned {
	out := planned{refused: map[string]int{}}
	order(jobs)
	for _, j := range jobs {
		if !j.failed && !j.blocked && j.instanceType != "" && p.Headroom(j.team, j.instanceType, u) >= j.instances {
			take(u, j.team.Name, j.instanceType, j.instances)
			continue
		}
		rr := j.class.Reroute
		if j.replaced || rr == nil || j.instanceType == "" || !contains(rr.InstanceTypes, j.instanceType) {
			continue
		}
		if !j.failed && now-j.since < int64(rr.AfterSeconds)*1000 {
			continue
		}
		to, _ := p.RerouteTarget(j.class, j.team, j.instanceType, j.instances, u)
		switch {
		case to == "":
			out.skipped++
		case j.moves >= rr.MaxMoves:
			out.refused[metrics.RefusedMaxMoves]++
		default:
			take(u, j.team.Name, to, j.instances)
			out.moves = append(out.moves, decision{j: j, to: to})
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
		out.ByShare[s] = map[string]float64{}
		for k, v := range m {
			out.ByShare[s][k] = v
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
