package submit

import (
	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// Headroom is how many instances of instanceType a job of team could get
// now, according to the capacity usage u of a queue snapshot (nil: nothing
// in use).
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
func Headroom(p *platform.Platform, team platform.Team, instanceType string, u *batchrules.Usage) int {
	pool := p.PoolInstances(instanceType)
	switch {
	case p.Scheduling.Mode == platform.ModeFairShare:
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
