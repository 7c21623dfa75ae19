package poll

import (
	"slices"
	"time"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// RunnableJob is a job waiting in the queue. Team or Class is empty when
// the job's share or priority matches none of the platform's.
type RunnableJob struct {
	ID    string
	Team  string
	Class string
	// InstanceType and Instances are what the job's request asks for;
	// empty and 0 when unknown.
	InstanceType string
	Instances    int
	// Described is whether the poller has read the job's description (its
	// class and instance type); an undescribed job counts for the queue
	// and its team only.
	Described bool
	// Since is when the job last became RUNNABLE; zero when no plausible
	// time says so (the job counts in RunnableJobs, not in
	// OldestRunnableSeconds).
	Since time.Time
}

// Gauges computes the poller's metrics from one look at the queue.
type Gauges struct {
	Platform *platform.Platform
	Queue    string
	Now      time.Time
	// Runnable are the runnable jobs; RunnableKnown is false when they could
	// not be listed, and then no backlog metric is written.
	Runnable      []RunnableJob
	RunnableKnown bool
	// Usage is the capacity in use; nil when unknown, and then no capacity
	// metric is written.
	Usage *batchrules.Usage
}

// Records returns one EMF record per dimension combination, each metric
// published under exactly one dimension set, so that every statistic
// (Average, Maximum, Sum) of a one-minute period reads the same value:
//
//   - {Queue}: RunnableJobs, OldestRunnableSeconds, RunnableUndescribed,
//     InstancesInUse, CapacityUtilization (all types together against the
//     whole pool);
//   - {Queue,Class} and {Queue,Class,Team}: RunnableJobs,
//     OldestRunnableSeconds, for every class and team of the platform;
//   - {Queue,Class,Quota}: the same, for the jobs whose team has room for
//     them in its quota (QuotaRoom) and those whose team's own jobs fill it
//     (QuotaFull), when the capacity in use is known;
//   - {Queue,Team}: the same, plus InstancesInUse and, in quota mode,
//     CapacityUtilization against the team's whole quota and
//     BorrowedInstances;
//   - {Queue,InstanceType}: RunnableJobs and OldestRunnableSeconds of the
//     jobs asking for the type, InstancesInUse, CapacityUtilization against
//     the pool of the type;
//   - {Queue,Team,InstanceType}: InstancesInUse and, in quota mode,
//     CapacityUtilization against the team's quota of the type (when it has
//     one) and BorrowedInstances.
//
// Zeros are written too, so that alarms see data when nothing waits or runs.
func (g Gauges) Records() []*metrics.Record {
	p := g.Platform
	quota := p.Scheduling.Mode == platform.ModeQuota
	var recs []*metrics.Record
	rec := func(dims map[string]string) *metrics.Record {
		dims[metrics.Queue] = g.Queue
		r := &metrics.Record{Time: g.Now, Dimensions: dims}
		recs = append(recs, r)
		return r
	}
	backlog := func(r *metrics.Record, set []string, keep func(RunnableJob) bool) {
		if !g.RunnableKnown {
			return
		}
		n, oldest := 0, 0.0
		for _, j := range g.Runnable {
			if keep(j) {
				n++
				if !j.Since.IsZero() {
					oldest = max(oldest, g.Now.Sub(j.Since).Seconds())
				}
			}
		}
		r.Add(metrics.RunnableJobs, float64(n), set)
		r.Add(metrics.OldestRunnableSeconds, oldest, set)
	}
	types := g.instanceTypes()

	// The queue.
	r := rec(map[string]string{})
	qset := []string{metrics.Queue}
	backlog(r, qset, func(RunnableJob) bool { return true })
	if g.RunnableKnown {
		undescribed := 0
		for _, j := range g.Runnable {
			if !j.Described {
				undescribed++
			}
		}
		r.Add(metrics.RunnableUndescribed, float64(undescribed), qset)
	}
	if g.Usage != nil {
		total := 0.0
		for _, t := range types {
			total += g.Usage.ByType[t]
		}
		r.Add(metrics.InstancesInUse, total, qset)
		if limit := p.TotalInstances(); limit > 0 {
			r.Add(metrics.CapacityUtilization, percent(total, float64(limit)), qset)
		}
	}

	// Classes, classes per team, and classes by room in the quota.
	room := map[string]string{}
	if g.Usage != nil || !quota {
		for _, j := range g.Runnable {
			room[j.ID] = g.QuotaOf(j)
		}
	}
	for _, c := range p.Classes {
		backlog(rec(map[string]string{metrics.Class: c.Name}), []string{metrics.Queue, metrics.Class},
			func(j RunnableJob) bool { return j.Class == c.Name })
		for _, t := range p.Teams {
			backlog(rec(map[string]string{metrics.Class: c.Name, metrics.Team: t.Name}),
				[]string{metrics.Queue, metrics.Class, metrics.Team},
				func(j RunnableJob) bool { return j.Class == c.Name && j.Team == t.Name })
		}
		if len(room) == 0 && len(g.Runnable) > 0 {
			continue
		}
		for _, q := range []string{metrics.QuotaRoom, metrics.QuotaFull} {
			backlog(rec(map[string]string{metrics.Class: c.Name, metrics.Quota: q}),
				[]string{metrics.Queue, metrics.Class, metrics.Quota},
				func(j RunnableJob) bool { return j.Class == c.Name && room[j.ID] == q })
		}
	}

	// Instance types.
	tset := []string{metrics.Queue, metrics.InstanceType}
	for _, typ := range types {
		r := rec(map[string]string{metrics.InstanceType: typ})
		backlog(r, tset, func(j RunnableJob) bool { return j.InstanceType == typ })
		if g.Usage == nil {
			continue
		}
		r.Add(metrics.InstancesInUse, g.Usage.ByType[typ], tset)
		if limit := p.PoolInstances(typ); limit > 0 {
			r.Add(metrics.CapacityUtilization, percent(g.Usage.ByType[typ], float64(limit)), tset)
		}
	}

	// Teams, and teams per instance type.
	for _, t := range p.Teams {
		tset := []string{metrics.Queue, metrics.Team}
		r := rec(map[string]string{metrics.Team: t.Name})
		backlog(r, tset, func(j RunnableJob) bool { return j.Team == t.Name })
		if g.Usage == nil {
			continue
		}
		inUse, quotaSum, borrowed := 0.0, 0.0, 0.0
		ttset := []string{metrics.Queue, metrics.Team, metrics.InstanceType}
		for _, typ := range teamTypes(g.usageTypes(), g.Usage.ByShare[t.Name]) {
			n := g.Usage.ByShare[t.Name][typ]
			q := float64(t.CapacityOf(typ))
			inUse += n
			quotaSum += q
			rt := rec(map[string]string{metrics.Team: t.Name, metrics.InstanceType: typ})
			rt.Add(metrics.InstancesInUse, n, ttset)
			if !quota {
				continue
			}
			if q > 0 {
				rt.Add(metrics.CapacityUtilization, percent(n, q), ttset)
			}
			b := max(0, n-q)
			borrowed += b
			rt.Add(metrics.BorrowedInstances, b, ttset)
		}
		r.Add(metrics.InstancesInUse, inUse, tset)
		if quota {
			if quotaSum > 0 {
				r.Add(metrics.CapacityUtilization, percent(inUse, quotaSum), tset)
			}
			r.Add(metrics.BorrowedInstances, borrowed, tset)
		}
	}

	out := recs[:0]
	for _, r := range recs {
		if r.Len() > 0 {
			out = append(out, r)
		}
	}
	return out
}

// QuotaOf is whether j's team has room for it in its quota of j's
// instance type (metrics.QuotaRoom) or its own jobs fill the quota
// (metrics.QuotaFull), by platform.RoomInQuota.
func (g Gauges) QuotaOf(j RunnableJob) string {
	if g.Platform.RoomInQuota(g.Usage, j.Team, j.InstanceType, j.Instances) {
		return metrics.QuotaRoom
	}
	return metrics.QuotaFull
}

// usageTypes are the pool's types, then any other type in use.
func (g Gauges) usageTypes() []string {
	types := g.Platform.InstanceTypes()
	if g.Usage == nil {
		return types
	}
	var extra []string
	for t := range g.Usage.ByType {
		if !slices.Contains(types, t) {
			extra = append(extra, t)
		}
	}
	slices.Sort(extra)
	return append(types, extra...)
}

// instanceTypes are the pool's types, then any other type in use or asked
// for by a runnable job.
func (g Gauges) instanceTypes() []string {
	types := g.usageTypes()
	var extra []string
	for _, j := range g.Runnable {
		if j.InstanceType != "" && !slices.Contains(types, j.InstanceType) && !slices.Contains(extra, j.InstanceType) {
			extra = append(extra, j.InstanceType)
		}
	}
	slices.Sort(extra)
	return append(types, extra...)
}

// teamTypes are the queue's types plus any other type the team uses.
func teamTypes(types []string, used map[string]float64) []string {
	out := slices.Clone(types)
	var extra []string
	for t := range used {
		if !slices.Contains(out, t) {
			extra = append(extra, t)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

func percent(n, limit float64) float64 { return 100 * n / limit }
