package submit

import (
	"fmt"
	"strings"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Why a job waits: pure logic over the platform, a snapshot's usage and its
// front of the queue, by AWS Batch's quota rules (batchrules.TypeState:
// Room, Fit, MaxHeld; batchrules.Limit: Ceiling, MaxBorrowed), the rules the
// instance-type fallback (Headroom) and the simulator use.

// WaitingJob is what Explain needs to know of a job.
type WaitingJob struct {
	// ARN names the job in the snapshot's front of the queue.
	ARN string
	// Team is the job's share.
	Team string
	// Status and StatusReason are Batch's.
	Status, StatusReason string
	// InstanceType and Instances are what the job asks for (its payload's
	// ResourceConfig).
	InstanceType string
	Instances    int
}

// FrontEntry is one job of the snapshot's frontOfQueue or
// frontOfQuotaShares.
type FrontEntry struct {
	ARN string
	// At is earliestTimeAtPosition, Unix milliseconds (0: not given).
	At int64
}

// Front is the front of the queue and of each quota share, as the
// snapshot lists them.
type Front struct {
	Queue  []FrontEntry
	Shares map[string][]FrontEntry
	// HeadStatusReason and HeadTeam are Batch's statusReason and the share
	// of the job at the head of Queue, when it was described ("" when not).
	HeadStatusReason, HeadTeam string
}

// position is the 1-based place of arn in list, 0 when absent, and the
// entry.
func position(list []FrontEntry, arn string) (int, FrontEntry) {
	for i, e := range list {
		if e.ARN != "" && e.ARN == arn {
			return i + 1, e
		}
	}
	return 0, FrontEntry{}
}

// waitingStatuses are the statuses of a job that has not started.
var waitingStatuses = map[string]bool{"SUBMITTED": true, "PENDING": true, "RUNNABLE": true, "SCHEDULED": true, "STARTING": true}

// Waiting reports whether a job of status has yet to start.
func Waiting(status string) bool { return waitingStatuses[status] }

// blockedWords says in plain words what each reason a job blocks the queue
// means (batchrules.TimeLimitReasons).
var blockedWords = map[string]string{
	batchrules.ReasonInsufficientCapacity:          "SageMaker cannot provide the instances now; Batch retries, and the jobs behind it wait",
	batchrules.ReasonServiceEnvironmentMaxResource: "the job needs more instances than the service environment's capacity limits allow; it can never run and blocks the jobs behind it until it is cancelled or the queue's time limit action terminates it",
	batchrules.ReasonQuotaManagementLimitExceeded:  "the job needs more instances than its quota share's capacity limits allow; it can never run and blocks the jobs behind it until it is cancelled or the queue's time limit action terminates it",
}

// Explain says why j waits, given the platform p, the snapshot's usage u
// (nil: none) and its front f. The reasons are checked in the order of
// contract.WaitReasons:
//
//   - SCHEDULED or STARTING: Batch has placed it (starting);
//   - Batch's statusReason starts with a reason a job blocks the queue
//     (batchrules.BlockedReason), or the job at the head of the queue has
//     such a reason: queue-blocked;
//   - its instance type is not in the pool: not-in-pool;
//   - more instances than its team could ever get (platform.JobLimit):
//     never-fits;
//   - quota mode, with per-share usage, for its share's state of the type
//     (batchrules.StateOf): no Fit:
//     borrow-limit when used + instances exceeds the share's Ceiling though
//     it may borrow (MaxBorrowed > 0), quota-full when it exceeds the
//     Ceiling and it may not borrow, or exceeds the quota with too little
//     idle capacity to borrow (both saying, for a team with in-share
//     preemption, that lower-priority jobs of the team may make room: the
//     snapshot does not say their priorities), else pool-full; a Fit:
//     behind-team when
//     another job is at the front of its share, reclaiming when it fits
//     only by reclaiming, else next;
//   - fair share, or no per-share usage: pool-full when the pool's idle
//     instances are fewer than it needs, else next;
//   - no usage at all: unknown.
func Explain(p *platform.Platform, j WaitingJob, u *batchrules.Usage, f Front) contract.Explanation {
	k := j.Instances
	if k < 1 {
		k = 1
	}
	e := contract.Explanation{InstanceType: contract.Cut(j.InstanceType, contract.MaxShownChars), Instances: k, QueueListed: len(f.Queue), Usage: []contract.ShareUsage{}}
	var qe FrontEntry
	e.QueuePosition, qe = position(f.Queue, j.ARN)
	if qe.At > 0 {
		e.AtPositionSince = millis(&qe.At)
	}
	shareList := f.Shares[j.Team]
	e.SharePosition, _ = position(shareList, j.ARN)
	behind := len(shareList) > 0 && e.SharePosition != 1
	if behind {
		if ref, err := batchrules.ParseServiceJobRef(shareList[0].ARN); err == nil {
			e.ShareFront = ref.ID
		} else {
			e.ShareFront = contract.Cut(shareList[0].ARN, contract.MaxShownChars)
		}
	}
	team, _ := p.Team(j.Team)
	pool := p.PoolInstances(j.InstanceType)
	if pool > 0 && u != nil {
		e.Usage = append(e.Usage, usageRows(p, j.InstanceType, u, team.Name)...)
	}
	it := contract.Cut(j.InstanceType, contract.MaxShownChars)

	switch {
	case j.Status == "SCHEDULED" || j.Status == "STARTING":
		e.Reason = contract.ReasonStarting
		e.Message = fmt.Sprintf("Batch has placed the job (%s): SageMaker is starting its %d %s instances.", j.Status, k, it)
		return e
	case batchrules.BlockedReason(j.StatusReason) != "":
		e.Blocked = batchrules.BlockedReason(j.StatusReason)
		e.Reason = contract.ReasonQueueBlocked
		e.Message = fmt.Sprintf("Batch reports that the job blocks the queue (%s): %s.", e.Blocked, blockedWords[e.Blocked])
		return e
	case e.QueuePosition != 1 && batchrules.BlockedReason(f.HeadStatusReason) != "":
		e.Blocked = batchrules.BlockedReason(f.HeadStatusReason)
		e.Reason = contract.ReasonQueueBlocked
		e.Message = fmt.Sprintf("The job at the head of the queue (team %s) blocks it (%s): %s; every job behind it waits.",
			contract.Cut(f.HeadTeam, contract.MaxShownChars), e.Blocked, blockedWords[e.Blocked])
		return e
	case pool == 0:
		e.Reason = contract.ReasonNotInPool
		e.Message = fmt.Sprintf("%s is not in the platform's pool (%s): the job never starts; cancel it and submit it with one of those.", it, strings.Join(p.InstanceTypes(), ", "))
		return e
	case !p.JobLimit(team, j.InstanceType).Fits(int64(k)) && (team.Name != "" || p.Scheduling.Mode == platform.ModeFairShare):
		// The one never-fits rule, which the door refuses by and the
		// simulator fails jobs by.
		e.Reason = contract.ReasonNeverFits
		e.Message = fmt.Sprintf("The job never starts: %s; cancel it and submit it with fewer instances.", p.JobLimit(team, j.InstanceType).Explain(int64(k)))
		return e
	case u == nil:
		e.Reason = contract.ReasonUnknown
		e.Message = "The queue snapshot carried no capacity usage to judge by."
		return e
	}

	if p.Scheduling.Mode == platform.ModeQuota && u.PerShare {
		shares := p.QuotaShares()
		for i, s := range shares {
			if s.Name == team.Name {
				explainQuota(&e, batchrules.StateOf(j.InstanceType, pool, shares, u), i, team.Name, it, k, behind)
				if team.PreemptsInShare() && (e.Reason == contract.ReasonQuotaFull || e.Reason == contract.ReasonBorrowLimit) {
					e.Message += fmt.Sprintf(" The team has in-share preemption: if its running jobs of lower priority hold %d, Batch preempts them for this job instead.", k)
				}
				return e
			}
		}
	}
	inUse := u.TotalInstances(j.InstanceType)
	if free := pool - inUse; free < k {
		e.Reason = contract.ReasonPoolFull
		e.Message = fmt.Sprintf("The pool is full: %d of its %d %s are in use, %d idle, and the job needs %d.", inUse, pool, it, max(0, free), k)
		return e
	}
	e.Reason = contract.ReasonNext
	e.Message = fmt.Sprintf("The pool has room (%d of %d %s idle, the job needs %d): Batch should start the job when it reaches the front of the queue.", pool-inUse, pool, it, k)
	return e
}

// explainQuota fills e's reason for a job of k instances of share s in the
// quota-mode state q.
func explainQuota(e *contract.Explanation, q batchrules.TypeState, s int, team, it string, k int, behind bool) {
	me := q.Shares[s]
	ceiling, borrow := me.Ceiling(q.Pool), me.MaxBorrowed(q.Pool)
	room := q.Room(s)
	holds := fmt.Sprintf("Team %s holds %d %s against a quota of %d", team, me.Used, it, me.Capacity)
	if borrow > 0 {
		holds += fmt.Sprintf(" (it may borrow %d more: %s)", borrow, borrowWords(me.Limit))
	}
	switch {
	case room.Fit(k) == batchrules.Wait && me.Used+k > ceiling && borrow > 0:
		e.Reason = contract.ReasonBorrowLimit
		e.Message = fmt.Sprintf("%s; with this job's %d it would hold %d, past its quota plus borrow limit of %d. It starts when the team's jobs free %d.",
			holds, k, me.Used+k, ceiling, me.Used+k-ceiling)
	case room.Fit(k) == batchrules.Wait && me.Used+k > ceiling:
		e.Reason = contract.ReasonQuotaFull
		e.Message = fmt.Sprintf("%s and may not borrow (sharing %s); with this job's %d it would hold %d. It starts when the team's jobs free %d.",
			holds, me.Strategy, k, me.Used+k, me.Used+k-me.Capacity)
	case room.Fit(k) == batchrules.Wait && me.Used+k > me.Capacity:
		e.Reason = contract.ReasonQuotaFull
		e.Message = fmt.Sprintf("%s; the job needs %d, beyond its quota, and there is nothing to borrow: only %d of the pool's %d are idle and free for it. It starts when the team's jobs free %d, or %d more become idle.",
			holds, k, room.Idle, q.Pool, me.Used+k-me.Capacity, k-room.Idle)
	case room.Fit(k) == batchrules.Wait:
		e.Reason = contract.ReasonPoolFull
		e.Message = fmt.Sprintf("%s, within which the job's %d fit, but the pool is full: %d of its %d are in use and Batch can take back only %d from teams that borrow. It starts when %d become idle.",
			holds, k, q.InUse, q.Pool, room.Reclaim, k-room.Headroom())
	case behind:
		e.Reason = contract.ReasonBehindTeam
		e.Message = fmt.Sprintf("%s, which leaves room for the job's %d, but job %s of the team is ahead of it (higher priority, or earlier at the same priority); it starts after the team's jobs ahead of it.",
			holds, k, e.ShareFront)
	case room.Fit(k) == batchrules.FitsByReclaim:
		e.Reason = contract.ReasonReclaiming
		e.Message = fmt.Sprintf("%s, within which the job's %d fit; Batch takes the instances back from teams that borrow them (preempting their jobs), then starts it.",
			holds, k)
	default:
		e.Reason = contract.ReasonNext
		e.Message = fmt.Sprintf("%s, and %d are idle for it: the job's %d fit, and Batch should start it at its next scheduling pass.",
			holds, room.Idle, k)
	}
}

// borrowWords is a share's borrow limit in words.
func borrowWords(l batchrules.Limit) string {
	if l.BorrowLimitPercent < 0 {
		return "no borrow limit"
	}
	return fmt.Sprintf("borrow limit %d%% of its quota", l.BorrowLimitPercent)
}

// usageRows are the usage of instanceType by the share named only ("" for
// every share) and by the queue as a whole, by the platform's mode.
func usageRows(p *platform.Platform, instanceType string, u *batchrules.Usage, only string) []contract.ShareUsage {
	pool := p.PoolInstances(instanceType)
	inUse := u.TotalInstances(instanceType)
	var out []contract.ShareUsage
	if p.Scheduling.Mode == platform.ModeQuota {
		shares := p.QuotaShares()
		q := batchrules.StateOf(instanceType, pool, shares, u)
		for i, s := range shares {
			if only != "" && s.Name != only {
				continue
			}
			me := q.Shares[i]
			room := q.Room(i)
			out = append(out, contract.ShareUsage{Share: s.Name, InstanceType: instanceType, Used: me.Used, Pool: pool, PoolInUse: inUse,
				Quota: me.Capacity, Sharing: string(me.Strategy), BorrowLimitPercent: me.BorrowLimitPercent, MaxBorrowed: me.MaxBorrowed(pool),
				Borrowed: me.Borrowed(), IdleRoom: room.Idle, ReclaimRoom: room.Reclaim})
		}
	} else {
		for _, t := range p.Teams {
			if only != "" && t.Name != only {
				continue
			}
			out = append(out, contract.ShareUsage{Share: t.Name, InstanceType: instanceType, Used: u.ShareInstances(t.Name, instanceType),
				Pool: pool, PoolInUse: inUse, IdleRoom: max(0, pool-inUse), ReclaimRoom: max(0, pool-inUse)})
		}
	}
	out = append(out, contract.ShareUsage{InstanceType: instanceType, Used: inUse, Pool: pool, PoolInUse: inUse,
		IdleRoom: max(0, pool-inUse), ReclaimRoom: max(0, pool-inUse)})
	return out
}
