package reroute

import (
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/moveplan"
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
	// marked: a move of it is recorded (contract.TagMove): it is
	// converged, never decided again; it only takes room on its own type.
	marked  bool
	payload string
	d       *batch.DescribeServiceJobOutput
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

// plan decides the moves of one run from one snapshot's usage u at now
// (Unix ms) with the planner the simulator calls too (moveplan.Decided).
// jobs are the platform's runnable jobs and its jobs that failed for
// capacity.
func plan(p *platform.Platform, jobs []*job, u *batchrules.Usage, now int64) planned {
	in := make([]*moveplan.Job, len(jobs))
	of := make(map[*moveplan.Job]*job, len(jobs))
	for i, j := range jobs {
		in[i] = &moveplan.Job{ID: j.id, Class: &j.class, Team: j.team, Priority: j.priority, InstanceType: j.instanceType,
			Instances: j.instances, Moves: j.moves, Since: j.since, Failed: j.failed, Blocked: j.blocked, Marked: j.marked}
		of[in[i]] = j
	}
	d := moveplan.Decided(p, in, u, now)
	out := planned{refused: map[string]int{}, skipped: d.NoRoom}
	if d.MaxMoves > 0 {
		out.refused[metrics.RefusedMaxMoves] = d.MaxMoves
	}
	for _, m := range d.Moves {
		out.moves = append(out.moves, decision{j: of[m.Job], to: m.To})
	}
	return out
}
