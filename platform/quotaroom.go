package platform

import "github.com/trainq/trainq/batchrules"

// RoomInQuota reports whether a job of team asking for instances of
// instanceType fits what the team's quota of that type leaves, given usage
// (the capacity in use per share and type, as a queue snapshot reports
// it): the team's instances in use of the type plus the job's own are at
// most its quota. In fair-share mode teams have no quota, so every job has
// room; so has a job whose team, type or count is unknown, or when usage
// is nil. The poller splits the backlog by it (metrics.Quota) and the
// simulator's alarm series do the same.
func (p *Platform) RoomInQuota(usage *batchrules.Usage, team, instanceType string, instances int) bool {
	if p.Scheduling.Mode != ModeQuota || usage == nil || instanceType == "" || instances < 1 {
		return true
	}
	t, ok := p.Team(team)
	if !ok {
		return true
	}
	return usage.ByShare[t.Name][instanceType]+float64(instances) <= float64(t.CapacityOf(instanceType))
}
