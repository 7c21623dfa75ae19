package constructs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/trainq/trainq/platform"
)

// PlatformProps describe the platform that trainq's functions serve beyond
// its queue: its name, its priority classes, the teams that submit and the
// instance types jobs may use. The submitter and the monitoring pipeline
// bundle this description with their functions (platform.json), built from
// these props and the queue: its scheduling kind, its pools and its shares.
// PlatformPropsFromPlatform fills them from a platform description.
type PlatformProps struct {
	// PlatformName names the platform: it starts the functions' names and
	// the alarms' names, and tags every job the submitter creates
	// (trainq:platform), which the submitter's permissions require.
	// Default: "trainq".
	PlatformName string
	// Classes are the priority classes, each a scheduling-priority band.
	// Default: platform.DefaultClasses() (production, research, sweep).
	Classes []platform.Class
	// Teams are the teams whose jobs the functions serve, each a share of the
	// queue: a quota share (TrainingQueue.AddQuotaShare) or a share
	// identifier of its fair-share policy. Default: every share of the queue.
	Teams []string
	// InstanceTypes are the instance types jobs may use, in the submitter's
	// fallback order, each with the number of its instances the queue's pools
	// hold. Default: the limits of the queue's quota-managed pools, in their
	// order; required when the pools limit NUM_INSTANCES.
	InstanceTypes []InstanceCapacity
	// LogRetentionDays is the retention of the functions' log groups, one of
	// CloudWatch Logs' retentions. Default: 30.
	LogRetentionDays int
	// Budgets are the teams' budgets (the platform file's teams[].budgets),
	// by team: the submitter enforces them, the poller writes their figures
	// every 15 minutes and the monitor alarms on them. Default: none.
	Budgets map[string][]platform.Budget
	// HourlyPrices are the price of an instance-hour of each instance type
	// (ledger.hourlyPrices), which cost budgets count and usage shows.
	// Default: none.
	HourlyPrices map[string]float64
	// LedgerRetentionDays is how long the job ledger keeps a job after it
	// ended (ledger.retentionDays): the observer, the reconciling pass and
	// the submission function set each item's time to live from it.
	// Default: platform.DefaultLedgerRetentionDays (400).
	LedgerRetentionDays int
}

// PlatformPropsFromPlatform returns the props that describe p.
func PlatformPropsFromPlatform(p *platform.Platform) PlatformProps {
	out := PlatformProps{
		PlatformName:     p.Name,
		Classes:          append([]platform.Class(nil), p.Classes...),
		Teams:            p.TeamNames(),
		LogRetentionDays: p.Monitoring.LogRetentionDays,
		HourlyPrices:     maps.Clone(p.Ledger.HourlyPrices),

		LedgerRetentionDays: p.Ledger.RetentionDays,
	}
	for _, t := range p.Teams {
		if len(t.Budgets) > 0 {
			if out.Budgets == nil {
				out.Budgets = map[string][]platform.Budget{}
			}
			out.Budgets[t.Name] = append([]platform.Budget(nil), t.Budgets...)
		}
	}
	order := p.Submission.InstanceTypes
	if len(order) == 0 {
		order = p.InstanceTypes()
	}
	for _, t := range order {
		out.InstanceTypes = append(out.InstanceTypes, InstanceCapacity{InstanceType: t, Instances: p.PoolInstances(t)})
	}
	return out
}

func (pp *PlatformProps) name() string {
	if pp.PlatformName == "" {
		return platform.DefaultName
	}
	return pp.PlatformName
}

