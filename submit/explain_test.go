package submit_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
)

// explainPlatform: one pool of 20 ml.p5.48xlarge, the three teams' quotas
// adding up to it.
//
//	vision  quota 8, lend-and-borrow, borrow limit 50%: may borrow 8×50/100 = 4, ceiling 12
//	nlp     quota 8, reserve: never borrows, ceiling 8, its idle quota kept for it
//	speech  quota 4, lend-and-borrow, borrow limit 100%: may borrow 4, ceiling 8
const explainPlatform = `
name: explain
pools:
  - {instanceType: ml.p5.48xlarge, instances: 20}
scheduling: {mode: quota}
teams:
  - name: vision
    capacity: [{instanceType: ml.p5.48xlarge, instances: 8}]
    sharing: lend-and-borrow
    borrowLimitPercent: 50
  - name: nlp
    capacity: [{instanceType: ml.p5.48xlarge, instances: 8}]
    sharing: reserve
  - name: speech
    capacity: [{instanceType: ml.p5.48xlarge, instances: 4}]
    sharing: lend-and-borrow
    borrowLimitPercent: 100
submission: {instanceTypes: [ml.p5.48xlarge]}
`

// fairPlatform: fair share over a pool of 10 ml.p5.48xlarge.
const fairPlatform = `
name: fair
pools:
  - {instanceType: ml.p5.48xlarge, instances: 10}
scheduling: {mode: fairshare}
teams:
  - {name: vision, weight: 1}
  - {name: nlp, weight: 1}
submission: {instanceTypes: [ml.p5.48xlarge]}
`

const p5 = "ml.p5.48xlarge"

// waitingJob adds to fake a research job of team asking for instances of
// instanceType, in status with statusReason, as the submitter tags it.
func waitingJob(fake *batchtest.Server, team, instanceType string, instances int, status, reason string, fairShare bool) batchtest.Job {
	req := batchtest.SubmitRequest{JobName: "job-" + team + "-0a1b2c3d", JobQueue: testQueue, SchedulingPriority: intp(550),
		ServiceRequestPayload: fmt.Sprintf(`{"ResourceConfig":{"InstanceType":%q,"InstanceCount":%d,"VolumeSizeInGB":100}}`, instanceType, instances),
		Tags:                  map[string]string{contract.TagTeam: team, contract.TagClass: "research"}}
	if fairShare {
		req.ShareIdentifier = strp(team)
	} else {
		req.QuotaShareName = strp(team)
	}
	return fake.Add(batchtest.Job{Request: req, Status: status, StatusReason: reason})
}

