package platform

import (
	"time"

	"github.com/trainq/trainq/batchrules"
)

// Default values applied by ApplyDefaults. They are documented on the fields.
const (
	DefaultName                     = "trainq"
	DefaultQueuePriority            = 10
	DefaultShareDecaySeconds        = 3600
	DefaultMaxRuntimeSeconds        = 432000
	DefaultWeight                   = 1.0
	DefaultUtilizationTargetPercent = 80
	DefaultIdleAlarmSeconds         = 1800
	DefaultLogRetentionDays         = 30
	DefaultClassMaxWaitSeconds      = 3600
	DefaultRerouteAfterSeconds      = 1800
	DefaultRerouteMaxMoves          = 3
	DefaultCheckpointSeconds        = 1800
	DefaultMaxMovesPerMinute        = 30
	DefaultRerouteEveryMinutes      = 1
	DefaultLedgerRetentionDays      = 400
	// DefaultTrainingLogRetentionDays is training.logRetentionDays'
	// default: as long as the ledger's.
	DefaultTrainingLogRetentionDays = DefaultLedgerRetentionDays
	// DefaultRunbookURL is trainq's own runbooks page.
	DefaultRunbookURL = "https://github.com/trainq/trainq/blob/main/docs/runbooks.md"
)

// DefaultJobStateTimeLimitActions are used when a platform sets no
// scheduling.jobStateTimeLimitActions: a job that needs more instances than
// its quota share or the service environment allows can never run, so Batch
// terminates it after its minimum of 600 s rather than let it block the
// queue; a job waiting for SageMaker capacity is left to wait (capacity
// comes back, and the queue-blocked alarm tells on-call).
func DefaultJobStateTimeLimitActions() []JobStateTimeLimitAction {
	return []JobStateTimeLimitAction{
		{Reason: batchrules.ReasonServiceEnvironmentMaxResource, MaxTimeSeconds: batchrules.MinTimeLimitSeconds},
		{Reason: batchrules.ReasonQuotaManagementLimitExceeded, MaxTimeSeconds: batchrules.MinTimeLimitSeconds},
	}
}

// DefaultClasses are used when a platform lists no classes.
func DefaultClasses() []Class {
	return []Class{
		{Name: "production", Priority: Band{Min: 900, Max: 999}},
		{Name: "research", Priority: Band{Min: 500, Max: 599}},
		{Name: "sweep", Priority: Band{Min: 100, Max: 199}},
	}
}

// defaultMaxWaitSeconds are the per-class wait alarm defaults for the
// well-known class names.
var defaultMaxWaitSeconds = map[string]int{
	"production": 900,
	"research":   7200,
	"sweep":      43200,
}

func intPtr(v int) *int { return &v }

