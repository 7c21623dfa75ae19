// Package trace reads, writes, generates and converts the job traces that
// `trainq simulate` replays: CSV files with a header and the columns
// submit_s,duration_s,instances,instance_type,class,team and, optionally,
// job_id and priority.
//
// The reader streams (one row at a time, constant memory) and reports every
// bad row with its line number, the column, the value and what is allowed.
// Converters map the public GPU-cluster traces (Philly via Chronus and Gavel,
// Alibaba openb) onto these columns; they read from a path the user gives.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs,
// and it knows nothing of the simulator.
package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Column names of a trace file.
const (
	ColSubmit       = "submit_s"
	ColDuration     = "duration_s"
	ColInstances    = "instances"
	ColInstanceType = "instance_type"
	ColClass        = "class"
	ColTeam         = "team"
	ColJobID        = "job_id"
	ColPriority     = "priority"
)

// RequiredColumns must all appear in a trace header.
var RequiredColumns = []string{ColSubmit, ColDuration, ColInstances, ColInstanceType, ColClass, ColTeam}

// OptionalColumns may appear in a trace header.
var OptionalColumns = []string{ColJobID, ColPriority}

// NoPriority marks a job whose row gave no priority; the simulator then uses
// the platform's default request priority.
const NoPriority = -1

// MaxPriority is the highest request priority a row may give (the platform's
// RequestPriorityMax).
const MaxPriority = 99

// Job is one row of a trace. Times are whole seconds from the trace start.
type Job struct {
	// ID is the row's job_id, or "line-N" when the trace has no job_id.
	ID string
	// Submit is when the job is submitted.
	Submit int64
	// Duration is how long the job runs once all its instances have started.
	Duration int64
	// Instances is how many instances the job needs at once (a gang).
	Instances int
	// InstanceType is the SageMaker instance type, e.g. ml.p5.48xlarge.
	InstanceType string
	// Class is the priority class name.
	Class string
	// Team is the team (share) name.
	Team string
	// Priority is the request priority 0–99 inside the class band, or
	// NoPriority.
	Priority int
	// Line is the 1-based line of the row in its file (0 when generated).
	Line int
}

// LineError is a bad row: its line, the column, the value and what is allowed.
type LineError struct {
	Line    int
	Column  string
	Value   string
	Allowed string
}

func (e *LineError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Allowed)
	}
	return fmt.Sprintf("line %d: column %s: got %q, want %s", e.Line, e.Column, e.Value, e.Allowed)
}

// Reader streams jobs from a trace CSV. Rows must be sorted by submit_s.
type Reader struct {
	r       *csv.Reader
	col     map[string]int
	line    int
	last    int64
	started bool
}

// NewReader reads the header of a trace and returns a Reader positioned at
// the first row.
func NewReader(r io.Reader) (*Reader, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &LineError{Line: 1, Allowed: "a header line naming the columns " + strings.Join(RequiredColumns, ",")}
	}
	if err != nil {
		return nil, fmt.Errorf("read trace header: %w", err)
	}
	line, _ := cr.FieldPos(0)
	known := map[string]bool{}
	for _, c := range append(append([]string{}, RequiredColumns...), OptionalColumns...) {
		known[c] = true
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		if !known[h] {
			return nil, &LineError{Line: line, Column: "header", Value: h,
				Allowed: "one of " + strings.Join(RequiredColumns, ", ") + " (required) or " + strings.Join(OptionalColumns, ", ") + " (optional)"}
		}
		if _, dup := col[h]; dup {
			return nil, &LineError{Line: line, Column: "header", Value: h, Allowed: "each column once"}
		}
		col[h] = i
	}
	for _, c := range RequiredColumns {
		if _, ok := col[c]; !ok {
			return nil, &LineError{Line: line, Column: "header", Value: strings.Join(header, ","),
				Allowed: "a header with the column " + c + " (required: " + strings.Join(RequiredColumns, ",") + ")"}
		}
	}
	return &Reader{r: cr, col: col, line: line}, nil
}

