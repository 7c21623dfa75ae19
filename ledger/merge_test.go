package ledger

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// permutations calls fn with every order of n items (Heap's algorithm).
func permutations(n int, fn func([]int)) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	c := make([]int, n)
	fn(p)
	for i := 0; i < n; {
		if c[i] < i {
			if i%2 == 0 {
				p[0], p[i] = p[i], p[0]
			} else {
				p[c[i]], p[i] = p[i], p[c[i]]
			}
			fn(p)
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
}

func TestEveryOrderOfAJobsEventsGivesTheSameItem(t *testing.T) {
	events := lifeOf("job-1")
	want := wantJob("job-1")
	orders, bad := 0, 0
	permutations(len(events), func(p []int) {
		orders++
		var j Job
		for _, i := range p {
			Merge(&j, events[i])
		}
		if diff := cmp.Diff(want, j); diff != "" {
			if bad++; bad <= 3 {
				t.Errorf("order %v (-want +got):\n%s", p, diff)
			}
		}
	})
	// 8! = 40320
	if orders != 40320 {
		t.Fatalf("tried %d orders, want 8! = 40320", orders)
	}
	if bad > 0 {
		t.Errorf("%d of %d orders gave another item", bad, orders)
	}
}

func TestRepeatedEventsChangeNothingAndCountNothingTwice(t *testing.T) {
	events := lifeOf("job-1")
	want := wantJob("job-1")
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		seq := r.Perm(len(events))
		for range r.IntN(12) { // duplicates anywhere
			seq = append(seq, r.IntN(len(events)))
		}
		r.Shuffle(len(seq), func(a, b int) { seq[a], seq[b] = seq[b], seq[a] })
		var j Job
		for _, i := range seq {
			Merge(&j, events[i])
		}
		if diff := cmp.Diff(want, j); diff != "" {
			t.Fatalf("sequence %d %v (-want +got):\n%s", n, seq, diff)
		}
		for i := range events {
			if Merge(&j, events[i]) {
				t.Fatalf("sequence %d: event %d again changed the item", n, i)
			}
		}
	}
}

func TestALateEventNeverMovesAJobBackwards(t *testing.T) {
	events := lifeOf("job-1")
	for i := range events {
		var j Job
		for _, e := range events[:i+1] {
			Merge(&j, e)
		}
		at := j.Status
		for _, late := range events[:i] {
			Merge(&j, late)
			if j.Status != at {
				t.Errorf("after event %d (%s), the earlier %s event moved the job to %s", i, at, late.Status, j.Status)
			}
		}
	}
}

func TestOutcomes(t *testing.T) {
	succeeded := wantJob("a")
	preemptedOut := wantJob("b")
	preemptedOut.Attempts = preemptedOut.Attempts[:1]
	preemptedOut.Status, preemptedOut.StatusReason = "FAILED", "Job preemption retries exhausted"
	timedOut := wantJob("c")
	timedOut.Status, timedOut.StatusReason = "FAILED", "Job attempt duration exceeded timeout"
	timedOut.TimeoutSeconds = 3600 // attempt 2 ran stop2-start2 = 3600 s
	cancelled := wantJob("d")
	cancelled.Status, cancelled.StatusReason = "FAILED", "trainq: cancelled by operator: through trainq"
	moved := wantJob("e")
	moved.Status, moved.StatusReason = "FAILED", "trainq: rerouted to job-9 on ml.p4d.24xlarge"
	running := wantJob("f")
	running.Status = "RUNNING"
	for _, c := range []struct {
		name string
		job  Job
		want string
	}{
		{"the job succeeded", succeeded, OutcomeSucceeded},
		{"its last attempt was preempted and it failed", preemptedOut, OutcomePreempted},
		{"its last attempt ran its 3600 s timeout", timedOut, OutcomeTimedOut},
		{"trainq cancelled it", cancelled, OutcomeCancelled},
		{"the re-router moved it", moved, OutcomeRerouted},
		{"it runs", running, OutcomeRunning},
	} {
		if got := c.job.Outcome(); got != c.want {
			t.Errorf("%s: outcome %q, want %q", c.name, got, c.want)
		}
	}
	if got := moved.MovedTo(); got != "job-9" {
		t.Errorf("moved to %q, want job-9", got)
	}
}
