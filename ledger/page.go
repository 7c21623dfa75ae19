package ledger

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/ledger/dynamo"
)

// MaxCursorBytes bounds a cursor (JobsPage): a day and a job id.
const MaxCursorBytes = 512

// ErrCursor is JobsPage's error for a cursor that is not one of the
// window's pages.
var ErrCursor = errors.New("not the next of a page of this window; start again without it")

// cursor is where a paged read stopped: the IndexByEnd partition (a day
// or OpenDay) and the last job id read in it ("" for its beginning).
type cursor struct {
	Day string `json:"d"`
	ID  string `json:"k,omitempty"`
}

// JobsPage is Jobs a page at a time, for readers whose answer is bounded
// (a function's response): from cursor ("" for the beginning) it calls
// keep with each job alive in [since, until], and stops once keep has
// accepted limit jobs or maxCalls queries were made (0: no bound). It
// returns the cursor of the rest, "" when the window has been read whole.
// A cursor is opaque to callers; one that names no partition of the
// window is refused. Each query asks at most the jobs still wanted, so a
// page never holds more than limit.
//
// A job that ends while a window is read page by page moves from the
// OpenDay partition (read first) to its end day's, and may be seen twice:
// running, then ended.
func (s *Store) JobsPage(ctx context.Context, since, until time.Time, from string, limit, maxCalls int, keep func(*Job) (bool, error)) (string, error) {
	if until.Before(since) {
		return "", fmt.Errorf("read jobs: until %s is before since %s", until.UTC().Format(time.RFC3339), since.UTC().Format(time.RFC3339))
	}
	lo, hi := since.UnixMilli(), until.UnixMilli()
	return s.page(ctx, s.partitions(since), from, limit, maxCalls, func(j *Job) (bool, error) {
		if j.CreatedAt > hi || j.EndedAt > 0 && j.EndedAt < lo {
			return false, nil
		}
		return keep(j)
	})
}

// OpenJobs calls keep with every job the ledger holds as not ended (the
// OpenDay partition), at most maxCalls queries (0: no bound), and returns
// the cursor of the rest ("" when all were read).
func (s *Store) OpenJobs(ctx context.Context, from string, maxCalls int, keep func(*Job) (bool, error)) (string, error) {
	return s.page(ctx, []string{OpenDay}, from, 0, maxCalls, keep)
}

// page reads the IndexByEnd partitions days from the cursor from, as
// JobsPage says.
func (s *Store) page(ctx context.Context, days []string, from string, limit, maxCalls int, keep func(*Job) (bool, error)) (string, error) {
	at, start, err := parseCursor(from, days)
	if err != nil {
		return "", err
	}
	kept, calls := 0, 0
	for ; at < len(days); at, start = at+1, nil {
		day := days[at]
		for {
			if (limit > 0 && kept >= limit) || (maxCalls > 0 && calls >= maxCalls) {
				return encodeCursor(day, start), nil
			}
			in := &dynamo.QueryInput{TableName: s.table, IndexName: IndexByEnd,
				KeyConditionExpression:    "#d = :d",
				ExpressionAttributeNames:  map[string]string{"#d": KeyEndDay},
				ExpressionAttributeValues: dynamo.Item{":d": dynamo.S(day)},
				ExclusiveStartKey:         start, ReturnConsumedCapacity: dynamo.ReturnTotal}
			if limit > 0 {
				in.Limit = int32(min(limit-kept, 1<<30))
			}
			out, err := s.api.Query(ctx, in)
			s.stats.queries.Add(1)
			calls++
			if err != nil {
				return "", fmt.Errorf("read jobs ended %s from %s: %w", day, s.table, err)
			}
			s.stats.consumed(out.ConsumedCapacity, false)
			for _, item := range out.Items {
				j, _, err := decodeJob(item)
				if err != nil {
					return "", err
				}
				ok, err := keep(&j)
				if err != nil {
					return "", err
				}
				if ok {
					kept++
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			start = out.LastEvaluatedKey
		}
	}
	return "", nil
}

// partitions are the IndexByEnd partitions a window from since reads:
// OpenDay, then each day from since's (no earlier than the retention
// keeps) to today's.
func (s *Store) partitions(since time.Time) []string {
	days := []string{OpenDay}
	today := s.now().UTC()
	if maxBack := today.Add(-s.retention - 48*time.Hour); since.Before(maxBack) {
		since = maxBack // nothing older is kept
	}
	for d := since.UTC().Truncate(24 * time.Hour); !d.After(today); d = d.Add(24 * time.Hour) {
		days = append(days, d.Format(time.DateOnly))
	}
	return days
}

func encodeCursor(day string, start dynamo.Item) string {
	c := cursor{Day: day}
	if v := start[KeyJobID].S; v != nil {
		c.ID = *v
	}
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseCursor returns the partition index and the start key of from.
func parseCursor(from string, days []string) (int, dynamo.Item, error) {
	if from == "" {
		return 0, nil, nil
	}
	bad := fmt.Errorf("read jobs: cursor %q: %w", contract.Cut(from, 40), ErrCursor)
	if len(from) > MaxCursorBytes {
		return 0, nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(from)
	var c cursor
	if err != nil || json.Unmarshal(b, &c) != nil {
		return 0, nil, bad
	}
	at := slices.Index(days, c.Day)
	if at < 0 {
		return 0, nil, bad
	}
	if c.ID == "" {
		return at, nil, nil
	}
	return at, dynamo.Item{KeyEndDay: dynamo.S(c.Day), KeyJobID: dynamo.S(c.ID)}, nil
}
