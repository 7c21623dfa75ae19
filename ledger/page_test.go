package ledger

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestJobsPageReadsEveryJobOnceWhateverThePageSize records 23 jobs (5
// running, 18 ended over three days) and reads the window page by page
// with every limit from 1 to 24: each job comes exactly once, no page
// holds more than its limit, and the last page's cursor is empty.
func TestJobsPageReadsEveryJobOnceWhateverThePageSize(t *testing.T) {
	ctx := context.Background()
	day := int64(24 * 3_600_000)
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 3*day)
	s := newTable(t, now)
	var want []string
	for i := range 23 {
		id := fmt.Sprintf("job-%02d", i)
		o := Observation{JobID: id, Team: "search-ranking", Class: "research", InstanceType: "ml.p5.48xlarge", Instances: 1,
			Status: "RUNNING", CreatedAt: d0 + int64(i)*60_000, StartedAt: d0 + int64(i)*60_000 + 1000}
		if i >= 5 {
			// Ended on day 0, 1 or 2: three IndexByEnd partitions.
			o.Status, o.StoppedAt = "SUCCEEDED", d0+int64(i%3)*day+3_600_000
		}
		if _, err := s.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	since, until := time.UnixMilli(d0), now
	for limit := 1; limit <= 24; limit++ {
		var got []string
		cursor, pages := "", 0
		for {
			n := 0
			next, err := s.JobsPage(ctx, since, until, cursor, limit, 0, func(j *Job) (bool, error) {
				got = append(got, j.JobID)
				n++
				return true, nil
			})
			if err != nil {
				t.Fatalf("limit %d page %d: %v", limit, pages, err)
			}
			if n > limit {
				t.Errorf("limit %d: a page held %d jobs", limit, n)
			}
			pages++
			if next == "" {
				break
			}
			if pages > 100 {
				t.Fatalf("limit %d: the pages do not end", limit)
			}
			cursor = next
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: read %v, want every job once: %v", limit, got, want)
		}
	}
}

// TestJobsPageKeepsCountingOnlyAcceptedJobs: a filter that accepts one job
// in three still fills a page of 4 (reading on past the rejected), and a
// bound of one query a page answers with the cursor of the rest.
func TestJobsPageKeepsCountingOnlyAcceptedJobs(t *testing.T) {
	ctx := context.Background()
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now := time.UnixMilli(d0 + 3_600_000)
	s := newTable(t, now)
	for i := range 12 {
		o := Observation{JobID: fmt.Sprintf("job-%02d", i), Team: []string{"a", "b", "c"}[i%3], Status: "RUNNING", CreatedAt: d0, StartedAt: d0 + 1000}
		if _, err := s.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	keepA := func(got *[]string) func(j *Job) (bool, error) {
		return func(j *Job) (bool, error) {
			if j.Team != "a" {
				return false, nil
			}
			*got = append(*got, j.JobID)
			return true, nil
		}
	}
	// 12 jobs, 4 of team a: one page of 4 holds them all.
	var got []string
	if _, err := s.JobsPage(ctx, time.UnixMilli(d0), now, "", 4, 0, keepA(&got)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Errorf("a page of 4 kept %v, want the 4 jobs of team a", got)
	}
	// One query a page, asking 4 jobs each: 12 jobs take 3 pages and an
	// empty last one (DynamoDB gives a LastEvaluatedKey when it stops at
	// the limit), 4 of team a in all.
	got, cursor, pages := nil, "", 0
	for {
		next, err := s.JobsPage(ctx, time.UnixMilli(d0), now, cursor, 4, 1, keepA(&got))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if next == "" || pages > 10 {
			break
		}
		cursor = next
	}
	if len(got) != 4 || pages < 3 {
		t.Errorf("one query a page: %d pages kept %v, want at least 3 pages and the 4 jobs of team a", pages, got)
	}
}

// TestJobsPageRefusesACursorOfAnotherWindow: a cursor is the next of a
// page of this window, or refused with ErrCursor (never read as a start
// anywhere).
func TestJobsPageRefusesACursorOfAnotherWindow(t *testing.T) {
	ctx := context.Background()
	d0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	s := newTable(t, d0.Add(72*time.Hour))
	for _, c := range []string{"not base64!", "bm90IGpzb24", encodeCursor("2025-01-01", nil), encodeCursor("2026-11-30", nil)} {
		_, err := s.JobsPage(ctx, d0, d0.Add(24*time.Hour), c, 10, 0, func(*Job) (bool, error) { return true, nil })
		if !errors.Is(err, ErrCursor) {
			t.Errorf("cursor %q: got %v, want ErrCursor", c, err)
		}
	}
}
