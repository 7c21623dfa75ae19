package reconcile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/internal/awsmodel"
	"github.com/trainq/trainq/internal/batchevents"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/observe"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/reconcile"
)

const queue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"

var local *dynamotest.Server

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m, &local)) }

var tables int

func newStore(t *testing.T, now time.Time) *ledger.Store {
	t.Helper()
	tables++
	name := fmt.Sprintf("reconcile-%d", tables)
	if err := local.CreateTable(context.Background(), dynamotest.LedgerTable(name)); err != nil {
		t.Fatal(err)
	}
	s, err := ledger.NewStore(local.Client(), name, 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// batchOf is a fake Batch endpoint that describes each job as the detail
// of its event in now says (DescribeServiceJob's answer is the event
// detail with tags and the request: the Batch events reference), and
// answers ClientException for any other job, as Batch does for a job past
// its retention.
func batchOf(t *testing.T, now map[string][]byte) (*batchtest.Server, reconcile.BatchAPI) {
	t.Helper()
	details := map[string]json.RawMessage{}
	for id, ev := range now {
		var e struct{ Detail json.RawMessage }
		if err := json.Unmarshal(ev, &e); err != nil {
			t.Fatal(err)
		}
		details[id] = e.Detail
	}
	fake := batchtest.New(0)
	t.Cleanup(fake.Close)
	fake.Handle("DescribeServiceJob", func(body []byte) (int, any) {
		var in struct {
			JobID string `json:"jobId"`
		}
		_ = json.Unmarshal(body, &in)
		d, ok := details[in.JobID]
		if !ok {
			return batchtest.Error(400, "ClientException", "Job "+in.JobID+" not found")
		}
		return 200, d
	})
	client := batchsdk.NewClient(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(fake.URL)}, batchsdk.RetryPolicy{MaxAttempts: 1})
	return fake, client
}

func id(n int) string { return fmt.Sprintf("%08x-0000-4000-8000-000000000000", n) }

// record feeds events to an observer writing s.
func record(t *testing.T, s *ledger.Store, now time.Time, events [][]byte) {
	t.Helper()
	obs, err := observe.NewObserver(platform.Default(), queue, func() time.Time { return now }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	obs.SetLedger(s)
	for _, e := range events {
		if _, err := obs.Invoke(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// describedJobs are the job ids the fake was asked to describe, sorted.
func describedJobs(fake *batchtest.Server) []string {
	var ids []string
	for _, call := range fake.Calls("DescribeServiceJob") {
		var in struct {
			JobID string `json:"jobId"`
		}
		_ = json.Unmarshal(call.Body, &in)
		ids = append(ids, in.JobID)
	}
	slices.Sort(ids)
	return ids
}

// sameAsTheirEvents checks that each job's item in store is the item in
// whole, the ledger of every event of the same lives; lastScheduled keeps
// only whole's latest scheduling moment (all a description gives).
func sameAsTheirEvents(t *testing.T, store, whole *ledger.Store, lastScheduled bool, jobs ...batchevents.Job) {
	t.Helper()
	for _, j := range jobs {
		got, found, err := store.Get(context.Background(), j.ID)
		if err != nil {
			t.Fatal(err)
		}
		ref, _, err := whole.Get(context.Background(), j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			t.Errorf("job %s is not in the ledger after the pass", j.Name)
			continue
		}
		if lastScheduled && len(ref.Scheduled) > 0 {
			ref.Scheduled = ref.Scheduled[len(ref.Scheduled)-1:]
		}
		if diff := cmp.Diff(ref, got); diff != "" {
			t.Errorf("job %s after the pass differs from its whole stream of events (-events +pass):\n%s", j.Name, diff)
		}
	}
}

// TestAPassCompletesJobsWhoseEventsWereLost: jobs whose later events never
// reached the observer end up as the whole stream of their events would
// have left them; a job Batch no longer knows stays open; a job seen
// within the grace is left to its events.
func TestAPassCompletesJobsWhoseEventsWereLost(t *testing.T) {
	ctx := context.Background()
	const minute = int64(60_000)
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 600*minute) // 10 h
	p := platform.Default()
	research, _ := p.Class("research")
	base := func(n int, name string) batchevents.Job {
		return batchevents.Job{ID: id(n), Name: name, Queue: queue, Share: "search-ranking", Priority: research.SchedulingPriority(50),
			InstanceType: "ml.p5.48xlarge", Instances: 4, CreatedAt: d0, TimeoutSeconds: 7200, PreemptionRetries: 20}
	}
	// a: preempted at 2 h, then completed 3 h-5 h; the observer saw it
	// only up to its first RUNNING (events 1-4 of 9).
	a := base(1, "a")
	a.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 50*minute, StartedAt: d0 + 60*minute, StoppedAt: d0 + 120*minute, Preempted: true},
		{ScheduledAt: d0 + 170*minute, StartedAt: d0 + 180*minute, StoppedAt: d0 + 300*minute}}
	a.Succeeded = true
	// b: ran its 2 h limit 1 h-3 h and failed; the observer saw only its
	// RUNNABLE.
	b := base(2, "b")
	b.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 55*minute, StartedAt: d0 + 60*minute, StoppedAt: d0 + 180*minute}}
	b.Reason = batchevents.ReasonTimedOut
	// c: running since 1 h, every event seen.
	c := base(3, "c")
	c.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 55*minute, StartedAt: d0 + 60*minute}}
	// d: submitted 5 min ago (within the 10-minute grace), RUNNABLE.
	d := base(4, "d")
	d.CreatedAt = now.UnixMilli() - 5*minute
	// e: RUNNABLE since d0 in the ledger; Batch no longer knows it.
	e := base(5, "e")

	evA, evB, evC, evD := batchevents.Events(a), batchevents.Events(b), batchevents.Events(c), batchevents.Events(d)
	cRunning := evC[:4] // RUNNABLE, SCHEDULED, STARTING, RUNNING: c's whole life so far
	store := newStore(t, now)
	record(t, store, now, slices.Concat(evA[:4], evB[:1], cRunning, evD[:1], batchevents.Events(e)[:1]))
	// The reference: every event of the same lives, none lost.
	whole := newStore(t, now)
	record(t, whole, now, slices.Concat(evA, evB, cRunning))

	// What Batch says now: a and b ended, c runs, d waits.
	fake, client := batchOf(t, map[string][]byte{a.ID: evA[len(evA)-1], b.ID: evB[len(evB)-1], c.ID: cRunning[3], d.ID: evD[0]})
	sum, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	// Five open jobs; d within the grace; a (running in the ledger)
	// first, then b, c's and e's descriptions: a and b change, c adds
	// nothing, e is gone.
	want := reconcile.Summary{Open: 5, Stale: 4, Described: 4, Changed: 2, Gone: 1}
	if sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	described := describedJobs(fake)
	if want := []string{a.ID, b.ID, c.ID, e.ID}; !slices.Equal(described, want) {
		t.Errorf("described %v, want a, b, c and e (%v), never d (seen within the grace)", described, want)
	}
	sameAsTheirEvents(t, store, whole, false, a, b, c)
	// By hand: a succeeded at 5 h after a preempted attempt; b timed out
	// (its attempt ran its 7,200 s limit) at 3 h; e stays open.
	got, _, _ := store.Get(ctx, a.ID)
	if got.Outcome() != ledger.OutcomeSucceeded || got.EndedAt != d0+300*minute || len(got.Attempts) != 2 || !got.Attempts[0].Preempted {
		t.Errorf("a: %s ended %d with %+v, want succeeded at 5 h after a preempted attempt", got.Outcome(), got.EndedAt, got.Attempts)
	}
	got, _, _ = store.Get(ctx, b.ID)
	if got.Outcome() != ledger.OutcomeTimedOut || got.EndedAt != d0+180*minute {
		t.Errorf("b: %s ended %d, want timed-out at 3 h", got.Outcome(), got.EndedAt)
	}
	got, _, _ = store.Get(ctx, e.ID)
	if got.Ended() {
		t.Errorf("e: %s, want it left open (Batch no longer describes it)", got.Status)
	}

	// A second pass finds the same ledger and writes nothing new.
	again, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed != 0 || again.Open != 3 {
		t.Errorf("second pass %+v, want 3 open jobs (c, d, e) and nothing changed", again)
	}
}

