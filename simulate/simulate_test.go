package simulate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

const (
	p5  = "ml.p5.48xlarge"
	p4d = "ml.p4d.24xlarge"
)

// mustParse parses a platform description or fails the test.
func mustParse(t *testing.T, y string) *platform.Platform {
	t.Helper()
	p, err := platformfile.Parse([]byte(y))
	if err != nil {
		t.Fatalf("parse platform: %v\n%s", err, y)
	}
	return p
}

// quotaPlatform builds a quota platform of one ml.p5.48xlarge pool; teams is
// YAML for the teams list.
func quotaPlatform(t *testing.T, pool int, teams string) *platform.Platform {
	return mustParse(t, fmt.Sprintf("pools: [{instanceType: %s, instances: %d}]\nteams:\n%s", p5, pool, teams))
}

// j builds a trace job on ml.p5.48xlarge.
func j(id string, submit, dur int64, k int, class, team string) trace.Job {
	return trace.Job{ID: id, Submit: submit, Duration: dur, Instances: k, InstanceType: p5, Class: class, Team: team, Priority: trace.NoPriority}
}

// recorder keeps "kind id@time" lines.
type recorder struct{ lines []string }

func (r *recorder) Observe(e simulate.Event, _ *simulate.State) {
	kind := map[simulate.EventKind]string{simulate.EventStart: "start", simulate.EventPreempt: "preempt",
		simulate.EventTimeout: "timeout", simulate.EventComplete: "done", simulate.EventFail: "fail", simulate.EventMove: "move"}[e.Kind]
	if e.Kind == simulate.EventMove {
		r.lines = append(r.lines, fmt.Sprintf("move %s@%d %s→%s", e.JobID, e.At, e.From, e.InstanceType))
		return
	}
	r.lines = append(r.lines, fmt.Sprintf("%s %s@%d", kind, e.JobID, e.At))
}

func (r *recorder) only(kinds ...string) []string {
	var out []string
	for _, l := range r.lines {
		for _, k := range kinds {
			if strings.HasPrefix(l, k+" ") {
				out = append(out, l)
			}
		}
	}
	return out
}

func run(t *testing.T, p *platform.Platform, pol simulate.Policy, jobs ...trace.Job) (*simulate.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	res, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: pol, Observer: rec})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, rec
}

func TestRowErrorsNameTheLine(t *testing.T) {
	p := platform.Default()
	for _, tc := range []struct {
		name string
		job  trace.Job
		want string
	}{
		{"unknown team", trace.Job{Line: 7, Team: "nope", Class: "sweep", InstanceType: p5, Instances: 1, Duration: 1}, "line 7: column team"},
		{"unknown class", trace.Job{Line: 8, Team: "search-ranking", Class: "urgent", InstanceType: p5, Instances: 1, Duration: 1}, "line 8: column class"},
		{"unknown instance type", trace.Job{Line: 9, Team: "search-ranking", Class: "sweep", InstanceType: "ml.g5.xlarge", Instances: 1, Duration: 1}, "line 9: column instance_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := simulate.Run(p, &simulate.SliceSource{Jobs: []trace.Job{tc.job}}, simulate.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