// TestDescribeExplainsWhyAJobWaits serves a snapshot for each reason and
// describes the job through its team's alias. Each expected reason and
// number is computed by hand from explainPlatform (or fairPlatform) in the
// case's comment; Room and Fit are Batch's quota rules as batchrules states
// them (Idle = min(ceiling − used, free − other reserve shares' idle quota),
// Reclaim = min(quota − used, that + what others borrow)).
func TestDescribeExplainsWhyAJobWaits(t *testing.T) {
	tests := []struct {
		name      string
		platform  string
		team      string
		type_     string
		instances int
		status    string
		reason    string // Batch's statusReason
		// headReason is the statusReason of the job ahead of it, at the
		// head of the queue.
		headReason string
		total      map[string]float64
		shares     map[string]map[string]float64
		// frontOfShare puts another job of the team ahead of this one.
		frontOfShare bool
		want         string
		// message must contain these.
		message []string
		// usage is the team's usage row (Share, Used, Quota, MaxBorrowed,
		// Borrowed, IdleRoom, ReclaimRoom); nil: not checked.
		usage *contract.ShareUsage
	}{
		{
			name: "a scheduled job is starting", platform: explainPlatform, team: "vision", type_: p5, instances: 2, status: "SCHEDULED",
			want: contract.ReasonStarting, message: []string{"SCHEDULED", "2 ml.p5.48xlarge"},
		},
		{
			name: "Batch's blocked reason is the reason", platform: explainPlatform, team: "vision", type_: p5, instances: 2, status: "RUNNABLE",
			reason: "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requires more capacity than the quota share allows",
			want:   contract.ReasonQueueBlocked, message: []string{"MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED", "can never run"},
		},
		{
			name: "the job at the head of the queue blocks it", platform: explainPlatform, team: "vision", type_: p5, instances: 2, status: "RUNNABLE",
			headReason: "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Service cannot fulfill the capacity requested for instance type ml.p5.48xlarge",
			shares:     map[string]map[string]float64{},
			want:       contract.ReasonQueueBlocked, message: []string{"head of the queue (team vision) blocks it (CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY)", "every job behind it waits"},
		},
		{
			name: "an instance type outside the pool never starts", platform: explainPlatform, team: "vision", type_: "ml.g5.xlarge", instances: 1, status: "RUNNABLE",
			shares: map[string]map[string]float64{},
			want:   contract.ReasonNotInPool, message: []string{"ml.g5.xlarge is not in the platform's pool (ml.p5.48xlarge)"},
		},
		{
			// vision may hold at most min(pool 20 − nlp's reserved 8 = 12,
			// ceiling 8 + 4 = 12) = 12; the job asks 13.
			name: "more than the share can ever hold never fits", platform: explainPlatform, team: "vision", type_: p5, instances: 13, status: "RUNNABLE",
			shares: map[string]map[string]float64{},
			want:   contract.ReasonNeverFits, message: []string{"needs 13", "can ever hold 12"},
		},
		{
			// vision holds 10 (quota 8 + 2 borrowed of speech's idle quota),
			// speech 2, nlp 8: the pool's 20 are in use. 10 + 4 = 14 > its
			// ceiling 12: the borrow limit; it starts when 14 − 12 = 2 are
			// freed. Idle = min(12 − 10, 0) = 0, Reclaim = min(8 − 10 → 0, …) = 0.
			name: "past quota plus borrow limit waits on the borrow limit", platform: explainPlatform, team: "vision", type_: p5, instances: 4, status: "RUNNABLE",
			total:  map[string]float64{p5: 20},
			shares: map[string]map[string]float64{"vision": {p5: 10}, "nlp": {p5: 8}, "speech": {p5: 2}},
			want:   contract.ReasonBorrowLimit, message: []string{"holds 10 ml.p5.48xlarge against a quota of 8", "would hold 14", "borrow limit of 12", "free 2"},
			usage: &contract.ShareUsage{Share: "vision", Used: 10, Quota: 8, MaxBorrowed: 4, Borrowed: 2, IdleRoom: 0, ReclaimRoom: 0},
		},
		{
			// nlp (reserve) holds its whole quota 8 and may not borrow: 8 + 1
			// = 9 > its ceiling 8; the pool has 20 − 8 = 12 idle, which does
			// not help.
			name: "a reserve share at its quota may not borrow", platform: explainPlatform, team: "nlp", type_: p5, instances: 1, status: "RUNNABLE",
			total:  map[string]float64{p5: 8},
			shares: map[string]map[string]float64{"nlp": {p5: 8}},
			want:   contract.ReasonQuotaFull, message: []string{"holds 8 ml.p5.48xlarge against a quota of 8", "may not borrow (sharing RESERVE)", "would hold 9"},
			usage: &contract.ShareUsage{Share: "nlp", Used: 8, Quota: 8, IdleRoom: 0, ReclaimRoom: 0},
		},
		{
			// vision holds its quota 8, nlp 8, speech 4: the pool's 20 are in
			// use. 8 + 2 = 10 is within its ceiling 12 but beyond its quota,
			// and nothing is idle to borrow: Idle = min(4, 0) = 0.
			name: "beyond quota with nothing idle to borrow", platform: explainPlatform, team: "vision", type_: p5, instances: 2, status: "RUNNABLE",
			total:  map[string]float64{p5: 20},
			shares: map[string]map[string]float64{"vision": {p5: 8}, "nlp": {p5: 8}, "speech": {p5: 4}},
			want:   contract.ReasonQuotaFull, message: []string{"nothing to borrow", "only 0 of the pool's 20 are idle", "free 2"},
			usage: &contract.ShareUsage{Share: "vision", Used: 8, Quota: 8, MaxBorrowed: 4, IdleRoom: 0, ReclaimRoom: 0},
		},
		{
			// Fair share: 10 of the pool's 10 in use; the job needs 2.
			name: "a full pool under fair share", platform: fairPlatform, team: "vision", type_: p5, instances: 2, status: "RUNNABLE",
			total:  map[string]float64{p5: 10},
			shares: map[string]map[string]float64{"vision": {p5: 4}, "nlp": {p5: 6}},
			want:   contract.ReasonPoolFull, message: []string{"10 of its 10 ml.p5.48xlarge are in use, 0 idle, and the job needs 2"},
		},
		{
			// vision holds nothing; 12 idle for it: it fits, but another
			// vision job is at the front of the share.
			name: "room, but another job of the team is ahead", platform: explainPlatform, team: "vision", type_: p5, instances: 2, status: "RUNNABLE",
			total: map[string]float64{}, shares: map[string]map[string]float64{}, frontOfShare: true,
			want: contract.ReasonBehindTeam, message: []string{"holds 0 ml.p5.48xlarge against a quota of 8", "is ahead of it"},
		},
		{
			// vision holds 4, nlp 8, speech 8 (4 borrowed of vision's quota):
			// 20 in use. Idle = min(12 − 4, 0) = 0; Reclaim = min(8 − 4, 0 + 4
			// borrowed) = 4 ≥ 4: it fits once Batch takes back speech's 4.
			name: "within quota once Batch reclaims what others borrow", platform: explainPlatform, team: "vision", type_: p5, instances: 4, status: "RUNNABLE",
			total:  map[string]float64{p5: 20},
			shares: map[string]map[string]float64{"vision": {p5: 4}, "nlp": {p5: 8}, "speech": {p5: 8}},
			want:   contract.ReasonReclaiming, message: []string{"holds 4 ml.p5.48xlarge", "takes the instances back"},
			usage: &contract.ShareUsage{Share: "vision", Used: 4, Quota: 8, MaxBorrowed: 4, IdleRoom: 0, ReclaimRoom: 4},
		},
		{
			// Nothing in use: Idle = min(12 − 0, 20 − nlp's idle quota 8) = 12.
			name: "room and nobody ahead: next", platform: explainPlatform, team: "vision", type_: p5, instances: 2, status: "RUNNABLE",
			total: map[string]float64{}, shares: map[string]map[string]float64{},
			want: contract.ReasonNext, message: []string{"12 are idle for it"},
			usage: &contract.ShareUsage{Share: "vision", Used: 0, Quota: 8, MaxBorrowed: 4, IdleRoom: 12, ReclaimRoom: 8},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			p := mustParse(t, tt.platform)
			h := newHandler(t, p, fake, fastPolicy)
			fair := p.Scheduling.Mode == "fairshare"
			other := waitingJob(fake, tt.team, tt.type_, 1, "RUNNABLE", tt.headReason, fair)
			job := waitingJob(fake, tt.team, tt.type_, tt.instances, tt.status, tt.reason, fair)
			fake.SetUsed(tt.total)
			fake.SetShareUsed(tt.shares)
			at := time.Date(2026, 12, 1, 15, 2, 0, 0, time.UTC)
			front := []batchtest.Front{{JobARN: other.ARN, EarliestTimeAtPosition: at.UnixMilli()}, {JobARN: job.ARN, EarliestTimeAtPosition: at.UnixMilli()}}
			shareFront := []batchtest.Front{{JobARN: job.ARN}}
			if tt.frontOfShare {
				shareFront = []batchtest.Front{{JobARN: other.ARN}, {JobARN: job.ARN}}
			}
			fake.SetFront(front, map[string][]batchtest.Front{tt.team: shareFront})

			got, ferr := invoke(t, invocation("research-"+tt.team, "req-1"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)))
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			e := got.Explanation
			if e == nil {
				t.Fatalf("describe of a %s job gave no explanation", tt.status)
			}
			if e.Reason != tt.want {
				t.Errorf("reason %q (%s), want %q", e.Reason, e.Message, tt.want)
			}
			if testing.Verbose() {
				t.Log(e.Message)
			}
			for _, m := range tt.message {
				if !strings.Contains(e.Message, m) {
					t.Errorf("message %q does not say %q", e.Message, m)
				}
			}
			// The job is second at the front of the queue since 15:02 UTC.
			if e.QueuePosition != 2 || e.QueueListed != 2 || e.AtPositionSince != "2026-12-01T15:02:00Z" || e.Instances != tt.instances {
				t.Errorf("position %d of %d since %q, %d instances: want 2 of 2 since 2026-12-01T15:02:00Z, %d", e.QueuePosition, e.QueueListed, e.AtPositionSince, e.Instances, tt.instances)
			}
			wantShare := 1
			if tt.frontOfShare {
				wantShare = 2
				if e.ShareFront != other.ID {
					t.Errorf("share front %q, want the job ahead, %s", e.ShareFront, other.ID)
				}
			}
			if e.SharePosition != wantShare {
				t.Errorf("share position %d, want %d", e.SharePosition, wantShare)
			}
			if tt.usage != nil {
				if len(e.Usage) == 0 {
					t.Fatal("no usage rows")
				}
				u := e.Usage[0]
				got := contract.ShareUsage{Share: u.Share, Used: u.Used, Quota: u.Quota, MaxBorrowed: u.MaxBorrowed, Borrowed: u.Borrowed, IdleRoom: u.IdleRoom, ReclaimRoom: u.ReclaimRoom}
				if diff := cmp.Diff(*tt.usage, got); diff != "" {
					t.Errorf("team's usage (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestDescribeOfARunningJobHasNoExplanation: only a waiting job is
// explained, and the snapshot is not even asked for.
func TestDescribeOfARunningJobHasNoExplanation(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, mustParse(t, explainPlatform), fake, fastPolicy)
	job := waitingJob(fake, "vision", p5, 2, "RUNNING", "", false)
	got, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if got.Explanation != nil || len(fake.Calls("GetJobQueueSnapshot")) != 0 {
		t.Errorf("explanation %+v after %d snapshots, want none for a RUNNING job", got.Explanation, len(fake.Calls("GetJobQueueSnapshot")))
	}
}

// TestDescribeWithoutASnapshotStillAnswers: a failed snapshot leaves the
// describe answer without explanation rather than failing it.
func TestDescribeWithoutASnapshotStillAnswers(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := newHandler(t, mustParse(t, explainPlatform), fake, fastPolicy)
	job := waitingJob(fake, "vision", p5, 2, "RUNNABLE", "", false)
	fake.Script("GetJobQueueSnapshot", batchtest.Fault{Status: 403})
	got, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(fmt.Sprintf(`{"action":"describe","jobId":%q}`, job.ID)))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if got.Status != "RUNNABLE" || got.Explanation != nil {
		t.Errorf("status %q, explanation %+v: want RUNNABLE and none", got.Status, got.Explanation)
	}
}
