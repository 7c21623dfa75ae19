package ledger

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/trainq/trainq/ledger/dynamo"
)

// API is the part of the DynamoDB client the ledger uses. The observer's
// role is granted GetItem and PutItem on the table; the submission
// function's, Query on its index and GetItem.
type API interface {
	GetItem(context.Context, *dynamo.GetItemInput) (*dynamo.GetItemOutput, error)
	PutItem(context.Context, *dynamo.PutItemInput) (*dynamo.PutItemOutput, error)
	Query(context.Context, *dynamo.QueryInput) (*dynamo.QueryOutput, error)
}

// Store reads and writes one ledger table.
type Store struct {
	api       API
	table     string
	retention time.Duration
	now       func() time.Time
	stats     counters
}

// Stats count a store's DynamoDB calls and the capacity DynamoDB reported
// for them (ReturnConsumedCapacity TOTAL: the table's and its index's), so
// that a benchmark can price a month from them.
type Stats struct {
	Gets, Puts, Conflicts, Queries int64
	ReadUnits, WriteUnits          float64
}

type counters struct {
	gets, puts, conflicts, queries atomic.Int64
	readMilli, writeMilli          atomic.Int64
}

// NewStore returns a store of table. retention is how long an ended job is
// kept (0: DefaultRetention); now stamps the expiry of jobs with no time
// of their own and bounds reads (nil: time.Now).
func NewStore(api API, table string, retention time.Duration, now func() time.Time) (*Store, error) {
	if api == nil || table == "" {
		return nil, fmt.Errorf("new ledger store: got client %v and table %q; both are required", api != nil, table)
	}
	if retention <= 0 {
		retention = DefaultRetention
	}
	if now == nil {
		now = time.Now
	}
	return &Store{api: api, table: table, retention: retention, now: now}, nil
}

// Open is the store of a function: the ledger table named table, through
// package dynamo's client of cfg (region, credentials and endpoint from the
// function's environment, package awsenv), keeping a job retention after it
// ended.
func Open(cfg aws.Config, table string, retention time.Duration) (*Store, error) {
	c, err := dynamo.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("open ledger %s: %w", table, err)
	}
	return NewStore(c, table, retention, time.Now)
}

// Table is the table's name.
func (s *Store) Table() string { return s.table }

// Stats returns the calls counted so far.
func (s *Store) Stats() Stats {
	return Stats{Gets: s.stats.gets.Load(), Puts: s.stats.puts.Load(), Conflicts: s.stats.conflicts.Load(),
		Queries: s.stats.queries.Load(), ReadUnits: float64(s.stats.readMilli.Load()) / 1000,
		WriteUnits: float64(s.stats.writeMilli.Load()) / 1000}
}

func (c *counters) consumed(cc *dynamo.ConsumedCapacity, write bool) {
	if cc == nil || cc.CapacityUnits == nil {
		return
	}
	milli := int64(*cc.CapacityUnits * 1000)
	if write {
		c.writeMilli.Add(milli)
	} else {
		c.readMilli.Add(milli)
	}
}

// maxRecordTries bounds the read-merge-write rounds of one observation:
// each lost round means another writer changed the item in between.
const maxRecordTries = 8

// Record merges o into its job's item: a consistent read, Merge, and a put
// conditional on the revision read (or on no item, for a new job). An
// observation that adds nothing writes nothing; a put that loses to a
// concurrent writer reads again. It reports whether the item changed.
func (s *Store) Record(ctx context.Context, o Observation) (bool, error) {
	if o.JobID == "" {
		return false, errors.New("record job: the observation has no job id")
	}
	key := dynamo.Item{KeyJobID: dynamo.S(o.JobID)}
	for try := 0; try < maxRecordTries; try++ {
		got, err := s.api.GetItem(ctx, &dynamo.GetItemInput{TableName: s.table, Key: key,
			ConsistentRead: true, ReturnConsumedCapacity: dynamo.ReturnTotal})
		s.stats.gets.Add(1)
		if err != nil {
			return false, fmt.Errorf("record job %s: read %s: %w", o.JobID, s.table, err)
		}
		s.stats.consumed(got.ConsumedCapacity, false)
		var j Job
		rev := int64(0)
		if len(got.Item) > 0 {
			if j, rev, err = decodeJob(got.Item); err != nil {
				return false, fmt.Errorf("record job %s: %w", o.JobID, err)
			}
		}
		if !Merge(&j, o) && len(got.Item) > 0 {
			return false, nil
		}
		in := &dynamo.PutItemInput{TableName: s.table, Item: s.encodeJob(&j, rev+1),
			ReturnConsumedCapacity: dynamo.ReturnTotal}
		if len(got.Item) == 0 {
			in.ConditionExpression = "attribute_not_exists(#k)"
			in.ExpressionAttributeNames = map[string]string{"#k": KeyJobID}
		} else {
			in.ConditionExpression = "#r = :r"
			in.ExpressionAttributeNames = map[string]string{"#r": AttrRevision}
			in.ExpressionAttributeValues = dynamo.Item{":r": dynamo.N(rev)}
		}
		put, err := s.api.PutItem(ctx, in)
		s.stats.puts.Add(1)
		if dynamo.IsConditionFailed(err) {
			s.stats.conflicts.Add(1)
			continue
		}
		if err != nil {
			return false, fmt.Errorf("record job %s: write %s: %w", o.JobID, s.table, err)
		}
		s.stats.consumed(put.ConsumedCapacity, true)
		return true, nil
	}
	return false, fmt.Errorf("record job %s: %d concurrent writes in a row changed the item; retry the event", o.JobID, maxRecordTries)
}

// Get returns a job's item, and false when the ledger has none.
func (s *Store) Get(ctx context.Context, jobID string) (*Job, bool, error) {
	got, err := s.api.GetItem(ctx, &dynamo.GetItemInput{TableName: s.table,
		Key: dynamo.Item{KeyJobID: dynamo.S(jobID)}, ReturnConsumedCapacity: dynamo.ReturnTotal})
	s.stats.gets.Add(1)
	if err != nil {
		return nil, false, fmt.Errorf("read job %s from %s: %w", jobID, s.table, err)
	}
	s.stats.consumed(got.ConsumedCapacity, false)
	if len(got.Item) == 0 {
		return nil, false, nil
	}
	j, _, err := decodeJob(got.Item)
	if err != nil {
		return nil, false, err
	}
	return &j, true, nil
}

// Jobs calls fn with every job alive at some moment of [since, until]:
// created at or before until, and not ended before since (running jobs
// included). It queries IndexByEnd's OpenDay partition, then each day from
// since's to today's, page by page: memory is one page, whatever the
// number of jobs. Jobs come in no particular order. fn's error stops the
// read and is returned.
func (s *Store) Jobs(ctx context.Context, since, until time.Time, fn func(*Job) error) error {
	_, err := s.JobsPage(ctx, since, until, "", 0, 0, func(j *Job) (bool, error) { return true, fn(j) })
	return err
}

// expiresAt is when DynamoDB may delete the item: the retention after the
// job's last known moment.
func (s *Store) expiresAt(j *Job) int64 {
	last := max(j.EndedAt, j.CreatedAt, j.Seq%orderTerminal/10)
	if last == 0 {
		last = s.now().UnixMilli()
	}
	return time.UnixMilli(last).Add(s.retention).Unix()
}
