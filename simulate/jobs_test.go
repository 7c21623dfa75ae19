package simulate_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/trace"
)

// records runs jobs and returns the per-job records in the order they came.
func records(t *testing.T, p *platform.Platform, pol simulate.Policy, jobs ...trace.Job) (*simulate.Result, []simulate.JobRecord) {
	t.Helper()
	var out []simulate.JobRecord
	res, err := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Policy: pol,
		Jobs: func(r simulate.JobRecord) error { out = append(out, r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return res, out
}

func TestJobRecords(t *testing.T) {
	t.Run("a preempted job's record counts both attempts and the work lost", func(t *testing.T) {
		// Pool 2, team a 2: sweeps s1, s2 (1000 s) at 0; production p (100 s)
		// at 10 preempts s2 (R8). p runs 10–110; s2 reruns 110–1110, so it
		// ran 10 + 1000 = 1010 s, waited 1110 − 0 − 1010 = 100 s and lost
		// the 10 s of its first attempt. Records come as jobs end: p at 110,
		// s1 at 1000, s2 at 1110.
		p := quotaPlatform(t, 2, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %s, instances: 2}]}\n", p5))
		_, got := records(t, p, "", job("s1", "a").class("sweep").Job(), job("s2", "a").class("sweep").Job(),
			job("p", "a").at(10).class("production").runs(100).Job())
		want := []simulate.JobRecord{
			{ID: "p", Team: "a", Class: "production", InstanceType: p5, Instances: 1, Submit: 10, Start: 10, End: 110, Attempts: 1, Outcome: simulate.OutcomeCompleted, RanOn: p5},
			{ID: "s1", Team: "a", Class: "sweep", InstanceType: p5, Instances: 1, Submit: 0, Start: 0, End: 1000, Attempts: 1, Outcome: simulate.OutcomeCompleted, RanOn: p5},
			{ID: "s2", Team: "a", Class: "sweep", InstanceType: p5, Instances: 1, Submit: 0, Start: 110, End: 1110, Wait: 100,
				Attempts: 2, Preemptions: 1, LostSeconds: 10, Outcome: simulate.OutcomeCompleted, RanOn: p5},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
	t.Run("timed-out attempts are lost work and a job that never fits never starts", func(t *testing.T) {
		// research: 50 s per attempt, 2 attempts. r (2 instances, 100 s) runs
		// 0–50 and 50–100, times out twice and fails at 100: all 100 s lost,
		// no wait (100 − 0 − 100). big needs 3 of a pool of 2 and fails at
		// once (R20) without an attempt.
		p := mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 2}]\nclasses:\n  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 50, retries: 1}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 2}]}]\n", p5))
		_, got := records(t, p, "", job("r", "a").gang(2).runs(100).Job(), job("big", "a").at(5).gang(3).Job())
		want := []simulate.JobRecord{
			{ID: "big", Team: "a", Class: "research", InstanceType: p5, Instances: 3, Submit: 5, Start: -1, End: 5, Wait: 0,
				Outcome: simulate.OutcomeFailed, Reason: "needs 3 × ml.p5.48xlarge, the pool has 2", RanOn: p5},
			{ID: "r", Team: "a", Class: "research", InstanceType: p5, Instances: 2, Submit: 0, Start: 50, End: 100, Attempts: 2,
				Timeouts: 2, LostSeconds: 100, Outcome: simulate.OutcomeFailed, Reason: "timed out after 50 s in each of 2 attempts", RanOn: p5},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
}

