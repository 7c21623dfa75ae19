package submit_test

import (
	"context"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/submit"
	"github.com/trainq/trainq/trace"
)

// startsAndEnds records each job's priority, start and end in a run.
type startsAndEnds struct {
	prio       map[string]int
	start, end map[string]int64
}

func (r *startsAndEnds) Observe(e simulate.Event, _ *simulate.State) {
	switch e.Kind {
	case simulate.EventStart:
		r.prio[e.JobID], r.start[e.JobID] = e.Priority, e.At
	case simulate.EventComplete:
		r.end[e.JobID] = e.At
	}
}

// TestSubmitterAndSimulatorAgreeOnBudgets replays a day of
// search-ranking's jobs in the simulator under a 60 ml.p5.48xlarge-hour
// budget, writes the jobs it ran into a ledger on a local DynamoDB as the
// observer would, and submits each job of the trace to the function at the
// moment the trace submits it: the function refuses exactly the jobs the
// simulator refused and gives the others the simulator's priority. (The
// ledger holds every job's whole life; at each moment the function counts
// only what had run by then, as the ledger would have shown.)
func TestSubmitterAndSimulatorAgreeOnBudgets(t *testing.T) {
	p := budgetPlatform()
	p.Teams[0].Budgets[0].InstanceHours = 60
	const h = 3600
	epoch := time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC)
	job := func(id string, submit, dur int64, k int, class string) trace.Job {
		return trace.Job{ID: id, Submit: submit, Duration: dur, Instances: k, InstanceType: "ml.p5.48xlarge", Class: class, Team: "search-ranking", Priority: trace.NoPriority}
	}
	jobs := []trace.Job{
		job("j1", 0, 5*h, 8, "production"), // 0-5 h: 40
		job("j2", 1*h, 4*h, 4, "sweep"),    // 1-5 h: 16
		job("j3", 3*h, 3*h, 2, "research"), // at 3 h: 24 + 8 = 32; 3-6 h: 6
		// At 5 h: 40 + 16 + 2 × 2 = 60 of 60: used.
		job("j4", 5*h, 1*h, 2, "sweep"),      // refused
		job("j5", 7*h, 1*h, 1, "research"),   // lowered
		job("j6", 8*h, 1*h, 1, "production"), // alarmed: as asked
		job("j7", 8*h, 1*h, 1, "sweep"),      // refused
	}
	rec := &startsAndEnds{prio: map[string]int{}, start: map[string]int64{}, end: map[string]int64{}}
	if _, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Epoch: epoch, Observer: rec}); err != nil {
		t.Fatal(err)
	}
	// Not a vacuous agreement: the simulator refused j4 and j7 and
	// lowered j5 to research's 500.
	if _, ran := rec.start["j4"]; ran || rec.prio["j5"] != 500 || rec.prio["j6"] != 950 {
		t.Fatalf("simulator: j4 ran %v, j5 at %d, j6 at %d; want j4 refused, j5 at 500, j6 at 950", ran, rec.prio["j5"], rec.prio["j6"])
	}

	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	ms := func(s int64) int64 { return epoch.UnixMilli() + s*1000 }
	now := epoch
	var obs []ledger.Observation
	for _, j := range jobs {
		start, ran := rec.start[j.ID]
		if !ran {
			continue
		}
		end := rec.end[j.ID]
		obs = append(obs, ledger.Observation{JobID: j.ID, JobName: j.ID, Team: j.Team, Class: j.Class, InstanceType: j.InstanceType, Instances: j.Instances,
			Status: "SUCCEEDED", CreatedAt: ms(j.Submit), StartedAt: ms(start), StoppedAt: ms(end),
			Attempts: []ledger.ObservedAttempt{{StartedAt: ms(start), StoppedAt: ms(end)}}})
	}
	store := budgetLedger(t, local, &now, obs...)
	fake := newFake(t)
	defer fake.Close()
	h0 := newHandlerWith(t, p, fake, submit.DefaultRetryPolicy, func(c *submit.Config) {
		c.Ledger, c.Now = store, func() time.Time { return now }
	})
	for _, j := range jobs {
		now = time.UnixMilli(ms(j.Submit))
		resp, fe := submitAs(t, h0, j.Class, "agree-"+j.ID)
		prio, ran := rec.prio[j.ID]
		switch {
		case !ran && (fe == nil || fe.Type != string(contract.KindOverBudget)):
			t.Errorf("%s: the simulator refused it, the function answered %+v %+v", j.ID, resp, fe)
		case ran && fe != nil:
			t.Errorf("%s: the simulator ran it at %d, the function refused it: %s", j.ID, prio, fe.Message)
		case ran && resp.SchedulingPriority != prio:
			t.Errorf("%s: the simulator ran it at %d, the function submitted it at %d", j.ID, prio, resp.SchedulingPriority)
		}
	}
}
