package submit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/submit"
)

// historySource answers with h (or err) and notes the window it was asked.
type historySource struct {
	h        *contract.History
	err      error
	from, to time.Time
}

func (s *historySource) History(_ context.Context, from, to time.Time) (*contract.History, error) {
	s.from, s.to = from, to
	return s.h, s.err
}

// TestQueueCarriesHistory: the queue answer carries the history source's
// summary of the 7 days before now, cut to the contract's bounds; without a
// source, or when it fails, it says why there is none.
func TestQueueCarriesHistory(t *testing.T) {
	big := &contract.History{Source: "job ledger", From: "2026-11-24T16:00:00Z", To: "2026-12-01T16:00:00Z"}
	for g := range contract.MaxHistoryGroups + 3 {
		grp := contract.HistoryGroup{Class: "research", Team: fmt.Sprintf("team-%d", g), Submitted: 70, Completed: 60, SubmittedByHour: make([]int, 24)}
		for range contract.MaxHistorySamples + 5 {
			grp.Jobs = append(grp.Jobs, contract.HistoryJob{InstanceType: p5, Instances: 2, SchedulingPriority: 550, RunSeconds: 3600})
		}
		big.Groups = append(big.Groups, grp)
	}
	for _, tt := range []struct {
		name      string
		src       *historySource
		groups    int
		noHistory string
	}{
		{"no source", nil, 0, "no job ledger is configured"},
		{"a failing source", &historySource{err: errors.New("throttled")}, 0, "the job ledger could not be read"},
		// 67 groups of 53 jobs: 64 of 48 each.
		{"a source with more than the bounds", &historySource{h: big}, contract.MaxHistoryGroups, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandlerWith(t, mustParse(t, explainPlatform), fake, fastPolicy, func(c *submit.Config) {
				c.Now = func() time.Time { return queueNow }
				if tt.src != nil {
					c.History = tt.src
				}
			})
			got, ferr := invoke(t, invocation("", "req-1"), h, []byte(`{"action":"queue"}`))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			q := got.Queue
			if !strings.HasPrefix(q.NoHistory, tt.noHistory) || (tt.noHistory != "") != (q.History == nil) {
				t.Fatalf("history %v, noHistory %q: want %d groups or why not (%q)", q.History != nil, q.NoHistory, tt.groups, tt.noHistory)
			}
			if q.History == nil {
				return
			}
			if len(q.History.Groups) != tt.groups || !strings.Contains(q.History.Note, "64 of 67") {
				t.Errorf("%d groups, note %q: want %d and what was cut", len(q.History.Groups), q.History.Note, tt.groups)
			}
			for _, g := range q.History.Groups {
				if len(g.Jobs) != contract.MaxHistorySamples {
					t.Fatalf("group %s/%s: %d jobs, want %d", g.Class, g.Team, len(g.Jobs), contract.MaxHistorySamples)
				}
			}
			// The window: the 7 days (contract.DefaultHistoryDays) before now.
			if !tt.src.to.Equal(queueNow) || !tt.src.from.Equal(queueNow.Add(-7*24*time.Hour)) {
				t.Errorf("asked for %s to %s, want the 7 days to %s", tt.src.from, tt.src.to, queueNow)
			}
		})
	}
}

// TestQueueCountsWhatItLeavesOut: 3 RUNNING jobs of vision (4 instances
// each) and 103 RUNNABLE ones (52 of vision, 51 of nlp): the answer lists
// the 3 running and 97 waiting jobs and counts the 6 it leaves out — the
// youngest, by team, without type or instances (Batch gives them once a
// job is scheduled).
func TestQueueCountsWhatItLeavesOut(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := queueHandler(t, fake)
	for i := range 3 {
		queueJobAt(fake, fmt.Sprintf("r%d", i), "vision", "RUNNING", 4, 300, 100+i)
	}
	for i := range 103 {
		team := "vision"
		if i%2 == 1 {
			team = "nlp"
		}
		// Older first: j000 is 250 minutes old, j102 148.
		queueJobAt(fake, fmt.Sprintf("j%03d", i), team, "RUNNABLE", 1, 250-i, 0)
	}
	got, ferr := invoke(t, invocation("", "req-1"), h, []byte(`{"action":"queue"}`))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	q := got.Queue
	// Left out: j097 … j102, the youngest; of vision the even ones (098,
	// 100, 102), of nlp the odd ones (097, 099, 101).
	want := []contract.QueueCount{{Status: "RUNNABLE", Team: "nlp", Jobs: 3}, {Status: "RUNNABLE", Team: "vision", Jobs: 3}}
	if d := cmp.Diff(want, q.Unlisted); d != "" || len(q.Jobs) != contract.MaxQueueJobs || !q.Truncated || q.Uncounted {
		t.Errorf("%d listed, truncated %v, uncounted %v, unlisted (-want +got):\n%s", len(q.Jobs), q.Truncated, q.Uncounted, d)
	}
}
