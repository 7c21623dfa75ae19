package simulate

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Outcome is how a job ended.
type Outcome string

// Outcomes.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeFailed    Outcome = "failed"
)

// attemptOutcome is how one attempt ended.
type attemptOutcome uint8

const (
	attemptCompleted attemptOutcome = iota + 1
	attemptPreempted
	attemptTimedOut
)

// JobRecord is what happened to one job, handed to Options.Jobs when the
// job ends. Times are simulated seconds.
type JobRecord struct {
	ID           string
	Team         string
	Class        string
	InstanceType string
	Instances    int
	Submit       int64
	// Start is when the last attempt started; -1 when the job never started.
	Start int64
	// End is when the job completed or failed.
	End int64
	// Wait is End − Submit less the time the job ran (all attempts): the
	// time it spent waiting, including after preemptions and timeouts.
	Wait int64
	// Attempts is how many attempts started.
	Attempts    int
	Preemptions int
	Timeouts    int
	// LostSeconds is the time run by attempts that did not complete
	// (preempted or timed out) less what checkpoints kept of them, for a
	// job that completed; all of it for a job that failed. Times
	// Instances, it is the job's lost work.
	LostSeconds int64
	// SavedSeconds is the time of those attempts that checkpoints kept
	// (R22): a completed job resumed from it.
	SavedSeconds int64
	Outcome      Outcome
	// Reason says why the job failed ("" when it completed).
	Reason string
	// Moves is how many times the re-router moved the job (R23), and
	// RanOn the instance type it was on at the end (InstanceType is the
	// trace's).
	Moves int
	RanOn string
}

func (e *engine) record(j *job, outcome Outcome, reason string) JobRecord {
	start := j.start
	if j.starts == 0 {
		start = -1
	}
	lost := j.lost
	if outcome == OutcomeFailed {
		lost += j.saved
	}
	return JobRecord{ID: j.id, Team: e.teams.recordName(int(j.share)), Class: e.classes[j.class].Name, InstanceType: e.types[j.typ0],
		Instances: int(j.k), Submit: j.submit, Start: start, End: e.now, Wait: e.now - j.submit - j.runTotal,
		Attempts: int(j.starts), Preemptions: int(j.preempts), Timeouts: int(j.timeouts), LostSeconds: lost,
		SavedSeconds: j.saved, Outcome: outcome, Reason: reason, Moves: int(j.moves), RanOn: e.types[j.typ]}
}

// JobsHeader is the header of the per-job CSV (`trainq simulate --jobs`).
var JobsHeader = []string{"job_id", "policy", "team", "class", "instance_type", "instances", "submit_s", "start_s",
	"end_s", "wait_s", "attempts", "preemptions", "timeouts", "lost_s", "outcome", "reason", "saved_s", "moves", "ran_on"}

// JobsCSV writes one CSV row per job and run.
type JobsCSV struct {
	w   *csv.Writer
	rec []string
}

// NewJobsCSV writes the header and returns a writer.
func NewJobsCSV(w io.Writer) (*JobsCSV, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(JobsHeader); err != nil {
		return nil, fmt.Errorf("write jobs header: %w", err)
	}
	return &JobsCSV{w: cw, rec: make([]string, len(JobsHeader))}, nil
}

// Write writes r as a row of the run labelled run. A job that never started
// has an empty start_s.
func (c *JobsCSV) Write(run string, r JobRecord) error {
	c.rec[0], c.rec[1], c.rec[2], c.rec[3], c.rec[4] = r.ID, run, r.Team, r.Class, r.InstanceType
	c.rec[5] = strconv.Itoa(r.Instances)
	c.rec[6] = strconv.FormatInt(r.Submit, 10)
	c.rec[7] = ""
	if r.Start >= 0 {
		c.rec[7] = strconv.FormatInt(r.Start, 10)
	}
	c.rec[8] = strconv.FormatInt(r.End, 10)
	c.rec[9] = strconv.FormatInt(r.Wait, 10)
	c.rec[10] = strconv.Itoa(r.Attempts)
	c.rec[11] = strconv.Itoa(r.Preemptions)
	c.rec[12] = strconv.Itoa(r.Timeouts)
	c.rec[13] = strconv.FormatInt(r.LostSeconds, 10)
	c.rec[14] = string(r.Outcome)
	c.rec[15] = r.Reason
	c.rec[16] = strconv.FormatInt(r.SavedSeconds, 10)
	c.rec[17] = strconv.Itoa(r.Moves)
	c.rec[18] = r.RanOn
	if err := c.w.Write(c.rec); err != nil {
		return fmt.Errorf("write jobs row: %w", err)
	}
	return nil
}

// Flush writes buffered rows and returns any write error.
func (c *JobsCSV) Flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("write jobs: %w", err)
	}
	return nil
}
