package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/trainq/trainq/platform"
)

// Formats are the public trace formats Convert understands.
var Formats = []string{"chronus", "philly", "gavel", "alibaba"}

// ConvertOptions say how a public trace maps onto a platform.
type ConvertOptions struct {
	// Platform gives the teams, classes and instance types to map onto.
	// Required.
	Platform *platform.Platform
	// GPUsPerInstance turns GPU counts into instances: ceil(gpus/n).
	// Default: 8 (ml.p4d.24xlarge and ml.p5.48xlarge have 8 GPUs).
	GPUsPerInstance int
	// InstanceTypes are the types jobs are spread over, by a hash of the job
	// id weighted by each type's pool capacity (so each pool gets its share
	// of the load). Default: the platform's pool types.
	InstanceTypes []string
	// Class is the class given to every job of a format that has no notion
	// of priority (gavel). Default: the platform's middle class by band.
	Class string
}

// ConvertStats counts what a conversion kept and skipped.
type ConvertStats struct {
	Rows, Kept int
	// Skipped counts skipped rows by reason.
	Skipped map[string]int
}

// Convert reads a public trace in format from in and emits its jobs, sorted
// by submit time, mapped as documented in docs/simulate.md:
//   - chronus (alias philly): ChronusArtifact's Philly MIX traces. submit_time
//     → submit_s, duration → duration_s, num_gpu → instances, job_type
//     strict/soft/best → the platform's high/middle/low class, user (a Philly
//     virtual cluster) → a team by hash.
//   - gavel: Gavel's Philly-derived traces. arrival_s, est_duration_v100_s,
//     num_gpus; vc → team by hash; every job gets opts.Class. Rows without a
//     duration are skipped.
//   - alibaba: Alibaba GPU v2023 openb pods. creation_time → submit_s, run_s
//     → duration_s, gpu_equiv → instances, qos LS/Guaranteed → high,
//     Burstable → middle, BE → low; name → team by hash. CPU-only and
//     never-scheduled pods are skipped.
func Convert(format string, in io.Reader, opts ConvertOptions, emit func(Job) error) (ConvertStats, error) {
	st := ConvertStats{Skipped: map[string]int{}}
	if opts.Platform == nil {
		return st, errors.New("convert trace: no platform given")
	}
	if opts.GPUsPerInstance == 0 {
		opts.GPUsPerInstance = 8
	}
	if opts.GPUsPerInstance < 1 {
		return st, fmt.Errorf("convert trace: gpus per instance: got %d, want at least 1", opts.GPUsPerInstance)
	}
	if len(opts.InstanceTypes) == 0 {
		opts.InstanceTypes = opts.Platform.InstanceTypes()
	}
	for _, it := range opts.InstanceTypes {
		if opts.Platform.PoolInstances(it) == 0 {
			return st, fmt.Errorf("convert trace: instance type: got %q, want one of the pools (%s)", it, strings.Join(opts.Platform.InstanceTypes(), ", "))
		}
	}
	high, mid, low := classRanks(opts.Platform)
	if opts.Class == "" {
		opts.Class = mid
	}
	if _, ok := opts.Platform.Class(opts.Class); !ok {
		return st, fmt.Errorf("convert trace: class: got %q, want one of %s", opts.Class, strings.Join(opts.Platform.ClassNames(), ", "))
	}
	m := mapper{opts: opts, teams: opts.Platform.TeamNames()}
	var rowFn func(get func(string) string) (Job, string, error)
	var cols []string
	switch format {
	case "chronus", "philly":
		cols = []string{"job_id", "user", "num_gpu", "submit_time", "duration", "job_type"}
		rowFn = func(get func(string) string) (Job, string, error) {
			class := map[string]string{"strict": high, "soft": mid, "best": low}[get("job_type")]
			if class == "" {
				return Job{}, "", fmt.Errorf("column job_type: got %s, want strict, soft or best", Shorten(get("job_type")))
			}
			return m.job("chronus-"+get("job_id"), get("user"), get("submit_time"), get("duration"), get("num_gpu"), class)
		}
	case "gavel":
		cols = []string{"vc", "arrival_s", "num_gpus", "est_duration_v100_s"}
		rowFn = func(get func(string) string) (Job, string, error) {
			if get("est_duration_v100_s") == "" {
				return Job{}, "no est_duration_v100_s", nil
			}
			return m.job("", get("vc"), get("arrival_s"), get("est_duration_v100_s"), get("num_gpus"), opts.Class)
		}
	case "alibaba":
		cols = []string{"name", "creation_time", "run_s", "num_gpu", "gpu_equiv", "qos", "scheduled_time"}
		rowFn = func(get func(string) string) (Job, string, error) {
			if n, _ := strconv.ParseFloat(get("num_gpu"), 64); n == 0 {
				return Job{}, "cpu only (num_gpu 0)", nil
			}
			if s := get("scheduled_time"); s == "" || strings.EqualFold(s, "nan") {
				return Job{}, "never scheduled", nil
			}
			class := map[string]string{"LS": high, "Guaranteed": high, "Burstable": mid, "BE": low}[get("qos")]
			if class == "" {
				return Job{}, "", fmt.Errorf("column qos: got %s, want LS, Guaranteed, Burstable or BE", Shorten(get("qos")))
			}
			g, err := strconv.ParseFloat(get("gpu_equiv"), 64)
			if err != nil || g <= 0 {
				return Job{}, "", fmt.Errorf("column gpu_equiv: got %s, want a positive number", Shorten(get("gpu_equiv")))
			}
			return m.job(get("name"), get("name"), get("creation_time"), get("run_s"), strconv.Itoa(int(math.Ceil(g))), class)
		}
	default:
		return st, fmt.Errorf("convert trace: format: got %q, want one of %s", format, strings.Join(Formats, ", "))
	}

	bounded := &boundedReader{r: in, line: 1}
	cr := csv.NewReader(bounded)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, errLineTooLong) {
		return st, fmt.Errorf("convert %s trace: %w", format, bounded.tooLong())
	}
	if err != nil {
		return st, fmt.Errorf("convert %s trace: read header: %w", format, err)
	}
	idx := map[string]int{}
	for i, h := range header {
		idx[strings.TrimSpace(h)] = i
	}
	for _, c := range cols {
		if _, ok := idx[c]; !ok {
			return st, fmt.Errorf("convert %s trace: header: got %s, want the column %s", format, Shorten(strings.Join(header, ",")), c)
		}
	}
	var jobs []Job
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, errLineTooLong) {
			return st, fmt.Errorf("convert %s trace: %w", format, bounded.tooLong())
		}
		if err != nil {
			return st, fmt.Errorf("convert %s trace: %w", format, err)
		}
		line, _ := cr.FieldPos(0)
		st.Rows++
		get := func(c string) string {
			if i := idx[c]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		j, skip, err := rowFn(get)
		if err != nil {
			return st, fmt.Errorf("convert %s trace: line %d: %w", format, line, err)
		}
		if skip != "" {
			st.Skipped[skip]++
			continue
		}
		if j.ID == "" {
			j.ID = format + "-" + strconv.Itoa(line)
		}
		jobs = append(jobs, j)
	}
	// Public traces are not sorted by submit time (Gavel's is grouped by
	// virtual cluster); sort stably so equal times keep file order.
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
	for _, j := range jobs {
		if err := emit(j); err != nil {
			return st, err
		}
		st.Kept++
	}
	return st, nil
}