// describePlatform is the platform description trainq's functions read,
// built from pp and queue, and the problems that make it invalid, each
// naming the prop. what names the construct type for messages.
func describePlatform(what string, pp *PlatformProps, queue ITrainingQueue) (*platform.Platform, []string) {
	var problems []string
	addf := func(format string, args ...any) {
		problems = append(problems, what+": "+fmt.Sprintf(format, args...))
	}
	if queue == nil {
		addf("Queue is nil; want an ITrainingQueue (NewTrainingQueue or FromTrainingQueueAttributes)")
		return nil, problems
	}
	p := &platform.Platform{
		Name:       pp.name(),
		Classes:    append([]platform.Class(nil), pp.Classes...),
		Monitoring: platform.Monitoring{LogRetentionDays: pp.LogRetentionDays},
		Ledger:     platform.Ledger{RetentionDays: pp.LedgerRetentionDays, HourlyPrices: maps.Clone(pp.HourlyPrices)},
	}
	if tq, ok := queue.(TrainingQueue); ok {
		prio := tq.Priority()
		p.Scheduling.QueuePriority = &prio
	}
	queuePath := *queue.Node().Path()

	// Teams: the queue's shares, all of them unless Teams names some.
	type share struct {
		team platform.Team
		ok   bool
	}
	shares := map[string]share{}
	var all []string
	switch queue.SchedulingKind() {
	case SchedulingFairShare:
		p.Scheduling.Mode = platform.ModeFairShare
		if tq, ok := queue.(TrainingQueue); ok {
			if fp, ok := tq.SchedulingPolicy().(*fairSharePolicy); ok {
				props := fp.fairShareProps()
				decay := props.shareDecaySeconds()
				p.Scheduling.ShareDecaySeconds = &decay
				p.Scheduling.ComputeReservation = &props.ComputeReservation
			}
		}
		for _, s := range queue.FairShares() {
			shares[s.ShareIdentifier] = share{platform.Team{Name: s.ShareIdentifier, Weight: s.WeightFactor}, true}
			all = append(all, s.ShareIdentifier)
		}
	default:
		p.Scheduling.Mode = platform.ModeQuota
		for _, s := range queue.QuotaShares() {
			t := platform.Team{Name: s.QuotaShareName(), Sharing: s.Strategy()}
			for _, c := range s.Capacity() {
				t.Capacity = append(t.Capacity, platform.Pool{InstanceType: c.InstanceType, Instances: c.Instances})
			}
			if s.Strategy() == platform.StrategyLendAndBorrow {
				limit := s.BorrowLimitPercent()
				t.BorrowLimitPercent = &limit
			}
			preempt := s.InSharePreemption()
			t.InSharePreemption = &preempt
			shares[t.Name] = share{t, true}
			all = append(all, t.Name)
		}
	}
	teams := pp.Teams
	if teams == nil {
		teams = all
		if len(teams) == 0 {
			addf("Teams is empty and queue %s has no shares yet; add its shares before creating this construct, or list Teams", queuePath)
		}
	}
	fairWithoutList := queue.SchedulingKind() == SchedulingFairShare && len(all) == 0
	for i, name := range teams {
		s, ok := shares[name]
		switch {
		case ok:
			p.Teams = append(p.Teams, s.team)
		case fairWithoutList:
			// A fair-share policy without listed shares gives every share
			// identifier weight 1.
			p.Teams = append(p.Teams, platform.Team{Name: name, Weight: platform.DefaultWeight})
		default:
			addf("Teams[%d] is %q, which is not a share of queue %s; want one of its shares (%s)", i, name, queuePath, listOrNone(all))
		}
	}

	// Budgets: each of a described team's, validated with the platform.
	for _, name := range slices.Sorted(maps.Keys(pp.Budgets)) {
		i := slices.IndexFunc(p.Teams, func(t platform.Team) bool { return t.Name == name })
		if i < 0 {
			addf("Budgets has team %q, which is not one of the teams described (%s)", name, listOrNone(p.TeamNames()))
			continue
		}
		p.Teams[i].Budgets = append([]platform.Budget(nil), pp.Budgets[name]...)
	}

	// Pools: the instance types jobs may use, with their instances.
	types := pp.InstanceTypes
	if len(types) == 0 {
		for _, e := range queue.ServiceEnvironments() {
			types = append(types, e.Pool.InstanceTypes()...)
		}
		if len(types) == 0 {
			addf("InstanceTypes is empty and queue %s's pools list no instance types (they limit NUM_INSTANCES, or the queue is imported); list the instance types jobs may use, each with its instances", queuePath)
		}
	}
	if err := validateCapacities("InstanceTypes", types); err != nil {
		addf("%v", err)
	}
	for _, t := range types {
		p.Pools = append(p.Pools, platform.Pool{InstanceType: t.InstanceType, Instances: t.Instances})
		p.Submission.InstanceTypes = append(p.Submission.InstanceTypes, t.InstanceType)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	p.ApplyDefaults()
	if err := p.Validate(); err != nil {
		addf("the platform the props describe is invalid (fields as in trainq.yaml): %v", strings.ReplaceAll(err.Error(), "\n", "; "))
		return nil, problems
	}
	return p, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "it has none yet"
	}
	return strings.Join(names, ", ")
}

// checkTeamsStillShares is a validation at synthesis: the description
// bundled at construction must still match the queue's shares.
func checkTeamsStillShares(what string, p *platform.Platform, queue ITrainingQueue, listed bool) func() []string {
	return func() []string {
		if p == nil || queue == nil {
			return nil
		}
		var names []string
		if queue.SchedulingKind() == SchedulingFairShare {
			for _, s := range queue.FairShares() {
				names = append(names, s.ShareIdentifier)
			}
		} else {
			for _, s := range queue.QuotaShares() {
				names = append(names, s.QuotaShareName())
			}
		}
		var out []string
		for _, n := range names {
			if _, ok := p.Team(n); !ok && !listed {
				out = append(out, fmt.Sprintf("%s: share %q was added to queue %s after this construct was created, so its function does not know it; add the queue's shares first, or list Teams", what, n, *queue.Node().Path()))
			}
		}
		return out
	}
}
