package poll_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

// fillQueue adds n runnable jobs to f: job i (oldest first) was created
// n-i seconds before now, is of team search-ranking when i is even, else
// search-research; of production (priority 950) when i%3 == 0, research
// (550) when 1, sweep (150) when 2; and asks for one ml.p5.48xlarge when
// (i/6) is even, else one ml.p4d.24xlarge.
func fillQueue(f *batchtest.Server, n int, now time.Time) {
	teams := []string{"search-ranking", "search-research"}
	priorities := []int{950, 550, 150}
	types := []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}
	for i := range n {
		team, prio := teams[i%2], priorities[i%3]
		f.Add(batchtest.Job{
			Status:    "RUNNABLE",
			CreatedAt: now.Add(-time.Duration(n-i) * time.Second).UnixMilli(),
			Request: batchtest.SubmitRequest{
				JobName: fmt.Sprintf("job-%d", i), JobQueue: queueARN, QuotaShareName: &team, SchedulingPriority: &prio,
				ServiceRequestPayload: fmt.Sprintf(`{"TrainingJobName":"job-%d","ResourceConfig":{"InstanceType":%q,"InstanceCount":1,"VolumeSizeInGB":50}}`, i, types[(i/6)%2]),
			},
		})
	}
}

// TestBacklogIsExactPastTheOldCaps: 6,000 runnable jobs are past the 50
// pages (5,000 jobs) an earlier poller listed and the 200 jobs a run it
// described. Every count and oldest wait the poller writes in its first
// run equals the hand count below, and a second run describes nothing
// again.
func TestBacklogIsExactPastTheOldCaps(t *testing.T) {
	const n = 6000
	f := batchtest.New(0)
	t.Cleanup(f.Close)
	now := pollClock
	f.SetClock(func() time.Time { return now })
	fillQueue(f, n, now)
	// search-ranking holds its whole p5 quota (24): its p5 jobs wait on a full quota.
	f.SetShareUsed(map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 24}})
	f.SetUsed(map[string]float64{"ml.p5.48xlarge": 24})
	var out bytes.Buffer
	p, err := poll.NewPoller(poll.PollerConfig{
		Platform: platform.Default(), Queue: queueARN, Batch: batchClient(t, &fakeBatch{f}),
		Now: func() time.Time { return now }, Out: &out, CallsPerSecond: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := emftest.Values(emftest.Lines(t, out.Bytes()))
	rk, rs := "Team=search-ranking", "Team=search-research"
	p5, p4 := "InstanceType=ml.p5.48xlarge", "InstanceType=ml.p4d.24xlarge"
	// Job i waited n-i s; the oldest of a group is its smallest i.
	want := merge(
		backlog(6000, 6000, qd), // i = 0
		// i%3 = c: 2,000 each; oldest i = c.
		backlog(2000, 6000, "Class=production", qd), backlog(2000, 5999, "Class=research", qd), backlog(2000, 5998, "Class=sweep", qd),
		// i%6 fixes class and team: 1,000 each; oldest i = i%6.
		backlog(1000, 6000, "Class=production", qd, rk), backlog(1000, 5997, "Class=production", qd, rs), // i = 0, 3
		backlog(1000, 5996, "Class=research", qd, rk), backlog(1000, 5999, "Class=research", qd, rs), // i = 4, 1
		backlog(1000, 5998, "Class=sweep", qd, rk), backlog(1000, 5995, "Class=sweep", qd, rs), // i = 2, 5
		backlog(3000, 6000, qd, rk), backlog(3000, 5999, qd, rs), // i = 0, 1
		// (i/6)%2 = 0 is p5: i%12 < 6, 3,000 jobs, oldest i = 0; p4d oldest i = 6.
		backlog(3000, 6000, p5, qd), backlog(3000, 5994, p4, qd),
		// Full: search-ranking's p5 jobs, i%12 in {0, 2, 4}: 500 of each class.
		// production full i%12 = 0 (oldest 0), room the other 1,500 (oldest i = 3);
		// research full i%12 = 4 (oldest 4), room oldest i = 1;
		// sweep full i%12 = 2 (oldest 2), room oldest i = 5.
		backlog(500, 6000, "Class=production", qd, "Quota=FULL"), backlog(1500, 5997, "Class=production", qd, "Quota=ROOM"),
		backlog(500, 5996, "Class=research", qd, "Quota=FULL"), backlog(1500, 5999, "Class=research", qd, "Quota=ROOM"),
		backlog(500, 5998, "Class=sweep", qd, "Quota=FULL"), backlog(1500, 5995, "Class=sweep", qd, "Quota=ROOM"),
		map[string][]float64{key("RunnableUndescribed", qd): {0}},
	)
	for k, v := range want {
		if diff := cmp.Diff(v, got[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	// 6,000 jobs are 60 pages of 100; each job described once.
	if s.ListCalls != 60 || s.DescribeCalls != n || s.Undescribed != 0 {
		t.Errorf("first run: %+v; want 60 list calls, %d describes, none undescribed", s, n)
	}
	now = now.Add(time.Minute)
	s, err = p.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.DescribeCalls != 0 || s.Runnable != n {
		t.Errorf("second run: %+v; want the %d jobs listed and none described again", s, n)
	}
}