// Next returns the next job, or io.EOF after the last row. An error for a bad
// row is a *LineError.
func (r *Reader) Next() (Job, error) {
	rec, err := r.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Job{}, io.EOF
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return Job{}, &LineError{Line: pe.Line, Allowed: "valid CSV: " + pe.Err.Error()}
		}
		return Job{}, fmt.Errorf("read trace: %w", err)
	}
	line, _ := r.r.FieldPos(0)
	r.line = line
	if len(rec) != len(r.col) {
		return Job{}, &LineError{Line: line, Allowed: fmt.Sprintf("%d fields as in the header, got %d", len(r.col), len(rec))}
	}
	field := func(c string) string {
		i, ok := r.col[c]
		if !ok {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	j := Job{Line: line, Priority: NoPriority}
	if j.Submit, err = seconds(line, ColSubmit, field(ColSubmit), 0); err != nil {
		return Job{}, err
	}
	if r.started && j.Submit < r.last {
		return Job{}, &LineError{Line: line, Column: ColSubmit, Value: field(ColSubmit),
			Allowed: fmt.Sprintf("at least the previous row's %d (rows sorted by submit_s)", r.last)}
	}
	r.started, r.last = true, j.Submit
	if j.Duration, err = seconds(line, ColDuration, field(ColDuration), 1); err != nil {
		return Job{}, err
	}
	v := field(ColInstances)
	n, perr := strconv.Atoi(v)
	if perr != nil || n < 1 {
		return Job{}, &LineError{Line: line, Column: ColInstances, Value: v, Allowed: "a whole number of instances, at least 1"}
	}
	j.Instances = n
	for _, c := range []struct {
		name string
		dst  *string
	}{{ColInstanceType, &j.InstanceType}, {ColClass, &j.Class}, {ColTeam, &j.Team}} {
		*c.dst = field(c.name)
		if *c.dst == "" {
			return Job{}, &LineError{Line: line, Column: c.name, Value: "", Allowed: "a non-empty " + c.name}
		}
	}
	j.ID = field(ColJobID)
	if j.ID == "" {
		j.ID = "line-" + strconv.Itoa(line)
	}
	if v := field(ColPriority); v != "" {
		p, perr := strconv.Atoi(v)
		if perr != nil || p < 0 || p > MaxPriority {
			return Job{}, &LineError{Line: line, Column: ColPriority, Value: v, Allowed: fmt.Sprintf("a whole number 0 to %d, or empty for the default", MaxPriority)}
		}
		j.Priority = p
	}
	return j, nil
}

// seconds parses a non-negative number of seconds (decimals are rounded to
// the nearest second) that is at least min.
func seconds(line int, col, v string, min int64) (int64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e15 {
		return 0, &LineError{Line: line, Column: col, Value: v, Allowed: fmt.Sprintf("a number of seconds, at least %d", min)}
	}
	s := int64(math.Round(f))
	if s < min {
		return 0, &LineError{Line: line, Column: col, Value: v, Allowed: fmt.Sprintf("a number of seconds, at least %d", min)}
	}
	return s, nil
}

// Header is the header Writer writes.
var Header = []string{ColSubmit, ColDuration, ColInstances, ColInstanceType, ColClass, ColTeam, ColJobID, ColPriority}

// Writer writes jobs as a trace CSV with the full Header.
type Writer struct {
	w   *csv.Writer
	rec []string
}

// NewWriter writes the header and returns a Writer.
func NewWriter(w io.Writer) (*Writer, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return nil, fmt.Errorf("write trace header: %w", err)
	}
	return &Writer{w: cw, rec: make([]string, len(Header))}, nil
}

// Write writes one job; a job with NoPriority gets an empty priority.
func (w *Writer) Write(j Job) error {
	w.rec[0] = strconv.FormatInt(j.Submit, 10)
	w.rec[1] = strconv.FormatInt(j.Duration, 10)
	w.rec[2] = strconv.Itoa(j.Instances)
	w.rec[3] = j.InstanceType
	w.rec[4] = j.Class
	w.rec[5] = j.Team
	w.rec[6] = j.ID
	w.rec[7] = ""
	if j.Priority != NoPriority {
		w.rec[7] = strconv.Itoa(j.Priority)
	}
	if err := w.w.Write(w.rec); err != nil {
		return fmt.Errorf("write job %q: %w", j.ID, err)
	}
	return nil
}

// Flush writes buffered rows and returns any write error.
func (w *Writer) Flush() error {
	w.w.Flush()
	if err := w.w.Error(); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	return nil
}
