package ledger

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

// Export writes the jobs submitted in [since, until] as the trace CSV that
// `trainq simulate --trace` reads (TraceJob says which jobs and how), in
// trace.Sort's order. showName says which jobs may show their name: false
// leaves job_id empty (trainq queue's rule for other teams' jobs). It
// returns how many jobs it wrote.
func Export(ctx context.Context, s *Store, p *platform.Platform, since, until time.Time, w io.Writer, showName func(*Job) bool) (int, error) {
	var jobs []trace.Job
	err := s.Jobs(ctx, since, until, func(j *Job) error {
		tj, ok := TraceJob(p, j, since, until)
		if !ok {
			return nil
		}
		if showName != nil && !showName(j) {
			tj.ID = ""
		}
		jobs = append(jobs, tj)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	trace.Sort(jobs)
	tw, err := trace.NewWriter(w)
	if err != nil {
		return 0, err
	}
	for _, j := range jobs {
		if err := tw.Write(j); err != nil {
			return 0, err
		}
	}
	return len(jobs), tw.Flush()
}

// TraceJob is j as a row of the trace of the window [since, until]:
// submit_s from since, duration_s the completing attempt's run (the last
// attempt's, for a job that failed after running), the instances, type,
// class, team, the job's name as job_id and its request priority. It is
// false for the jobs a trace leaves out: submitted outside the window,
// never started (nothing to replay), still running (their duration is not
// known), and ended by the re-router (their work went on in the job that
// replaced them, which is exported).
func TraceJob(p *platform.Platform, j *Job, since, until time.Time) (trace.Job, bool) {
	lo, hi := since.UnixMilli(), until.UnixMilli()
	if j.CreatedAt < lo || j.CreatedAt > hi || !j.Ended() || len(j.Attempts) == 0 || j.Outcome() == OutcomeRerouted {
		return trace.Job{}, false
	}
	last := j.Attempts[len(j.Attempts)-1]
	stop := last.StoppedAt
	if stop == 0 {
		stop = j.EndedAt
	}
	dur := (stop - last.StartedAt) / 1000
	if dur < 1 {
		return trace.Job{}, false
	}
	return trace.Job{ID: j.JobName, Submit: (j.CreatedAt - lo) / 1000, Duration: dur, Instances: j.Instances, InstanceType: j.InstanceType,
		Class: j.Class, Team: j.Team, Priority: requestPriority(p, j.Class, j.Priority)}, true
}

// requestPriority is the request priority (0-99) that the class maps to
// schedulingPriority, or trace.NoPriority when none does.
func requestPriority(p *platform.Platform, class string, schedulingPriority int) int {
	c, ok := p.Class(class)
	if !ok {
		return trace.NoPriority
	}
	for r := 0; r <= platform.RequestPriorityMax; r++ {
		if c.SchedulingPriority(r) == schedulingPriority {
			return r
		}
	}
	return trace.NoPriority
}