// TestPassesDescribeEveryWaitingJobInTurns: 25 stale waiting jobs and
// room for 10 descriptions a pass: each pass describes at most 10, and
// three consecutive passes (ceil(25/10)) describe every one.
func TestPassesDescribeEveryWaitingJobInTurns(t *testing.T) {
	ctx := context.Background()
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0).Add(6 * time.Hour)
	p := platform.Default()
	sweep, _ := p.Class("sweep")
	store := newStore(t, now)
	lives := map[string][]byte{}
	var events [][]byte
	for n := range 25 {
		j := batchevents.Job{ID: id(100 + n), Name: fmt.Sprintf("w%d", n), Queue: queue, Share: "search-research", Priority: sweep.SchedulingPriority(50),
			InstanceType: "ml.p4d.24xlarge", Instances: 1, CreatedAt: d0 + int64(n)*1000}
		lives[j.ID] = batchevents.Events(j)[0]
		events = append(events, lives[j.ID])
	}
	record(t, store, now, events)
	fake, client := batchOf(t, lives)
	seen := map[string]bool{}
	for pass := range 3 {
		at := now.Add(time.Duration(pass) * reconcile.DefaultInterval)
		before := len(fake.Calls("DescribeServiceJob"))
		if _, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, MaxDescribes: 10, Now: func() time.Time { return at }}); err != nil {
			t.Fatal(err)
		}
		calls := fake.Calls("DescribeServiceJob")[before:]
		if len(calls) > 10 {
			t.Errorf("pass %d made %d DescribeServiceJob calls, want at most 10", pass, len(calls))
		}
		for _, c := range calls {
			var in struct {
				JobID string `json:"jobId"`
			}
			_ = json.Unmarshal(c.Body, &in)
			seen[in.JobID] = true
		}
	}
	if len(seen) != 25 {
		t.Errorf("three passes described %d of the 25 waiting jobs, want every one", len(seen))
	}
}