type mapper struct {
	opts  ConvertOptions
	teams []string
}

func (m mapper) job(id, group, submit, duration, gpus, class string) (Job, string, error) {
	s, err := strconv.ParseFloat(submit, 64)
	if err != nil || s < 0 || math.IsNaN(s) {
		return Job{}, "", fmt.Errorf("submit time: got %s, want a number of seconds, at least 0", Shorten(submit))
	}
	d, err := strconv.ParseFloat(duration, 64)
	if err != nil || math.IsNaN(d) || d < 0 {
		return Job{}, "", fmt.Errorf("duration: got %s, want a number of seconds, at least 0", Shorten(duration))
	}
	g, err := strconv.ParseFloat(gpus, 64)
	if err != nil || g < 0 {
		return Job{}, "", fmt.Errorf("gpus: got %s, want a number, at least 0", Shorten(gpus))
	}
	if g == 0 {
		return Job{}, "no GPU", nil
	}
	key := id
	if key == "" {
		key = group + "/" + submit + "/" + duration
	}
	return Job{
		ID:           id,
		Submit:       int64(math.Round(s)),
		Duration:     max(1, int64(math.Round(d))),
		Instances:    int(math.Ceil(g / float64(m.opts.GPUsPerInstance))),
		InstanceType: m.instanceType(key),
		Class:        class,
		Team:         m.teams[hash(group)%uint32(len(m.teams))],
		Priority:     NoPriority,
	}, "", nil
}

// instanceType picks a type for a job key: the hash, modulo the capacity of
// all the types, falls in one type's slice of that capacity.
func (m mapper) instanceType(key string) string {
	total := 0
	for _, it := range m.opts.InstanceTypes {
		total += m.opts.Platform.PoolInstances(it)
	}
	x := int(hash(key) % uint32(total))
	for _, it := range m.opts.InstanceTypes {
		if x -= m.opts.Platform.PoolInstances(it); x < 0 {
			return it
		}
	}
	return m.opts.InstanceTypes[len(m.opts.InstanceTypes)-1]
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// classRanks returns the platform's classes with the highest, a middle and
// the lowest band.
func classRanks(p *platform.Platform) (high, mid, low string) {
	cs := append([]platform.Class(nil), p.Classes...)
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].Priority.Min > cs[b].Priority.Min })
	return cs[0].Name, cs[len(cs)/2].Name, cs[len(cs)-1].Name
}