func TestJobsCSV(t *testing.T) {
	var b bytes.Buffer
	w, err := simulate.NewJobsCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	w.Write("current", simulate.JobRecord{ID: "s2", Team: "a", Class: "sweep", InstanceType: p5, Instances: 1, Submit: 0, Start: 110,
		End: 1110, Wait: 100, Attempts: 2, Preemptions: 1, LostSeconds: 10, Outcome: simulate.OutcomeCompleted, RanOn: p5})
	w.Write("fifo", simulate.JobRecord{ID: "big", Team: "a", Class: "research", InstanceType: p5, Instances: 3, Submit: 5, Start: -1,
		End: 5, Outcome: simulate.OutcomeFailed, Reason: "needs 3 × ml.p5.48xlarge, the pool has 2", RanOn: p5})
	w.Write("on", simulate.JobRecord{ID: "m", Team: "a", Class: "research", InstanceType: p5, Instances: 2, Submit: 0, Start: 4000,
		End: 5000, Wait: 3400, Attempts: 2, Preemptions: 1, LostSeconds: 400, SavedSeconds: 3600, Outcome: simulate.OutcomeCompleted,
		Moves: 1, RanOn: p4d})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "job_id,policy,team,class,instance_type,instances,submit_s,start_s,end_s,wait_s,attempts,preemptions,timeouts,lost_s,outcome,reason,saved_s,moves,ran_on\n" +
		"s2,current,a,sweep,ml.p5.48xlarge,1,0,110,1110,100,2,1,0,10,completed,,0,0,ml.p5.48xlarge\n" +
		"big,fifo,a,research,ml.p5.48xlarge,3,5,,5,0,0,0,0,0,failed,\"needs 3 × ml.p5.48xlarge, the pool has 2\",0,0,ml.p5.48xlarge\n" +
		"m,on,a,research,ml.p5.48xlarge,2,0,4000,5000,3400,2,1,0,400,completed,,3600,1,ml.p4d.24xlarge\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

func TestWorkAndPeaks(t *testing.T) {
	t.Run("instance-seconds are exact and split by how attempts ended", func(t *testing.T) {
		// The preemption case of TestJobRecords: s1 1000 s, s2 10 s (lost)
		// + 1000 s, p 100 s, one instance each. Busy 2110, goodput 2100,
		// lost to preemption 10. Makespan 0–1110, capacity 2 × 1110 = 2220:
		// utilization 2110/2220 = 0.95045 → 0.9505, goodput 2100/2220 =
		// 0.94595 → 0.9459, lost 10/2220 = 0.0045.
		p := quotaPlatform(t, 2, fmt.Sprintf("  - {name: a, capacity: [{instanceType: %s, instances: 2}]}\n", p5))
		res, _ := records(t, p, "", job("s1", "a").class("sweep").Job(), job("s2", "a").class("sweep").Job(),
			job("p", "a").at(10).class("production").runs(100).Job())
		type summary struct {
			Capacity      int64
			Work          simulate.Work
			U, G, L       float64
			TypePeak      int
			ClassPeaks    []int
			TeamPeak      int
			TeamPeakByTyp map[string]int
		}
		got := summary{res.CapacityInstanceSeconds, res.InstanceSeconds, res.Utilization, res.Goodput, res.LostWork,
			res.InstanceTypes[0].PeakInstances, []int{res.Classes[0].PeakInstances, res.Classes[1].PeakInstances, res.Classes[2].PeakInstances},
			res.Teams[0].PeakInstances, res.Teams[0].PeakInstancesByType}
		// Peaks: 2 instances in use from 0 on; production 1, research 0,
		// sweep 2 (s1 and s2 at 0).
		want := summary{2220, simulate.Work{Busy: 2110, Goodput: 2100, LostPreempted: 10}, 0.9505, 0.9459, 0.0045,
			2, []int{1, 0, 2}, 2, map[string]int{p5: 2}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("timed-out attempts are lost work apart from preempted ones", func(t *testing.T) {
		// research: 50 s per attempt, 2 attempts. r (2 instances, 100 s)
		// times out at 50 and 100: 2 × 50 × 2 = 200 instance-seconds lost to
		// timeouts, none completed. q (1 instance, 40 s, submitted at 0 after
		// r) waits while r holds both instances (its retry comes first in
		// queue order) and runs 100–140: 40 goodput. Makespan 140, capacity
		// 2 × 140 = 280.
		// Utilization 240/280 = 0.85714 → 0.8571, goodput 40/280 = 0.14286
		// → 0.1429, lost 200/280 = 0.71429 → 0.7143.
		p := mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 2}]\nclasses:\n  - {name: research, priority: {min: 500, max: 599}, maxRuntimeSeconds: 50, retries: 1}\nteams: [{name: a, capacity: [{instanceType: %[1]s, instances: 2}]}]\n", p5))
		res, _ := records(t, p, "", job("r", "a").gang(2).runs(100).Job(), job("q", "a").runs(40).Job())
		got := []any{res.CapacityInstanceSeconds, res.InstanceSeconds, res.Utilization, res.Goodput, res.LostWork, res.Timeouts}
		want := []any{int64(280), simulate.Work{Busy: 240, Goodput: 40, LostTimedOut: 200}, 0.8571, 0.1429, 0.7143, 2}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("capacity, work, utilization, goodput, lost, timeouts (-want +got):\n%s", diff)
		}
	})
	t.Run("peak concurrency is per type and per team", func(t *testing.T) {
		// Pools 2 × p5 and 2 × p4d. Team a runs 2 × p5 (0–100) and 1 × p4d
		// (0–50): a's peak is 3 (2 p5 + 1 p4d); b runs 2 × p4d from 60 while
		// a's p5 job still runs: b's peak 2, p4d's peak 2, p5's 2.
		p := mustParse(t, fmt.Sprintf("pools: [{instanceType: %[1]s, instances: 2}, {instanceType: %[2]s, instances: 2}]\nteams:\n"+
			"  - {name: a, capacity: [{instanceType: %[1]s, instances: 2}, {instanceType: %[2]s, instances: 1}]}\n"+
			"  - {name: b, capacity: [{instanceType: %[2]s, instances: 1}]}\n", p5, p4d))
		res, _ := records(t, p, "", job("a5", "a").gang(2).runs(100).Job(), job("a4", "a").on(p4d).runs(50).Job(),
			job("b4", "b").at(60).on(p4d).gang(2).runs(10).Job())
		got := []any{res.InstanceTypes[0].PeakInstances, res.InstanceTypes[1].PeakInstances, res.Teams[0].PeakInstances,
			res.Teams[0].PeakInstancesByType, res.Teams[1].PeakInstances, res.Teams[1].PeakInstancesByType}
		want := []any{2, 2, 3, map[string]int{p5: 2, p4d: 1}, 2, map[string]int{p5: 0, p4d: 2}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("peaks p5, p4d, a, a by type, b, b by type (-want +got):\n%s", diff)
		}
	})
}
