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
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	stdhash "hash"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Bounds of a trace's input, so that a hostile or broken file is refused
// with its line in bounded memory rather than read whole.
const (
	// MaxLineBytes bounds one line of a trace; a row is a few dozen bytes.
	MaxLineBytes = 64 << 10
	// MaxFieldBytes bounds one field (a job id, a team, a class, an
	// instance type), well above AWS Batch's 128-character names.
	MaxFieldBytes = 256
	// MaxSeconds bounds submit_s and duration_s (about 31.7 million years),
	// so that sums of them stay exact in an int64.
	MaxSeconds = 1e15
	// maxShownBytes bounds a value quoted in an error message.
	maxShownBytes = 64
)

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
	return fmt.Sprintf("line %d: column %s: got %s, want %s", e.Line, e.Column, Shorten(e.Value), e.Allowed)
}

// Shorten quotes a value for a message, cut to its first 64 bytes (with its
// length) when it is longer, so that no message grows with its input.
func Shorten(v string) string {
	if len(v) <= maxShownBytes {
		return fmt.Sprintf("%q", v)
	}
	cut := maxShownBytes
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", v[:cut], len(v))
}

// Reader streams jobs from a trace CSV. Rows must be sorted by submit_s,
// and job ids, when given, must differ.
type Reader struct {
	r       *csv.Reader
	in      *boundedReader
	col     map[string]int
	line    int
	last    int64
	started bool
	// ids are the job ids read so far (a 128-bit FNV-1a hash of each,
	// with its line): 24 bytes a job rather than the id itself.
	ids map[[16]byte]int
	h   stdhash.Hash
}

// NewReader reads the header of a trace and returns a Reader positioned at
// the first row. A line longer than MaxLineBytes, a field longer than
// MaxFieldBytes, a NUL or bytes that are not UTF-8 are refused with their
// line, having read at most MaxLineBytes of the line.
func NewReader(r io.Reader) (*Reader, error) {
	in := &boundedReader{r: r, line: 1}
	cr := csv.NewReader(in)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, errLineTooLong) {
		return nil, in.tooLong()
	}
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
	rd := &Reader{r: cr, in: in, col: col, line: line, h: fnv.New128a()}
	if _, ok := col[ColJobID]; ok {
		rd.ids = map[[16]byte]int{}
	}
	return rd, nil
}

// errLineTooLong is what boundedReader returns for a line over MaxLineBytes.
var errLineTooLong = errors.New("line too long")

// boundedReader passes bytes through, counting lines, and fails once a line
// runs past MaxLineBytes: csv.Reader holds a whole line in memory, so
// without it a line of a GiB would be read whole before any check.
type boundedReader struct {
	r io.Reader
	// line is the current line (1-based), run the bytes since its start.
	line, run int
	// longLine is the line that ran over, once one has.
	longLine int
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.longLine > 0 {
		return 0, errLineTooLong
	}
	n, err := b.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			b.run += n - i
			break
		}
		b.run += j
		if b.run > MaxLineBytes {
			break
		}
		b.line++
		b.run = 0
		i += j + 1
	}
	if b.run > MaxLineBytes {
		b.longLine = b.line
		return 0, errLineTooLong
	}
	return n, err
}

// Next returns the next job, or io.EOF after the last row. An error for a bad
// row is a *LineError.
func (r *Reader) Next() (Job, error) {
	rec, err := r.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return Job{}, io.EOF
		}
		if errors.Is(err, errLineTooLong) {
			return Job{}, r.in.tooLong()
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
	for c, i := range r.col {
		if err := checkText(line, c, rec[i]); err != nil {
			return Job{}, err
		}
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
	if r.ids != nil {
		if err := r.unique(line, j.ID); err != nil {
			return Job{}, err
		}
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

// tooLong is the error for the line that ran past MaxLineBytes.
func (b *boundedReader) tooLong() error {
	return &LineError{Line: b.longLine, Allowed: fmt.Sprintf("a line of at most %d KiB (a row is a few dozen bytes; this line is longer, and was not read further)", MaxLineBytes>>10)}
}

// checkText refuses a field that is too long, holds a NUL or another
// control character, or is not UTF-8: such a value would be copied into
// the jobs CSV and the report.
func checkText(line int, col, v string) error {
	switch {
	case len(v) > MaxFieldBytes:
		return &LineError{Line: line, Column: col, Value: v, Allowed: fmt.Sprintf("at most %d bytes", MaxFieldBytes)}
	case !utf8.ValidString(v):
		return &LineError{Line: line, Column: col, Value: v, Allowed: "UTF-8 text (these bytes are not)"}
	case strings.ContainsFunc(v, unicode.IsControl):
		return &LineError{Line: line, Column: col, Value: v, Allowed: "text without NUL or other control characters"}
	}
	return nil
}

// unique refuses a job id given on an earlier line.
func (r *Reader) unique(line int, id string) error {
	r.h.Reset()
	io.WriteString(r.h, id)
	var k [16]byte
	r.h.Sum(k[:0])
	if first, dup := r.ids[k]; dup {
		return &LineError{Line: line, Column: ColJobID, Value: id, Allowed: fmt.Sprintf("a job id of its own (line %d has it already)", first)}
	}
	r.ids[k] = line
	return nil
}

// seconds parses a number of seconds from min to MaxSeconds (decimals are
// rounded to the nearest second).
func seconds(line int, col, v string, min int64) (int64, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Round(f) < float64(min) || f > MaxSeconds {
		return 0, &LineError{Line: line, Column: col, Value: v, Allowed: fmt.Sprintf("a number of seconds from %d to 1e15 (about 31.7 million years)", min)}
	}
	return int64(math.Round(f)), nil
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

// Sort orders jobs as a trace lists them: by submit time, then by job id
// (an exported trace's order, whatever order its jobs were read in).
func Sort(jobs []Job) {
	slices.SortStableFunc(jobs, func(a, b Job) int {
		if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}
