package simulate_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// TestRunFrom runs the embedded default platform (40 ml.p5.48xlarge;
// search-ranking's quota 24 and search-research's 16, each may borrow 100%;
// production 432000 s, 2 retries; research 259200 s, 1 retry, checkpoints
// every 1800 s) from a present state.
func TestRunFrom(t *testing.T) {
	p := platform.Default()
	const ranking, research = "search-ranking", "search-research"
	tests := []struct {
		name     string
		from     simulate.From
		arrivals []trace.Job
		want     []string
	}{
		{
			// SCHEDULED: placed, 0 s run. It holds all 40 for its 432000 s
			// of work, which is exactly its limit: it completes at 432000
			// without timing out, and the research job of its own team
			// (lower priority, no preemption of production) starts then.
			name: "a placed job not yet running holds its instances for its limit, once",
			from: simulate.From{
				Placed:  []simulate.Placed{{Job: j("placed", 0, 432000, 40, "production", ranking)}},
				Waiting: []trace.Job{j("waiting", 0, 100, 8, "research", ranking)},
			},
			want: []string{"start placed@0", "done placed@432000", "start waiting@432000", "done waiting@432100"},
		},
		{
			// 259200 − 252000 = 7200 s left of its attempt, 10000 s of work:
			// it times out at 7200; its checkpoints kept ⌊7200/1800⌋·1800 =
			// 7200 s, so its retry (research: 2 attempts) restarts at once
			// with 10000 − 7200 = 2800 s and completes at 10000.
			name: "an attempt that reaches its limit times out, counting what it ran before",
			from: simulate.From{Placed: []simulate.Placed{{Job: j("late", 0, 10000, 8, "research", ranking), Elapsed: 252000}}},
			want: []string{"start late@0", "timeout late@7200", "start late@7200", "done late@10000"},
		},
		{
			// At 3600 "hold" frees 24 of search-ranking's quota (search-
			// research holds its own 16): room for one job of 16. The older
			// one (submitted 500 s ago) goes first though listed second; it
			// ends at 4600 and the younger starts then.
			name: "waiting jobs keep their age order",
			from: simulate.From{
				Placed:  []simulate.Placed{{Job: j("hold", 0, 3600, 24, "research", ranking)}, {Job: j("other", 0, 7200, 16, "sweep", research)}},
				Waiting: []trace.Job{j("young", -100, 1000, 16, "research", ranking), j("old", -500, 1000, 16, "research", ranking)},
			},
			want: []string{"start hold@0", "start other@0", "done hold@3600", "start old@3600", "done old@4600", "start young@4600",
				"done young@5600", "done other@7200"},
		},
		{
			// "hold" is production: nothing preempts it. The production job
			// submitted at 100 goes before the research job waiting since
			// before 0 (priority first): it runs 3600 to 7200, and the
			// research job starts at 7200.
			name: "a later arrival of a higher class overtakes a waiting job",
			from: simulate.From{
				Placed:  []simulate.Placed{{Job: j("hold", 0, 3600, 40, "production", ranking)}},
				Waiting: []trace.Job{j("waiting", -1000, 100, 40, "research", ranking)},
			},
			arrivals: []trace.Job{j("urgent", 100, 3600, 40, "production", ranking)},
			want:     []string{"start hold@0", "done hold@3600", "start urgent@3600", "done urgent@7200", "start waiting@7200", "done waiting@7300"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			if _, err := simulate.RunFrom(p, tt.from, &simulate.SliceSource{Jobs: tt.arrivals}, simulate.Options{Observer: rec}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, rec.lines); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
		})
	}
}

func TestRunFromRefusesWhatItCannotPlace(t *testing.T) {
	p := platform.Default()
	for _, from := range []simulate.From{
		{Placed: []simulate.Placed{{Job: j("x", 0, 1, 1, "urgent", "search-ranking")}}},
		{Waiting: []trace.Job{j("y", 10, 1, 1, "sweep", "search-ranking")}},
	} {
		if _, err := simulate.RunFrom(p, from, &simulate.SliceSource{}, simulate.Options{}); err == nil {
			t.Errorf("%+v: no error", from)
		}
	}
}
