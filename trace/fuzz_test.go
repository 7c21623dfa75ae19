package trace_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/trainq/trainq/trace"
)

// FuzzReader: any input either reads as jobs that satisfy the documented
// bounds or fails with a *LineError naming a line; it never panics.
func FuzzReader(f *testing.F) {
	f.Add("submit_s,duration_s,instances,instance_type,class,team\n0,10,1,ml.p5.48xlarge,sweep,a\n")
	f.Add("team,class,instance_type,instances,duration_s,submit_s,priority,job_id\na,b,c,2,3.5,1e3,99,x\n")
	f.Add("submit_s,duration_s,instances,instance_type,class,team\n\"0,10,1\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := trace.NewReader(strings.NewReader(in))
		if err != nil {
			return
		}
		last := int64(-1)
		for range 1000 {
			j, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				var le *trace.LineError
				if errors.As(err, &le) && le.Line < 1 {
					t.Fatalf("error %v names line %d", err, le.Line)
				}
				return
			}
			if j.Submit < last || j.Duration < 1 || j.Instances < 1 || j.Class == "" || j.Team == "" || j.InstanceType == "" ||
				(j.Priority != trace.NoPriority && (j.Priority < 0 || j.Priority > trace.MaxPriority)) {
				t.Fatalf("job out of bounds: %+v", j)
			}
			last = j.Submit
		}
	})
}
