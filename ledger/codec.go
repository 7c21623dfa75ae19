package ledger

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute names of an item (besides the keys, AttrExpiresAt and
// AttrRevision). Short, since every byte of every item is paid for on
// every write.
const (
	attrARN       = "arn"
	attrName      = "name"
	attrTeam      = "team"
	attrClass     = "class"
	attrPriority  = "prio"
	attrType      = "itype"
	attrInstances = "inst"
	attrCreated   = "created"
	attrScheduled = "sched"
	attrAttempts  = "att"
	attrPreempted = "pcount"
	attrTimeout   = "timeout"
	attrStatus    = "status"
	attrReason    = "reason"
	attrSeq       = "seq"
	attrEnded     = "ended"
	attrFrom      = "from"
	attrCkpt      = "ckpt"
	// attempt members
	attStart   = "s"
	attStop    = "e"
	attReason  = "r"
	attPreempt = "p"
	attJob     = "tj"
)

func (s *Store) encodeJob(j *Job, rev int64) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		KeyJobID:      &types.AttributeValueMemberS{Value: j.JobID},
		AttrRevision:  num(rev),
		AttrExpiresAt: num(s.expiresAt(j)),
		KeyEndDay:     &types.AttributeValueMemberS{Value: endDay(j)},
		attrPriority:  num(int64(j.Priority)),
		attrInstances: num(int64(j.Instances)),
		attrCreated:   num(j.CreatedAt),
		attrPreempted: num(int64(j.PreemptedCount)),
		attrTimeout:   num(int64(j.TimeoutSeconds)),
		attrSeq:       num(j.Seq),
		attrEnded:     num(j.EndedAt),
	}
	str := func(name, v string) {
		if v != "" {
			item[name] = &types.AttributeValueMemberS{Value: v}
		}
	}
	str(attrARN, j.JobARN)
	str(attrName, j.JobName)
	str(attrTeam, j.Team)
	str(attrClass, j.Class)
	str(attrType, j.InstanceType)
	str(attrStatus, j.Status)
	str(attrReason, j.StatusReason)
	str(attrFrom, j.ReroutedFrom)
	str(attrCkpt, j.Checkpoint)
	if len(j.Scheduled) > 0 {
		l := make([]types.AttributeValue, len(j.Scheduled))
		for i, t := range j.Scheduled {
			l[i] = num(t)
		}
		item[attrScheduled] = &types.AttributeValueMemberL{Value: l}
	}
	if len(j.Attempts) > 0 {
		l := make([]types.AttributeValue, len(j.Attempts))
		for i, a := range j.Attempts {
			m := map[string]types.AttributeValue{attStart: num(a.StartedAt), attStop: num(a.StoppedAt)}
			if a.StatusReason != "" {
				m[attReason] = &types.AttributeValueMemberS{Value: a.StatusReason}
			}
			if a.TrainingJob != "" {
				m[attJob] = &types.AttributeValueMemberS{Value: a.TrainingJob}
			}
			if a.Preempted {
				m[attPreempt] = &types.AttributeValueMemberBOOL{Value: true}
			}
			l[i] = &types.AttributeValueMemberM{Value: m}
		}
		item[attrAttempts] = &types.AttributeValueMemberL{Value: l}
	}
	return item
}

func endDay(j *Job) string {
	if j.EndedAt > 0 && Terminal(j.Status) {
		return Day(j.EndedAt)
	}
	return OpenDay
}

// decodeJob reads an item and its revision.
func decodeJob(item map[string]types.AttributeValue) (Job, int64, error) {
	var j Job
	var bad []string
	s := func(name string) string {
		switch v := item[name].(type) {
		case nil:
			return ""
		case *types.AttributeValueMemberS:
			return v.Value
		}
		bad = append(bad, name)
		return ""
	}
	n := func(m map[string]types.AttributeValue, name string) int64 {
		switch v := m[name].(type) {
		case nil:
			return 0
		case *types.AttributeValueMemberN:
			x, err := strconv.ParseInt(v.Value, 10, 64)
			if err == nil {
				return x
			}
		}
		bad = append(bad, name)
		return 0
	}
	j.JobID = s(KeyJobID)
	j.JobARN, j.JobName, j.Team, j.Class = s(attrARN), s(attrName), s(attrTeam), s(attrClass)
	j.InstanceType, j.Status, j.StatusReason = s(attrType), s(attrStatus), s(attrReason)
	j.ReroutedFrom, j.Checkpoint = s(attrFrom), s(attrCkpt)
	j.Priority, j.Instances = int(n(item, attrPriority)), int(n(item, attrInstances))
	j.CreatedAt, j.PreemptedCount, j.TimeoutSeconds = n(item, attrCreated), int(n(item, attrPreempted)), int(n(item, attrTimeout))
	j.Seq, j.EndedAt = n(item, attrSeq), n(item, attrEnded)
	rev := n(item, AttrRevision)
	if l, ok := item[attrScheduled].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			if x, ok := v.(*types.AttributeValueMemberN); ok {
				t, err := strconv.ParseInt(x.Value, 10, 64)
				if err == nil {
					j.Scheduled = append(j.Scheduled, t)
					continue
				}
			}
			bad = append(bad, attrScheduled)
		}
	}
	if l, ok := item[attrAttempts].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			m, ok := v.(*types.AttributeValueMemberM)
			if !ok {
				bad = append(bad, attrAttempts)
				continue
			}
			a := Attempt{StartedAt: n(m.Value, attStart), StoppedAt: n(m.Value, attStop)}
			if r, ok := m.Value[attReason].(*types.AttributeValueMemberS); ok {
				a.StatusReason = r.Value
			}
			if r, ok := m.Value[attJob].(*types.AttributeValueMemberS); ok {
				a.TrainingJob = r.Value
			}
			if p, ok := m.Value[attPreempt].(*types.AttributeValueMemberBOOL); ok {
				a.Preempted = p.Value
			}
			j.Attempts = append(j.Attempts, a)
		}
	}
	if len(bad) > 0 {
		return j, rev, fmt.Errorf("ledger item of job %q: unreadable attributes %v", j.JobID, bad)
	}
	return j, rev, nil
}

// ItemBytes is the size DynamoDB bills for j's item: the lengths of the
// attribute names and their values (strings as UTF-8, numbers as their
// digits, booleans 1 byte), plus 3 bytes per list or map and 1 per
// element (DynamoDB developer guide, "Item sizes and formats").
func ItemBytes(j *Job) int {
	s := &Store{retention: DefaultRetention, now: time.Now}
	return sizeOf(&types.AttributeValueMemberM{Value: s.encodeJob(j, 1)}) - 3
}

func sizeOf(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return len(x.Value)
	case *types.AttributeValueMemberBOOL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + sizeOf(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + sizeOf(e)
		}
		return n
	}
	return 0
}
