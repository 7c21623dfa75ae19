package submit_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/submit"
)

// queueNow is the handler's clock in the queue tests.
var queueNow = time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)

// queueJobAt adds a job of team in status, created minutesAgo before
// queueNow (and started startedAgo minutes before it when > 0).
func queueJobAt(fake *batchtest.Server, name, team, status string, instances, minutesAgo, startedAgo int) batchtest.Job {
	req := batchtest.SubmitRequest{JobName: name, JobQueue: testQueue, SchedulingPriority: intp(550), QuotaShareName: strp(team),
		ServiceRequestPayload: fmt.Sprintf(`{"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":%d,"VolumeSizeInGB":100}}`, instances),
		TimeoutConfig:         &batchtest.TimeoutConfig{AttemptDurationSeconds: 7200},
		Tags:                  map[string]string{contract.TagTeam: team, contract.TagClass: "research"}}
	j := batchtest.Job{Request: req, Status: status, CreatedAt: queueNow.Add(-time.Duration(minutesAgo) * time.Minute).UnixMilli()}
	if startedAgo > 0 {
		j.StartedAt = queueNow.Add(-time.Duration(startedAgo) * time.Minute).UnixMilli()
	}
	return fake.Add(j)
}

func queueHandler(t *testing.T, fake *batchtest.Server) *submit.Handler {
	return newHandlerWith(t, mustParse(t, explainPlatform), fake, fastPolicy, func(c *submit.Config) { c.Now = func() time.Time { return queueNow } })
}

// TestQueueListsRunningThenTheFrontOfTheQueue: through vision's alias, the
// queue lists the running jobs (oldest start first) and then the RUNNABLE
// ones in the snapshot's order, with ages, positions and limits; nlp's jobs
// come without id, name or status reason; an ended job is not listed.
func TestQueueListsRunningThenTheFrontOfTheQueue(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := queueHandler(t, fake)
	a := queueJobAt(fake, "a", "vision", "RUNNING", 4, 90, 60)
	queueJobAt(fake, "b", "nlp", "RUNNING", 8, 200, 120)
	c := queueJobAt(fake, "c", "vision", "RUNNABLE", 2, 30, 0)
	d := queueJobAt(fake, "d", "vision", "RUNNABLE", 2, 20, 0)
	e := queueJobAt(fake, "e", "nlp", "RUNNABLE", 1, 45, 0)
	queueJobAt(fake, "f", "vision", "SUCCEEDED", 1, 300, 280)
	fake.SetUsed(map[string]float64{p5: 12})
	fake.SetShareUsed(map[string]map[string]float64{"vision": {p5: 4}, "nlp": {p5: 8}})
	fake.SetFront([]batchtest.Front{{JobARN: e.ARN}, {JobARN: c.ARN}, {JobARN: d.ARN}},
		map[string][]batchtest.Front{"vision": {{JobARN: c.ARN}, {JobARN: d.ARN}}, "nlp": {{JobARN: e.ARN}}})

	got, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(`{"action":"queue"}`))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	q := got.Queue
	if q == nil {
		t.Fatal("no queue in the answer")
	}
	// Ages to 16:00: a created 90 min ago = 5400 s, started 60 min ago =
	// 3600 s; b started 120 min ago = 7200 s, so it comes first.
	want := []contract.QueueJob{
		{Redacted: true, Team: "nlp", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: p5, Instances: 8, MaxRuntimeSeconds: 7200,
			CreatedAt: "2026-12-01T12:40:00Z", StartedAt: "2026-12-01T14:00:00Z", AgeSeconds: 12000, RunningSeconds: 7200},
		{JobID: a.ID, JobName: "a", Team: "vision", Class: "research", Status: "RUNNING", SchedulingPriority: 550, InstanceType: p5, Instances: 4, MaxRuntimeSeconds: 7200,
			CreatedAt: "2026-12-01T14:30:00Z", StartedAt: "2026-12-01T15:00:00Z", AgeSeconds: 5400, RunningSeconds: 3600},
		{Redacted: true, Team: "nlp", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: p5, Instances: 1, MaxRuntimeSeconds: 7200,
			CreatedAt: "2026-12-01T15:15:00Z", AgeSeconds: 2700, QueuePosition: 1, SharePosition: 1},
		{JobID: c.ID, JobName: "c", Team: "vision", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: p5, Instances: 2, MaxRuntimeSeconds: 7200,
			CreatedAt: "2026-12-01T15:30:00Z", AgeSeconds: 1800, QueuePosition: 2, SharePosition: 1},
		{JobID: d.ID, JobName: "d", Team: "vision", Class: "research", Status: "RUNNABLE", SchedulingPriority: 550, InstanceType: p5, Instances: 2, MaxRuntimeSeconds: 7200,
			CreatedAt: "2026-12-01T15:40:00Z", AgeSeconds: 1200, QueuePosition: 3, SharePosition: 2},
	}
	if diff := cmp.Diff(want, q.Jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if q.Truncated || q.Note != "" || q.QueueListed != 3 || q.At != "2026-12-01T16:00:00Z" || !strings.Contains(q.Scope, "team vision's jobs in full") {
		t.Errorf("truncated %v, note %q, listed %d, at %q, scope %q", q.Truncated, q.Note, q.QueueListed, q.At, q.Scope)
	}
	// Usage: one row per share and one for the queue. vision: 4 of quota
	// 8; idle for it min(12 − 4, 20 − 12 in use − nlp's idle quota 0) = 8.
	if len(q.Usage) != 4 {
		t.Fatalf("%d usage rows, want 3 shares + the queue", len(q.Usage))
	}
	if u := q.Usage[0]; u.Share != "vision" || u.Used != 4 || u.Quota != 8 || u.IdleRoom != 8 || u.PoolInUse != 12 || u.Pool != 20 {
		t.Errorf("vision's usage %+v", u)
	}
	// The wire answer spells the fields as documented.
	b, _ := json.Marshal(got)
	for _, field := range []string{`"queue":{`, `"jobs":[`, `"redacted":true`, `"queuePosition":2`, `"ageSeconds":1800`, `"idleRoom":8`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("answer lacks %s: %s", field, b)
		}
	}

	// An operator sees every job in full.
	op, ferr := invoke(t, invocation("", "req-2"), h, []byte(`{"action":"queue"}`))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	for _, j := range op.Queue.Jobs {
		if j.Redacted || j.JobID == "" {
			t.Errorf("operator's view redacts %+v", j)
		}
	}
	// Each status is listed once per call, RUNNABLE's and RUNNING's among
	// them (the fake answers a status with its jobs only).
	var statuses []string
	for _, call := range fake.Calls("ListServiceJobs") {
		var in struct{ JobStatus string }
		_ = json.Unmarshal(call.Body, &in)
		statuses = append(statuses, in.JobStatus)
	}
	wantStatuses := []string{"RUNNING", "STARTING", "SCHEDULED", "RUNNABLE", "RUNNING", "STARTING", "SCHEDULED", "RUNNABLE"}
	if diff := cmp.Diff(wantStatuses, statuses); diff != "" {
		t.Errorf("listed statuses (-want +got):\n%s", diff)
	}
}