// ApplyDefaults fills every omitted field with its documented default. It is
// idempotent and is called by Parse; call it on a Platform built in Go before
// Validate.
func (p *Platform) ApplyDefaults() {
	if p.Name == "" {
		p.Name = DefaultName
	}
	s := &p.Scheduling
	if s.Mode == "" {
		s.Mode = ModeQuota
	}
	if s.QueuePriority == nil {
		s.QueuePriority = intPtr(DefaultQueuePriority)
	}
	if s.JobStateTimeLimitActions == nil {
		s.JobStateTimeLimitActions = DefaultJobStateTimeLimitActions()
	}
	if s.Mode == ModeFairShare {
		if s.ShareDecaySeconds == nil {
			s.ShareDecaySeconds = intPtr(DefaultShareDecaySeconds)
		}
		if s.ComputeReservation == nil {
			s.ComputeReservation = intPtr(0)
		}
	}
	if len(p.Classes) == 0 {
		p.Classes = DefaultClasses()
	}
	for i := range p.Classes {
		c := &p.Classes[i]
		if c.MaxRuntimeSeconds == 0 {
			c.MaxRuntimeSeconds = DefaultMaxRuntimeSeconds
		}
		if c.Retries == nil {
			c.Retries = intPtr(0)
		}
		if c.Reroute != nil {
			r := *c.Reroute // a copy: the caller's struct may be shared
			if r.AfterSeconds == 0 {
				r.AfterSeconds = DefaultRerouteAfterSeconds
			}
			if r.MaxMoves == 0 {
				r.MaxMoves = DefaultRerouteMaxMoves
			}
			c.Reroute = &r
		}
		if c.Checkpoints != nil {
			k := *c.Checkpoints
			if k.IntervalSeconds == 0 {
				k.IntervalSeconds = DefaultCheckpointSeconds
			}
			c.Checkpoints = &k
		}
	}
	if p.Rerouting.MaxMovesPerMinute == 0 {
		p.Rerouting.MaxMovesPerMinute = DefaultMaxMovesPerMinute
	}
	if p.Ledger.RetentionDays == 0 {
		p.Ledger.RetentionDays = DefaultLedgerRetentionDays
	}
	if p.Training.LogRetentionDays == 0 {
		p.Training.LogRetentionDays = DefaultTrainingLogRetentionDays
	}
	if p.Rerouting.EveryMinutes == 0 {
		p.Rerouting.EveryMinutes = DefaultRerouteEveryMinutes
	}
	for i := range p.Teams {
		t := &p.Teams[i]
		p.applyBudgetDefaults(t)
		switch s.Mode {
		case ModeFairShare:
			if t.Weight == 0 {
				t.Weight = DefaultWeight
			}
		case ModeQuota:
			if t.Sharing == "" {
				t.Sharing = StrategyLendAndBorrow
			}
			if t.InSharePreemption == nil {
				on := true
				t.InSharePreemption = &on
			}
		}
	}
	m := &p.Monitoring
	if m.Enabled == nil {
		on := true
		m.Enabled = &on
	}
	if m.UtilizationTargetPercent == 0 {
		m.UtilizationTargetPercent = DefaultUtilizationTargetPercent
	}
	if m.IdleAlarmSeconds == 0 {
		m.IdleAlarmSeconds = DefaultIdleAlarmSeconds
	}
	if m.LogRetentionDays == 0 {
		m.LogRetentionDays = DefaultLogRetentionDays
	}
	if m.FailureAlarmClasses == nil {
		for _, c := range p.Classes {
			if c.Name == "production" {
				m.FailureAlarmClasses = []string{"production"}
			}
		}
	}
	if m.PagingClasses == nil {
		m.PagingClasses = []string{}
		for _, c := range p.Classes {
			if c.Name == "production" {
				m.PagingClasses = []string{"production"}
			}
		}
	}
	if m.RunbookURL == "" {
		m.RunbookURL = DefaultRunbookURL
	}
	if m.MaxWaitSeconds == nil {
		m.MaxWaitSeconds = map[string]int{}
	}
	for _, c := range p.Classes {
		if _, ok := m.MaxWaitSeconds[c.Name]; ok {
			continue
		}
		if d, ok := defaultMaxWaitSeconds[c.Name]; ok {
			m.MaxWaitSeconds[c.Name] = d
		} else {
			m.MaxWaitSeconds[c.Name] = DefaultClassMaxWaitSeconds
		}
	}
	if p.Training.AWSManagedImages == nil {
		on := true
		p.Training.AWSManagedImages = &on
	}
	if len(p.Submission.InstanceTypes) == 0 {
		// Only well-formed types: a bad pool type is reported once, at the pool.
		for _, pool := range p.Pools {
			if batchrules.ValidInstanceType(pool.InstanceType) {
				p.Submission.InstanceTypes = append(p.Submission.InstanceTypes, pool.InstanceType)
			}
		}
	}
}

// LedgerRetention is ledger.retentionDays as a duration.
func (p *Platform) LedgerRetention() time.Duration {
	return time.Duration(p.Ledger.RetentionDays) * 24 * time.Hour
}
