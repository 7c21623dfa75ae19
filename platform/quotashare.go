package platform

import (
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