// TestThePassIsDueOncePerInterval: the poller runs every minute; the pass
// runs in the first minute of each 15 (12:00, 12:15, ...), whatever the
// second the run starts at.
func TestThePassIsDueOncePerInterval(t *testing.T) {
	c := reconcile.Config{}
	day := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		at   time.Duration
		want bool
	}{
		{30 * time.Second, true}, {59 * time.Second, true}, {time.Minute + 10*time.Second, false},
		{14*time.Minute + 59*time.Second, false}, {15*time.Minute + 5*time.Second, true}, {16 * time.Minute, false},
	} {
		if got := c.Due(day.Add(tc.at)); got != tc.want {
			t.Errorf("Due at 12:00 + %s = %v, want %v", tc.at, got, tc.want)
		}
	}
	// Over a day of minute runs: 24 × 60 / 15 = 96 passes.
	n := 0
	for m := range 24 * 60 {
		if c.Due(day.Add(time.Duration(m)*time.Minute + 17*time.Second)) {
			n++
		}
	}
	if n != 96 {
		t.Errorf("%d passes a day, want 96", n)
	}
}

// listing answers ListServiceJobs from the jobs' current event details
// (a ServiceJobSummary is a subset of the detail, under the same names):
// the jobs of the queue in jobStatus, newest created first, as the API
// reference sorts a listing by createdAt; pages of maxResults, nextToken
// the offset of the next page.
func listing(t *testing.T, fake *batchtest.Server, now map[string][]byte) {
	t.Helper()
	type summary struct {
		id, status string
		created    int64
		detail     json.RawMessage
	}
	var all []summary
	for id, ev := range now {
		var e struct {
			Detail json.RawMessage
		}
		var d struct {
			Status    string
			CreatedAt int64
		}
		if err := json.Unmarshal(ev, &e); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(e.Detail, &d); err != nil {
			t.Fatal(err)
		}
		all = append(all, summary{id, d.Status, d.CreatedAt, e.Detail})
	}
	slices.SortFunc(all, func(a, b summary) int {
		if a.created != b.created {
			return int(b.created - a.created)
		}
		return strings.Compare(a.id, b.id)
	})
	fake.Handle("ListServiceJobs", func(body []byte) (int, any) {
		var in struct {
			JobQueue   string `json:"jobQueue"`
			JobStatus  string `json:"jobStatus"`
			MaxResults int    `json:"maxResults"`
			NextToken  string `json:"nextToken"`
		}
		_ = json.Unmarshal(body, &in)
		var page []json.RawMessage
		from, _ := strconv.Atoi(in.NextToken)
		answer := map[string]any{}
		n := 0
		for _, s := range all {
			if s.status != in.JobStatus {
				continue
			}
			if n++; n <= from {
				continue
			}
			if len(page) == in.MaxResults {
				answer["nextToken"] = strconv.Itoa(from + len(page))
				break
			}
			page = append(page, s.detail)
		}
		answer["jobSummaryList"] = page
		return 200, answer
	})
}