// TestQueueIsBounded: 105 RUNNABLE jobs take two pages of 100 and 5; the
// answer holds MaxQueueJobs (100) of them, the front of the queue first,
// and says that it left 5 out.
func TestQueueIsBounded(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := queueHandler(t, fake)
	var jobs []batchtest.Job
	for i := range 105 {
		jobs = append(jobs, queueJobAt(fake, fmt.Sprintf("j%03d", i), "vision", "RUNNABLE", 1, 200-i, 0))
	}
	// The newest job is at the front of the queue (a higher priority, say).
	fake.SetFront([]batchtest.Front{{JobARN: jobs[104].ARN}}, nil)
	got, ferr := invoke(t, invocation("", "req-1"), h, []byte(`{"action":"queue"}`))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	q := got.Queue
	if len(q.Jobs) != contract.MaxQueueJobs || !q.Truncated || !strings.Contains(q.Note, "105 jobs listed, the first 100 shown") {
		t.Fatalf("%d jobs, truncated %v, note %q: want 100, true and the count", len(q.Jobs), q.Truncated, q.Note)
	}
	// The front first, then oldest first: j104, j000, j001, …, j098.
	if q.Jobs[0].JobName != "j104" || q.Jobs[1].JobName != "j000" || q.Jobs[99].JobName != "j098" {
		t.Errorf("order %s, %s … %s, want j104, j000 … j098", q.Jobs[0].JobName, q.Jobs[1].JobName, q.Jobs[99].JobName)
	}
	if n := len(fake.Calls("DescribeServiceJob")); n != contract.MaxQueueJobs {
		t.Errorf("%d describes, want %d", n, contract.MaxQueueJobs)
	}
	// RUNNING, STARTING, SCHEDULED, and RUNNABLE on two pages.
	if n := len(fake.Calls("ListServiceJobs")); n != 5 {
		t.Errorf("%d ListServiceJobs calls, want 5", n)
	}
}

// TestQueueRefusesJobFields: the queue action takes no other field.
func TestQueueRefusesJobFields(t *testing.T) {
	fake := newFake(t)
	defer fake.Close()
	h := queueHandler(t, fake)
	_, ferr := invoke(t, invocation("research-vision", "req-1"), h, []byte(`{"action":"queue","jobId":"j","team":"nlp"}`))
	if ferr == nil || ferr.Type != string(contract.KindValidation) {
		t.Fatalf("got %+v, want a ValidationError", ferr)
	}
	if diff := cmp.Diff([]string{"jobId", "team"}, problemFields(ferr.Message)); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if n := len(fake.Calls("")); n != 0 {
		t.Errorf("%d Batch calls, want none", n)
	}
}
