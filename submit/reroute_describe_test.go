package submit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
)

// reroutePlatform: 8 ml.p5.48xlarge and 8 ml.p4d.24xlarge; vision's quota
// is 4 of each and nlp's 4 of each, both reserve (never borrow); research
// jobs may move between the two types after 1800 s, at most twice.
const reroutePlatform = `
name: moves
pools:
  - {instanceType: ml.p5.48xlarge, instances: 8}
  - {instanceType: ml.p4d.24xlarge, instances: 8}
scheduling: {mode: quota}
classes:
  - name: research
    priority: {min: 500, max: 599}
    reroute: {afterSeconds: 1800, instanceTypes: [ml.p5.48xlarge, ml.p4d.24xlarge], maxMoves: 2}
teams:
  - name: vision
    capacity: [{instanceType: ml.p5.48xlarge, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 4}]
    sharing: reserve
  - name: nlp
    capacity: [{instanceType: ml.p5.48xlarge, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 4}]
    sharing: reserve
submission: {instanceTypes: [ml.p5.48xlarge, ml.p4d.24xlarge]}
`

// TestDescribeSaysWhereTheRerouterMovesAWaitingJob: vision holds its 4 p5
// (reserve: it never borrows), so its 2-instance research job on p5 waits;
// its p4d quota of 4 is idle, room for the 2: the explanation names
// ml.p4d.24xlarge and the 30-minute threshold. With the lineage at its 2
// moves, it says the job stays.
func TestDescribeSaysWhereTheRerouterMovesAWaitingJob(t *testing.T) {
	for _, tc := range []struct {
		name  string
		moves string
		say   string
	}{
		{"a first move", "", "the re-router moves it there once it has waited 30m0s"},
		{"a lineage at its most moves", "2", "has moved 2 times, class research's most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, mustParse(t, reroutePlatform), fake, fastPolicy)
			req := batchtest.SubmitRequest{JobName: "job-vision-0a1b2c3d", JobQueue: testQueue, SchedulingPriority: intp(550), QuotaShareName: strp("vision"),
				ServiceRequestPayload: `{"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":2,"VolumeSizeInGB":100}}`,
				Tags:                  map[string]string{contract.TagTeam: "vision", contract.TagClass: "research"}}
			if tc.moves != "" {
				req.Tags[contract.TagReroutedFrom], req.Tags[contract.TagMoves] = "00000000-0000-4000-8000-0000000000aa", tc.moves
			}
			job := fake.Add(batchtest.Job{Request: req, Status: "RUNNABLE"})
			fake.SetUsed(map[string]float64{p5: 8})
			fake.SetShareUsed(map[string]map[string]float64{"vision": {p5: 4}, "nlp": {p5: 4}})
			fake.SetFront([]batchtest.Front{{JobARN: job.ARN}}, map[string][]batchtest.Front{"vision": {{JobARN: job.ARN}}})
			got, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			e := got.Explanation
			if e == nil || e.RerouteTo != "ml.p4d.24xlarge" || !strings.Contains(e.Message, tc.say) {
				t.Fatalf("explanation %+v: want rerouteTo ml.p4d.24xlarge and a message saying %q", e, tc.say)
			}
			if tc.moves == "2" && (got.Moves != 2 || got.ReroutedFrom != "00000000-0000-4000-8000-0000000000aa") {
				t.Errorf("lineage: moves %d from %q, want 2 from the job replaced", got.Moves, got.ReroutedFrom)
			}
		})
	}
}

// TestDescribeOfAMovedJobNamesItsReplacement: the old job of a move ended
// FAILED with the re-router's reason; describe says where it went.
func TestDescribeOfAMovedJobNamesItsReplacement(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, mustParse(t, reroutePlatform), fake, fastPolicy)
	const next = "00000000-0000-4000-8000-0000000000bb"
	job := waitingJob(fake, "vision", p5, 2, "FAILED", contract.ReroutedReason(next, "ml.p4d.24xlarge"), false)
	got, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if got.MovedTo != next || got.MovedToInstanceType != "ml.p4d.24xlarge" {
		t.Errorf("moved to %q on %q, want %s on ml.p4d.24xlarge", got.MovedTo, got.MovedToInstanceType, next)
	}
}

// TestDescribeOfAJobSageMakerCannotPlaceNamesItsMove: vision's quota has
// room on p5 (nothing in use), but Batch says SageMaker lacks p5 capacity
// (the job's status reason): the re-router moves such a job too, so the
// explanation names p4d, which has room.
func TestDescribeOfAJobSageMakerCannotPlaceNamesItsMove(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, mustParse(t, reroutePlatform), fake, fastPolicy)
	job := waitingJob(fake, "vision", p5, 2, "RUNNABLE", "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision requested compute resources", false)
	fake.SetUsed(map[string]float64{})
	fake.SetShareUsed(map[string]map[string]float64{})
	got, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if e := got.Explanation; e == nil || e.Reason != contract.ReasonQueueBlocked || e.RerouteTo != "ml.p4d.24xlarge" {
		t.Errorf("explanation %+v: want queue-blocked and rerouteTo ml.p4d.24xlarge", e)
	}
}