// TestAPassFindsJobsWhoseEveryEventWasLost: jobs the ledger never saw are
// found by listing the queue's recent ended and running jobs, described
// and recorded as the whole stream of their events would have left them;
// a job seen within the grace, a job of another share and a job whose
// priority no class holds are not recorded, and a job the ledger holds is
// not described for being listed. The requests are valid by AWS Batch's
// published model.
func TestAPassFindsJobsWhoseEveryEventWasLost(t *testing.T) {
	ctx := context.Background()
	const minute = int64(60_000)
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 600*minute)
	p := platform.Default()
	research, _ := p.Class("research")
	base := func(n int, name string) batchevents.Job {
		return batchevents.Job{ID: id(n), Name: name, Queue: queue, Share: "search-research", Priority: research.SchedulingPriority(50),
			InstanceType: "ml.p5.48xlarge", Instances: 2, CreatedAt: d0, TimeoutSeconds: 7200, PreemptionRetries: 20}
	}
	// seen: succeeded 1 h-2 h, every event recorded.
	seen := base(1, "seen")
	seen.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 50*minute, StartedAt: d0 + 60*minute, StoppedAt: d0 + 120*minute}}
	seen.Succeeded = true
	// ended: every event lost; preempted at 3 h, then succeeded 4 h-6 h.
	ended := base(2, "ended")
	ended.CreatedAt = d0 + 100*minute
	ended.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 110*minute, StartedAt: d0 + 120*minute, StoppedAt: d0 + 180*minute, Preempted: true},
		{ScheduledAt: d0 + 230*minute, StartedAt: d0 + 240*minute, StoppedAt: d0 + 360*minute}}
	ended.Succeeded = true
	// running: every event lost; running since 8 h.
	running := base(3, "running")
	running.CreatedAt = d0 + 400*minute
	running.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 470*minute, StartedAt: d0 + 480*minute}}
	// fresh: started 3 minutes ago, within the grace: its events may be
	// in flight.
	fresh := base(4, "fresh")
	fresh.CreatedAt = d0 + 500*minute
	fresh.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 590*minute, StartedAt: d0 + 597*minute}}
	// other: a share no team of the platform has.
	other := base(5, "other")
	other.Share = "someone-else"
	other.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 50*minute, StartedAt: d0 + 60*minute}}
	// unbanded: a team's share, a scheduling priority no class holds.
	unbanded := base(6, "unbanded")
	unbanded.Priority = 9999
	unbanded.Attempts = []batchevents.Attempt{{ScheduledAt: d0 + 50*minute, StartedAt: d0 + 60*minute, StoppedAt: d0 + 70*minute}}
	unbanded.Succeeded = true
	if _, ok := p.ClassForPriority(9999); ok {
		t.Fatal("the default platform has a class at priority 9999; the test needs a priority outside every band")
	}

	store := newStore(t, now)
	record(t, store, now, batchevents.Events(seen))
	whole := newStore(t, now)
	evEnded, evRunning := batchevents.Events(ended), batchevents.Events(running)
	record(t, whole, now, slices.Concat(evEnded, evRunning[:4]))

	last := func(j batchevents.Job) []byte { ev := batchevents.Events(j); return ev[len(ev)-1] }
	current := map[string][]byte{seen.ID: last(seen), ended.ID: last(ended), running.ID: evRunning[3], fresh.ID: batchevents.Events(fresh)[3],
		other.ID: batchevents.Events(other)[3], unbanded.ID: last(unbanded)}
	fake, client := batchOf(t, current)
	listing(t, fake, current)
	sum, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	// Listed: seen, ended, unbanded (SUCCEEDED), running, fresh, other
	// (RUNNING). Unknown: ended, running, unbanded (fresh is within the
	// grace, other's share is no team's, seen is in the ledger); all three
	// described, unbanded not recorded.
	want := reconcile.Summary{Listed: 6, Unknown: 3, Described: 3, Changed: 2, Foreign: 1}
	if sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	described := describedJobs(fake)
	if want := []string{ended.ID, running.ID, unbanded.ID}; !slices.Equal(described, want) {
		t.Errorf("described %v, want ended, running and unbanded (%v)", described, want)
	}
	// A description has only the latest scheduledAt: the earlier
	// attempts' moments of scheduling were in the lost events alone.
	sameAsTheirEvents(t, store, whole, true, ended, running)
	// By hand: ended succeeded at 6 h after an attempt preempted at 3 h.
	if got, _, _ := store.Get(ctx, ended.ID); got == nil || got.Outcome() != ledger.OutcomeSucceeded || got.EndedAt != d0+360*minute || len(got.Attempts) != 2 || !got.Attempts[0].Preempted {
		t.Errorf("ended: %+v, want succeeded at 6 h after a preempted attempt", got)
	}
	for _, j := range []batchevents.Job{fresh, other, unbanded} {
		if _, found, _ := store.Get(ctx, j.ID); found {
			t.Errorf("job %s was recorded; want it left out", j.Name)
		}
	}
	// Every listing asked for one status of the queue, 100 at most.
	var reqs []awsmodel.Request
	statuses := map[string]bool{}
	for _, call := range fake.Calls("ListServiceJobs") {
		var in struct {
			JobQueue, JobStatus string
			MaxResults          int
		}
		_ = json.Unmarshal(call.Body, &in)
		statuses[in.JobStatus] = true
		if in.JobQueue != p.JobQueueName() || in.MaxResults != 100 {
			t.Errorf("ListServiceJobs %s, want the queue %s and maxResults 100", call.Body, p.JobQueueName())
		}
		reqs = append(reqs, awsmodel.Request{Operation: call.Op, Method: call.Method, Path: call.Path, Body: call.Body, Label: t.Name()})
	}
	for _, call := range fake.Calls("DescribeServiceJob") {
		reqs = append(reqs, awsmodel.Request{Operation: call.Op, Method: call.Method, Path: call.Path, Body: call.Body, Label: t.Name()})
	}
	if len(statuses) != len(reconcile.ListedStatuses) {
		t.Errorf("listed statuses %v, want each of %v", statuses, reconcile.ListedStatuses)
	}
	awsmodel.Validate(t, reqs)

	// A second pass finds them all in the ledger: nothing unknown.
	again, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if again.Unknown != 1 || again.Foreign != 1 {
		t.Errorf("second pass %+v, want only unbanded unknown again (and not recorded)", again)
	}
}

