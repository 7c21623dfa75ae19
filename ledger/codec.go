package ledger

import (
	"fmt"
	"strconv"
	"time"

	"github.com/trainq/trainq/ledger/dynamo"
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

func (s *Store) encodeJob(j *Job, rev int64) dynamo.Item {
	item := dynamo.Item{
		KeyJobID:      dynamo.S(j.JobID),
		AttrRevision:  dynamo.N(rev),
		AttrExpiresAt: dynamo.N(s.expiresAt(j)),
		KeyEndDay:     dynamo.S(endDay(j)),
		attrPriority:  dynamo.N(int64(j.Priority)),
		attrInstances: dynamo.N(int64(j.Instances)),
		attrCreated:   dynamo.N(j.CreatedAt),
		attrPreempted: dynamo.N(int64(j.PreemptedCount)),
		attrTimeout:   dynamo.N(int64(j.TimeoutSeconds)),
		attrSeq:       dynamo.N(j.Seq),
		attrEnded:     dynamo.N(j.EndedAt),
	}
	str := func(name, v string) {
		if v != "" {
			item[name] = dynamo.S(v)
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
		l := make([]dynamo.Value, len(j.Scheduled))
		for i, t := range j.Scheduled {
			l[i] = dynamo.N(t)
		}
		item[attrScheduled] = dynamo.L(l...)
	}
	if len(j.Attempts) > 0 {
		l := make([]dynamo.Value, len(j.Attempts))
		for i, a := range j.Attempts {
			m := dynamo.Item{attStart: dynamo.N(a.StartedAt), attStop: dynamo.N(a.StoppedAt)}
			if a.StatusReason != "" {
				m[attReason] = dynamo.S(a.StatusReason)
			}
			if a.TrainingJob != "" {
				m[attJob] = dynamo.S(a.TrainingJob)
			}
			if a.Preempted {
				m[attPreempt] = dynamo.Bool(true)
			}
			l[i] = dynamo.M(m)
		}
		item[attrAttempts] = dynamo.L(l...)
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
func decodeJob(item dynamo.Item) (Job, int64, error) {
	var j Job
	var bad []string
	s := func(name string) string {
		v, ok := item[name]
		switch {
		case !ok:
			return ""
		case v.S != nil:
			return *v.S
		}
		bad = append(bad, name)
		return ""
	}
	n := func(m dynamo.Item, name string) int64 {
		v, ok := m[name]
		if !ok {
			return 0
		}
		if v.N != nil {
			if x, err := strconv.ParseInt(*v.N, 10, 64); err == nil {
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
	if l, ok := item[attrScheduled]; ok {
		if l.L == nil {
			bad = append(bad, attrScheduled)
		}
		for _, v := range l.L {
			if v.N != nil {
				if t, err := strconv.ParseInt(*v.N, 10, 64); err == nil {
					j.Scheduled = append(j.Scheduled, t)
					continue
				}
			}
			bad = append(bad, attrScheduled)
		}
	}
	if l, ok := item[attrAttempts]; ok {
		if l.L == nil {
			bad = append(bad, attrAttempts)
		}
		for _, v := range l.L {
			m := v.M
			if m == nil {
				bad = append(bad, attrAttempts)
				continue
			}
			a := Attempt{StartedAt: n(m, attStart), StoppedAt: n(m, attStop)}
			if r := m[attReason].S; r != nil {
				a.StatusReason = *r
			}
			if r := m[attJob].S; r != nil {
				a.TrainingJob = *r
			}
			if p := m[attPreempt].BOOL; p != nil {
				a.Preempted = *p
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
	return sizeOf(dynamo.M(s.encodeJob(j, 1))) - 3
}

func sizeOf(v dynamo.Value) int {
	switch {
	case v.S != nil:
		return len(*v.S)
	case v.N != nil:
		return len(*v.N)
	case v.BOOL != nil:
		return 1
	case v.L != nil:
		n := 3
		for _, e := range v.L {
			n += 1 + sizeOf(e)
		}
		return n
	case v.M != nil:
		n := 3
		for k, e := range v.M {
			n += 1 + len(k) + sizeOf(e)
		}
		return n
	}
	return 0
}
