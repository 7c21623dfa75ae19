package etabench

import (
	"fmt"
	"testing"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// busyQueue is a queue of 300 jobs on the default platform, as the queue
// action answers it: 40 running and 60 waiting jobs listed, 200 more
// waiting counted; with a week's history (6 class and team groups of 48
// jobs) when withHistory.
func busyQueue(withHistory bool) (*contract.QueueView, *contract.Response) {
	p := platform.Default()
	q := &contract.QueueView{At: "2026-12-01T16:00:00Z", Truncated: true}
	classes := []string{"production", "research", "sweep"}
	teams := p.TeamNames()
	types := p.InstanceTypes()
	for i := range 100 {
		class, _ := p.Class(classes[i%3])
		j := contract.QueueJob{JobID: fmt.Sprintf("j%d", i), Team: teams[i%2], Class: class.Name, SchedulingPriority: class.SchedulingPriority(50),
			InstanceType: types[i%2], Instances: 1 + i%3, MaxRuntimeSeconds: class.MaxRuntimeSeconds, AgeSeconds: int64(7200 - 60*i)}
		if i < 40 {
			j.Status, j.RunningSeconds = "RUNNING", int64(600+97*i)
		} else {
			j.Status, j.QueuePosition = "RUNNABLE", i-39
		}
		q.Jobs = append(q.Jobs, j)
	}
	for _, team := range teams {
		q.Unlisted = append(q.Unlisted, contract.QueueCount{Status: "RUNNABLE", Team: team, Jobs: 100})
	}
	if withHistory {
		q.History = &contract.History{Source: "bench", From: "2026-11-24T16:00:00Z", To: "2026-12-01T16:00:00Z"}
		for ci, c := range classes {
			class, _ := p.Class(c)
			for ti, team := range teams {
				g := contract.HistoryGroup{Class: c, Team: team, Submitted: 300 * (ci + 1), Completed: 290 * (ci + 1)}
				for k := range contract.MaxHistorySamples {
					g.Jobs = append(g.Jobs, contract.HistoryJob{InstanceType: types[(k+ti)%2], Instances: 1 + k%3,
						SchedulingPriority: class.SchedulingPriority(50), RunSeconds: int64(1800 + 300*k)})
				}
				q.History.Groups = append(q.History.Groups, g)
			}
		}
	}
	return q, &contract.Response{JobID: "j99"}
}

// BenchmarkEstimate measures one estimate on busyQueue: the latest start
// alone (no history: one run), and with the likely start (100 runs, the
// default; 1000, the most).
func BenchmarkEstimate(b *testing.B) {
	p := platform.Default()
	for _, bc := range []struct {
		name    string
		history bool
		runs    int
	}{{"latest-only", false, 0}, {"likely-100-runs", true, 100}, {"likely-1000-runs", true, 1000}} {
		b.Run(bc.name, func(b *testing.B) {
			q, target := busyQueue(bc.history)
			b.ReportAllocs()
			for b.Loop() {
				e, err := client.EstimateStart(p, q, target, client.EstimateOptions{Runs: bc.runs})
				if err != nil || bc.history && e.Likely == nil {
					b.Fatalf("%+v, %v", e, err)
				}
			}
		})
	}
}

// BenchmarkQueueEstimate measures trainq queue's estimate of every listed
// waiting job of busyQueue (60, on two instance types), beside one job's
// (the last listed, which waits longest) in the same run: with history
// (100 runs, the default) and without (the latest start only).
func BenchmarkQueueEstimate(b *testing.B) {
	p := platform.Default()
	for _, history := range []bool{true, false} {
		q, _ := busyQueue(history)
		name := map[bool]string{true: "likely-100-runs", false: "latest-only"}[history]
		b.Run("one-job/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.EstimateStart(p, q, &contract.Response{JobID: "j99"}, client.EstimateOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("every-row/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				qe, err := client.EstimateQueue(p, q, client.EstimateOptions{})
				if err != nil || history && qe.Rows[99].Likely == nil {
					b.Fatalf("%+v, %v", qe, err)
				}
			}
		})
	}
}

// TestQueueRowsAgreeWithStatus: on busyQueue (with history: arrivals,
// unlisted jobs, two instance types), every listed waiting job's row in
// trainq queue has the figures trainq status gives that job.
func TestQueueRowsAgreeWithStatus(t *testing.T) {
	p := platform.Default()
	q, _ := busyQueue(true)
	opts := client.EstimateOptions{Runs: 10}
	qe, err := client.EstimateQueue(p, q, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range q.Jobs {
		if j.Status != "RUNNABLE" || i%7 != 0 && i != 99 {
			continue
		}
		e, err := client.EstimateStart(p, q, &contract.Response{JobID: j.JobID}, opts)
		if err != nil {
			t.Fatal(err)
		}
		r := qe.Rows[i]
		if r.Latest == nil || r.Likely == nil || e.Likely == nil {
			t.Fatalf("%s: row %+v, status %+v: want both figures", j.JobID, r, e)
		}
		if e.Latest.StartsInSeconds != r.Latest.StartsInSeconds || e.Likely.StartsInSeconds != r.Likely.StartsInSeconds ||
			e.Likely.LowSeconds != r.Likely.LowSeconds || e.Likely.HighSeconds != r.Likely.HighSeconds {
			t.Errorf("%s: status says likely %d [%d, %d], latest %d; the row %d [%d, %d], %d", j.JobID, e.Likely.StartsInSeconds,
				e.Likely.LowSeconds, e.Likely.HighSeconds, e.Latest.StartsInSeconds, r.Likely.StartsInSeconds, r.Likely.LowSeconds,
				r.Likely.HighSeconds, r.Latest.StartsInSeconds)
		}
	}
}
