package ledger

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/dynamotest"
)

var local *dynamotest.Server

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m, &local)) }

// newTable creates a fresh ledger table on the local DynamoDB.
func newTable(t *testing.T, now time.Time) *Store {
	t.Helper()
	c := local.Client()
	name := fmt.Sprintf("ledger-%d", rand.Int64())
	if err := local.CreateTable(context.Background(), dynamotest.LedgerTable(name)); err != nil {
		t.Fatalf("create table: %v", err)
	}
	s, err := NewStore(c, name, 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStoreGivesTheSameItemForEveryOrderOfFiveEvents runs every order of
// five of the job's events (5! = 120 jobs, 600 writes) through the real
// conditional writes, each order with one event sent twice.
func TestStoreGivesTheSameItemForEveryOrderOfFiveEvents(t *testing.T) {
	ctx := context.Background()
	s := newTable(t, time.UnixMilli(stop2).Add(time.Hour))

	five := []int{0, 3, 4, 6, 7} // RUNNABLE, RUNNING, requeued, RUNNING again, SUCCEEDED
	n := 0
	permutations(len(five), func(p []int) {
		id := fmt.Sprintf("job-%03d", n)
		n++
		events := lifeOf(id)
		seq := append([]int{}, p...)
		seq = append(seq, p[n%len(p)]) // one duplicate
		for _, i := range seq {
			if _, err := s.Record(ctx, events[five[i]]); err != nil {
				t.Fatal(err)
			}
		}
	})

	// The five events lack the SCHEDULED and STARTING events: the second
	// scheduling time is known from RUNNING again, the first from RUNNING.
	for i := range n {
		id := fmt.Sprintf("job-%03d", i)
		got, ok, err := s.Get(ctx, id)
		if err != nil || !ok {
			t.Fatalf("get %s: %v, found %v", id, err, ok)
		}
		if diff := cmp.Diff(wantJob(id), *got); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", id, diff)
		}
	}
}

// TestConcurrentWritersLoseNothing sends the eight events of 40 jobs,
// shuffled, each twice, from eight writers at once: the conditional put
// on the revision read makes a writer that lost the race read again.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	ctx := context.Background()
	s := newTable(t, time.UnixMilli(stop2).Add(time.Hour))
	var all []Observation
	for i := range 40 {
		ev := lifeOf(fmt.Sprintf("job-%02d", i))
		all = append(all, ev...)
		all = append(all, ev...)
	}
	r := rand.New(rand.NewPCG(3, 4))
	r.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
	work := make(chan Observation)
	var wg sync.WaitGroup
	errs := make(chan error, len(all))
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				if _, err := s.Record(ctx, o); err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, o := range all {
		work <- o
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range 40 {
		id := fmt.Sprintf("job-%02d", i)
		got, _, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantJob(id), *got); diff != "" {
			t.Fatalf("%s (-want +got):\n%s", id, diff)
		}
	}
	st := s.Stats()
	// 640 observations; each reads at least once, and a put happens only
	// when an observation adds something.
	if st.Gets < 640 || st.Puts > st.Gets {
		t.Errorf("stats %+v: want at least 640 reads and no more puts than reads", st)
	}
	t.Logf("stats: %+v", st)
}

func TestJobsReadsTheJobsAliveInAWindow(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	now := time.UnixMilli(t0).Add(10 * day)
	s := newTable(t, now)
	// ended: a job created on day 0 that ended on day 0, one created day 1
	// ended day 3, one created day 5 still running, one created day 8
	// ended day 8.
	mk := func(id string, created, ended time.Duration) {
		o := Observation{JobID: id, Team: "t", Class: "c", Status: "RUNNING", CreatedAt: t0 + created.Milliseconds(),
			StartedAt: t0 + created.Milliseconds() + 1000}
		if ended > 0 {
			o.Status, o.StoppedAt = "SUCCEEDED", t0+ended.Milliseconds()
		}
		if _, err := s.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	mk("a", 0, 2*time.Hour)
	mk("b", day, 3*day+time.Hour)
	mk("c", 5*day, 0)
	mk("d", 8*day, 8*day+time.Hour)
	for _, c := range []struct {
		name        string
		since, till time.Duration
		want        []string
	}{
		// [day 2, day 4]: b ran through it; a ended before; c, d created after.
		{"a job that started before the window and ended in it", 2 * day, 4 * day, []string{"b"}},
		// [day 6, day 7]: c is still running.
		{"a running job", 6 * day, 7 * day, []string{"c"}},
		{"all", 0, 10 * day, []string{"a", "b", "c", "d"}},
	} {
		got := map[string]bool{}
		err := s.Jobs(ctx, time.UnixMilli(t0).Add(c.since), time.UnixMilli(t0).Add(c.till), func(j *Job) error {
			got[j.JobID] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, id := range c.want {
			want[id] = true
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestTheTestsTableIsTheLedgers holds the table the tests create
// (dynamotest.LedgerTable, which names its keys itself) to this package's
// names: the job id as key, the byEnd index by end day and job id.
func TestTheTestsTableIsTheLedgers(t *testing.T) {
	in := dynamotest.LedgerTable("x")
	got := []string{*in.KeySchema[0].AttributeName, *in.GlobalSecondaryIndexes[0].IndexName,
		*in.GlobalSecondaryIndexes[0].KeySchema[0].AttributeName, *in.GlobalSecondaryIndexes[0].KeySchema[1].AttributeName}
	if diff := cmp.Diff([]string{KeyJobID, IndexByEnd, KeyEndDay, KeyJobID}, got); diff != "" {
		t.Errorf("key, index, index key and sort key (-ledger +dynamotest):\n%s", diff)
	}
}
