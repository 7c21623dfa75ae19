package trace_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

func readAll(s string) ([]trace.Job, error) { return readAllFrom(strings.NewReader(s)) }

func readAllFrom(in io.Reader) ([]trace.Job, error) {
	r, err := trace.NewReader(in)
	if err != nil {
		return nil, err
	}
	var out []trace.Job
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, j)
	}
}

func TestReaderReadsRowsInAnyColumnOrder(t *testing.T) {
	got, err := readAll("team,class,instance_type,instances,duration_s,submit_s,priority\n" +
		"a,sweep,ml.p5.48xlarge,2,3600,0,\n" +
		"b,production,ml.p4d.24xlarge,1,59.6,10.4,99\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Job{
		{ID: "line-2", Submit: 0, Duration: 3600, Instances: 2, InstanceType: "ml.p5.48xlarge", Class: "sweep", Team: "a", Priority: trace.NoPriority, Line: 2},
		// 10.4 s rounds to 10, 59.6 s to 60.
		{ID: "line-3", Submit: 10, Duration: 60, Instances: 1, InstanceType: "ml.p4d.24xlarge", Class: "production", Team: "b", Priority: 99, Line: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
}

func TestReaderErrorsNameLineColumnValueAndAllowed(t *testing.T) {
	const header = "submit_s,duration_s,instances,instance_type,class,team\n"
	const good = "0,10,1,ml.p5.48xlarge,sweep,a\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"an empty file has no header", "", "line 1: a header line"},
		{"an unknown column", "submit_s,duration_s,instances,instance_type,class,team,gpus\n", `column header: got "gpus", want one of`},
		{"a missing column", "submit_s,duration_s,instances,instance_type,class\n", "the column team"},
		{"a negative submit time", header + "-5,10,1,ml.p5.48xlarge,sweep,a\n", `line 2: column submit_s: got "-5", want a number of seconds from 0 to 1e15`},
		{"a zero duration", header + good + "1,0,1,ml.p5.48xlarge,sweep,a\n", `line 3: column duration_s: got "0", want a number of seconds from 1 to 1e15`},
		{"a fractional instance count", header + "0,10,1.5,ml.p5.48xlarge,sweep,a\n", `line 2: column instances: got "1.5", want a whole number of instances, at least 1`},
		{"an empty team", header + "0,10,1,ml.p5.48xlarge,sweep,\n", `line 2: column team: got "", want a non-empty team`},
		{"a priority out of range", "submit_s,duration_s,instances,instance_type,class,team,priority\n0,10,1,ml.p5.48xlarge,sweep,a,100\n", `line 2: column priority: got "100", want a whole number 0 to 99`},
		{"rows out of submit order", header + "50,10,1,ml.p5.48xlarge,sweep,a\n" + good, `line 3: column submit_s: got "0", want at least the previous row's 50`},
		{"a short row", header + "0,10,1\n", "line 2: 6 fields as in the header, got 3"},
		{"a submit time past the cap", header + "2e15,10,1,ml.p5.48xlarge,sweep,a\n", `line 2: column submit_s: got "2e15", want a number of seconds from 0 to 1e15`},
		{"a NUL in a team", header + "0,10,1,ml.p5.48xlarge,sweep,a\x00b\n", `line 2: column team: got "a\x00b", want text without NUL`},
		{"bytes that are not UTF-8", header + "0,10,1,ml.p5.48xlarge,sw\xffeep,a\n", `line 2: column class: got "sw\xffeep", want UTF-8 text`},
		{"a team name of 300 bytes", header + "0,10,1,ml.p5.48xlarge,sweep," + strings.Repeat("t", 300) + "\n", `line 2: column team: got "tttt`},
		{"a job id given twice", "job_id,submit_s,duration_s,instances,instance_type,class,team\n" + "j1,0,10,1,ml.p5.48xlarge,sweep,a\n" +
			"j2,0,10,1,ml.p5.48xlarge,sweep,a\n" + "j1,5,10,1,ml.p5.48xlarge,sweep,a\n", `line 4: column job_id: got "j1", want a job id of its own (line 2 has it already)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readAll(tc.in)
			var le *trace.LineError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a *LineError containing %q", err, tc.want)
			}
		})
	}
}

func TestWriterOutputReadsBack(t *testing.T) {
	jobs := []trace.Job{
		{ID: "j1", Submit: 5, Duration: 100, Instances: 4, InstanceType: "ml.p5.48xlarge", Class: "research", Team: "a", Priority: 7},
		{ID: "j2", Submit: 9, Duration: 1, Instances: 1, InstanceType: "ml.p4d.24xlarge", Class: "sweep", Team: "b", Priority: trace.NoPriority},
	}
	var b bytes.Buffer
	w, err := trace.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if err := w.Write(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(b.String())
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i].Line = 0
	}
	if diff := cmp.Diff(jobs, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func generate(t *testing.T, seed uint64, n int) []trace.Job {
	t.Helper()
	var out []trace.Job
	if err := trace.Generate(platform.Default(), trace.GenerateOptions{Seed: seed, Jobs: n}, func(j trace.Job) error {
		out = append(out, j)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGenerateIsSeededAndSorted(t *testing.T) {
	a, b, c := generate(t, 9, 500), generate(t, 9, 500), generate(t, 10, 500)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different traces:\n%s", diff)
	}
	if cmp.Equal(a, c) {
		t.Error("seeds 9 and 10 gave the same trace")
	}
	p := platform.Default()
	classes := map[string]int{}
	for i, j := range a {
		if i > 0 && j.Submit < a[i-1].Submit {
			t.Fatalf("job %s submitted at %d before the previous %d", j.ID, j.Submit, a[i-1].Submit)
		}
		if _, ok := p.Class(j.Class); !ok {
			t.Errorf("job %s: class %q not in the platform", j.ID, j.Class)
		}
		if _, ok := p.Team(j.Team); !ok {
			t.Errorf("job %s: team %q not in the platform", j.ID, j.Team)
		}
		if j.Instances > p.PoolInstances(j.InstanceType) {
			t.Errorf("job %s: %d instances, pool has %d", j.ID, j.Instances, p.PoolInstances(j.InstanceType))
		}
		classes[j.Class]++
	}
	if len(classes) != 3 {
		t.Errorf("classes used %v, want all three", classes)
	}
}

func TestConvertMapsColumns(t *testing.T) {
	p := platform.Default()
	chronus := "job_id,user,num_gpu,submit_time,iterations,model_name,duration,interval,expect_time_list,expect_value_list,best_effort,job_type\n" +
		"0,vc_a,16,8555,1,vgg16,747,14,1105,10,0,strict\n" +
		"1,vc_b,1,832,1,m,98,8,128,10,0,best\n" +
		"2,vc_c,0,900,1,m,98,8,128,10,0,best\n"
	var got []trace.Job
	st, err := trace.Convert("philly", strings.NewReader(chronus), trace.ConvertOptions{Platform: p, InstanceTypes: []string{"ml.p4d.24xlarge"}},
		func(j trace.Job) error { got = append(got, j); return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Sorted by submit time: job 1 (832) before job 0 (8555). 16 GPUs at 8
	// per instance = 2 instances; strict → production, best → sweep; the
	// 0-GPU row is skipped.
	if len(got) != 2 || got[0].ID != "chronus-1" || got[1].ID != "chronus-0" {
		t.Fatalf("jobs %+v, want chronus-1 then chronus-0", got)
	}
	if got[1].Instances != 2 || got[1].Class != "production" || got[0].Class != "sweep" || got[1].Duration != 747 || got[1].Submit != 8555 {
		t.Errorf("chronus-0 mapped to %+v", got[1])
	}
	if st.Skipped["no GPU"] != 1 || st.Kept != 2 || st.Rows != 3 {
		t.Errorf("stats %+v, want 3 rows, 2 kept, 1 skipped for no GPU", st)
	}
	_, err = trace.Convert("philly", strings.NewReader(strings.Replace(chronus, "strict", "urgent", 1)), trace.ConvertOptions{Platform: p}, func(trace.Job) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `line 2: column job_type: got "urgent"`) {
		t.Errorf("error %v, want it to name line 2 and job_type", err)
	}
}

// TestGenerateOffersTheLoad: the generated trace's instance-seconds ÷ (the
// pools' 100 instances × the span of its submissions) is the load asked for,
// within 2% over 50,000 jobs (the arrival rate is set from the classes' mean
// sizes and durations, so the load holds in expectation).
func TestGenerateOffersTheLoad(t *testing.T) {
	p := platform.Default()
	for _, load := range []float64{0.3, trace.DefaultLoad, 0.9} {
		var work, first, last int64
		n := 0
		if err := trace.Generate(p, trace.GenerateOptions{Seed: 1, Jobs: 50000, Load: load}, func(j trace.Job) error {
			if n == 0 {
				first = j.Submit
			}
			last = j.Submit
			work += j.Duration * int64(j.Instances)
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		got := float64(work) / (float64(p.TotalInstances()) * float64(last-first))
		if got < load*0.98 || got > load*1.02 {
			t.Errorf("load %g: the trace offers %.4f of the pools' capacity", load, got)
		}
	}
}

// longLine is a trace whose line 3 is a job id of n bytes, produced as it is
// read: the test never holds it.
func longLine(n int64) io.Reader {
	return io.MultiReader(
		strings.NewReader("job_id,submit_s,duration_s,instances,instance_type,class,team\nj1,0,10,1,ml.p5.48xlarge,sweep,a\n"),
		io.LimitReader(repeatByte('x'), n),
		strings.NewReader(",0,10,1,ml.p5.48xlarge,sweep,a\n"))
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestALongLineIsRefusedInBoundedMemory: a 100 MiB line is refused with its
// line number, having allocated far less than 64 MiB (the reader stops at
// 64 KiB of the line), with an error under 4 KiB.
func TestALongLineIsRefusedInBoundedMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readAllFrom(longLine(100 << 20))
	runtime.ReadMemStats(&after)
	var le *trace.LineError
	if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), "line 3: a line of at most 64 KiB") {
		t.Fatalf("error %v, want line 3 refused as longer than 64 KiB", err)
	}
	if n := len(err.Error()); n >= 4<<10 {
		t.Errorf("the error is %d bytes, want under 4 KiB", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading up to the refusal allocated %d MiB, want at most 64 MiB", alloc>>20)
	} else {
		t.Logf("allocated %d KiB in all before refusing a 100 MiB line", alloc>>10)
	}
	// A line just within the bound is read (its id, of course, is then
	// over the field bound: named with its length, quoted in part).
	_, err = readAllFrom(longLine(trace.MaxLineBytes - 100))
	if !errors.As(err, &le) || le.Line != 3 || !strings.Contains(err.Error(), "(65436 bytes), want at most 256 bytes") || len(err.Error()) > 300 {
		t.Errorf("a line of 64 KiB less 100 bytes with a 65,436-byte id: %v", err)
	}
}