// TestTheListingIsBoundedPerPass: 150 ended jobs the ledger never saw,
// one page a status and room for 10 descriptions: the pass lists the
// newest 100 (one call for each listed status), says the listing was cut
// short, and describes and records the 10 newest.
func TestTheListingIsBoundedPerPass(t *testing.T) {
	ctx := context.Background()
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0).Add(6 * time.Hour)
	p := platform.Default()
	sweep, _ := p.Class("sweep")
	current := map[string][]byte{}
	var ids []string
	for n := range 150 {
		j := batchevents.Job{ID: id(200 + n), Name: fmt.Sprintf("e%d", n), Queue: queue, Share: "search-research", Priority: sweep.SchedulingPriority(50),
			InstanceType: "ml.p4d.24xlarge", Instances: 1, CreatedAt: d0 + int64(n)*1000, Succeeded: true,
			Attempts: []batchevents.Attempt{{ScheduledAt: d0 + 3_600_000, StartedAt: d0 + 3_660_000, StoppedAt: d0 + 7_200_000}}}
		ev := batchevents.Events(j)
		current[j.ID] = ev[len(ev)-1]
		ids = append(ids, j.ID)
	}
	store := newStore(t, now)
	fake, client := batchOf(t, current)
	listing(t, fake, current)
	sum, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, MaxDescribes: 10, MaxListPages: 1, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	want := reconcile.Summary{Listed: 100, Unknown: 100, Described: 10, Changed: 10, ListTruncated: true}
	if sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if n := len(fake.Calls("ListServiceJobs")); n != len(reconcile.ListedStatuses) {
		t.Errorf("%d ListServiceJobs calls, want one for each of the %d listed statuses", n, len(reconcile.ListedStatuses))
	}
	// The newest are the last created: e149 down to e140.
	for n, jid := range ids {
		_, found, err := store.Get(ctx, jid)
		if err != nil {
			t.Fatal(err)
		}
		if found != (n >= 140) {
			t.Errorf("job e%d in the ledger: %v, want %v (the 10 newest recorded)", n, found, n >= 140)
		}
	}
}

