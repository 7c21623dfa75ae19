package ledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// API is the part of the DynamoDB client the ledger uses. The observer's
// role is granted GetItem and PutItem on the table; the submission
// function's, Query on its index and GetItem.
type API interface {
	GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
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

// Table is the table's name.
func (s *Store) Table() string { return s.table }

// Stats returns the calls counted so far.
func (s *Store) Stats() Stats {
	return Stats{Gets: s.stats.gets.Load(), Puts: s.stats.puts.Load(), Conflicts: s.stats.conflicts.Load(),
		Queries: s.stats.queries.Load(), ReadUnits: float64(s.stats.readMilli.Load()) / 1000,
		WriteUnits: float64(s.stats.writeMilli.Load()) / 1000}
}

func (c *counters) consumed(cc *types.ConsumedCapacity, write bool) {
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
	key := map[string]types.AttributeValue{KeyJobID: &types.AttributeValueMemberS{Value: o.JobID}}
	for try := 0; try < maxRecordTries; try++ {
		got, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key,
			ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
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
		in := &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: s.encodeJob(&j, rev+1),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
		if len(got.Item) == 0 {
			in.ConditionExpression = aws.String("attribute_not_exists(#k)")
			in.ExpressionAttributeNames = map[string]string{"#k": KeyJobID}
		} else {
			in.ConditionExpression = aws.String("#r = :r")
			in.ExpressionAttributeNames = map[string]string{"#r": AttrRevision}
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":r": num(rev)}
		}
		put, err := s.api.PutItem(ctx, in)
		s.stats.puts.Add(1)
		var lost *types.ConditionalCheckFailedException
		if errors.As(err, &lost) {
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
	got, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: map[string]types.AttributeValue{KeyJobID: &types.AttributeValueMemberS{Value: jobID}}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
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

func num(n int64) *types.AttributeValueMemberN {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
