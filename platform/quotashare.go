package platform

import (
	"fmt"
	"slices"

	"github.com/trainq/trainq/batchrules"
)

// The platform's teams as AWS Batch's quota shares, the input of
// batchrules' quota rules (what fits, headroom), so that the submission
// function and the simulator read a team's quota the same way.

// QuotaShare is the team as a quota share (AWS::Batch::QuotaShare): named
// after the team, its capacity per instance type (the first entry of a type
// counts, as in CapacityOf), its sharing strategy in Batch's spelling and
// its borrow limit (batchrules.UnlimitedBorrow when none is set).
func (t Team) QuotaShare() batchrules.Share {
	c := make(map[string]int, len(t.Capacity))
	for _, pool := range t.Capacity {
		if _, seen := c[pool.InstanceType]; !seen {
			c[pool.InstanceType] = pool.Instances
		}
	}
	return batchrules.Share{
		Name:               t.Name,
		Capacity:           c,
		Strategy:           batchrules.Strategy(t.Sharing.BatchStrategy()),
		BorrowLimitPercent: t.BorrowLimit(),
	}
}

// QuotaShares are the platform's teams as quota shares, in declaration
// order (the index of a team is the index of its share).
func (p *Platform) QuotaShares() []batchrules.Share {
	out := make([]batchrules.Share, len(p.Teams))
	for i, t := range p.Teams {
		out[i] = t.QuotaShare()
	}
	return out
}

// Headroom is how many instances of instanceType a job of team could get
// now, according to the capacity usage u of a queue snapshot (nil: nothing
// in use): the one rule the submission function's instance-type fallback,
// the re-router and the wait explanations decide by.
//
// Fair-share mode, or quota mode when the snapshot has no per-share usage:
// the pool's free instances (pool − in use by the queue).
//
// Quota mode with per-share usage: a team without a quota for the type has
// none; otherwise the headroom of the team's quota share by AWS Batch's
// rules (batchrules.TypeState.Room), the rule the simulator starts jobs by:
// the larger of what the team may start on idle capacity (up to its quota
// plus borrow limit, never taking another reserve team's idle quota) and
// what it gets back of its own quota by Batch preempting borrowers.
func (p *Platform) Headroom(team Team, instanceType string, u *batchrules.Usage) int {
	pool := p.PoolInstances(instanceType)
	switch {
	case p.Scheduling.Mode == ModeFairShare:
		return pool - u.TotalInstances(instanceType)
	case team.CapacityOf(instanceType) <= 0:
		return 0
	case u == nil || !u.PerShare:
		return pool - u.TotalInstances(instanceType)
	}
	shares := p.QuotaShares()
	for i, s := range shares {
		if s.Name == team.Name {
			return batchrules.StateOf(instanceType, pool, shares, u).Room(i).Headroom()
		}
	}
	return 0
}

// RerouteTarget is where the re-router would move a waiting job of class c
// and team that asks for n instances of instanceType, by the usage u: the
// first other type of the class's reroute.instanceTypes with Headroom for
// n. None ("", false) when the class does not reroute, the job's type is
// not one of the class's, or no other type has room. Whether the job waited
// long enough (reroute.afterSeconds) and may move again (reroute.maxMoves)
// is the caller's to check; whether its own type has room first, too.
func (p *Platform) RerouteTarget(c Class, team Team, instanceType string, n int, u *batchrules.Usage) (string, bool) {
	r := c.Reroute
	if r == nil || !slices.Contains(r.InstanceTypes, instanceType) {
		return "", false
	}
	for _, t := range r.InstanceTypes {
		if t != instanceType && p.Headroom(team, t, u) >= n {
			return t, true
		}
	}
	return "", false
}

// JobLimit is the most instances of one instance type a single job of a
// team could ever get, and the numbers it comes from: the rule by which the
// door refuses a job that can never start, the simulator fails one
// (never-fits) and trainq status explains one (contract.ReasonNeverFits).
type JobLimit struct {
	Team, InstanceType string
	// Pool is the pool's instances of the type.
	Pool int
	// Quota mode only: Quota is the team's quota of the type, MayBorrow what
	// it may borrow beyond it (batchrules.Limit.MaxBorrowed), Reserved the
	// other teams' quotas of reserve shares, which they never lend.
	QuotaMode                  bool
	Quota, MayBorrow, Reserved int
	// Max is the most: Pool, or in quota mode what the team's share could
	// ever hold (batchrules.TypeState.MaxHeld: its quota plus what it may
	// borrow, within the pool less the reserved quotas).
	Max int
}

// JobLimit is the most instances of instanceType one job of team could ever
// get on p (see the type). A job asking for more never starts: in AWS Batch
// it blocks the head of the queue until the queue's time limit action
// terminates it (docs/platform.md, "Jobs that block the queue").
func (p *Platform) JobLimit(team Team, instanceType string) JobLimit {
	l := JobLimit{Team: team.Name, InstanceType: instanceType, Pool: p.PoolInstances(instanceType)}
	l.Max = l.Pool
	if p.Scheduling.Mode == ModeFairShare {
		return l
	}
	shares := p.QuotaShares()
	for i, s := range shares {
		if s.Name != team.Name {
			continue
		}
		st := batchrules.StateOf(instanceType, l.Pool, shares, nil)
		me := st.Shares[i]
		l.QuotaMode = true
		l.Quota, l.MayBorrow = me.Capacity, me.MaxBorrowed(l.Pool)
		for r, other := range st.Shares {
			if r != i && other.Strategy == batchrules.Reserve {
				l.Reserved += other.Capacity
			}
		}
		l.Max = st.MaxHeld(i)
	}
	return l
}

// Fits reports whether a job of n instances could ever start.
func (l JobLimit) Fits(n int64) bool { return n <= int64(l.Max) }

// Explain says in words why a job of n instances never starts (after "it
// never starts:"), with the numbers.
func (l JobLimit) Explain(n int64) string {
	if !l.QuotaMode || n > int64(l.Pool) {
		return fmt.Sprintf("it needs %d × %s and the pool has %d", n, l.InstanceType, l.Pool)
	}
	why := fmt.Sprintf("its quota %d", l.Quota)
	if l.MayBorrow > 0 {
		why += fmt.Sprintf(" plus the %d it may borrow", l.MayBorrow)
	}
	if l.Reserved > 0 {
		why += fmt.Sprintf(", within the pool of %d less %d reserved by other teams", l.Pool, l.Reserved)
	} else {
		why += fmt.Sprintf(", within the pool of %d", l.Pool)
	}
	return fmt.Sprintf("it needs %d × %s and team %s can ever hold %d (%s)", n, l.InstanceType, l.Team, l.Max, why)
}