// TestAPassOutOfTimeStops: with less time left than the margin, the pass
// makes no call, records nothing, says it was cut short and fails
// nothing; the poller then answers before Lambda's deadline.
func TestAPassOutOfTimeStops(t *testing.T) {
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0).Add(6 * time.Hour)
	p := platform.Default()
	sweep, _ := p.Class("sweep")
	j := batchevents.Job{ID: id(400), Name: "late", Queue: queue, Share: "search-research", Priority: sweep.SchedulingPriority(50),
		InstanceType: "ml.p4d.24xlarge", Instances: 1, CreatedAt: d0, Succeeded: true,
		Attempts: []batchevents.Attempt{{ScheduledAt: d0 + 60_000, StartedAt: d0 + 120_000, StoppedAt: d0 + 3_600_000}}}
	ev := batchevents.Events(j)
	store := newStore(t, now)
	record(t, store, now, ev[:1])
	current := map[string][]byte{j.ID: ev[len(ev)-1]}
	fake, client := batchOf(t, current)
	listing(t, fake, current)
	// Two seconds left, a five-second margin.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	sum, err := reconcile.Run(ctx, reconcile.Config{Platform: p, Ledger: store, Batch: client, DeadlineMargin: 5 * time.Second, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatalf("a pass out of time failed: %v; want it cut short without an error", err)
	}
	if !sum.Cut || sum.Described != 0 {
		t.Errorf("summary %+v, want Cut and nothing described", sum)
	}
	if n := len(fake.Calls("ListServiceJobs")) + len(fake.Calls("DescribeServiceJob")); n != 0 {
		t.Errorf("%d Batch calls, want none", n)
	}
	if got, _, _ := store.Get(context.Background(), j.ID); got == nil || got.Ended() {
		t.Errorf("job after the cut pass: %+v, want it still open as its first event left it", got)
	}
	// With time, the same pass ends the job.
	if sum, err := reconcile.Run(context.Background(), reconcile.Config{Platform: p, Ledger: store, Batch: client, Now: func() time.Time { return now }}); err != nil || sum.Cut || sum.Changed != 1 {
		t.Errorf("pass with time: %+v, %v; want the job recorded ended", sum, err)
	}
}
