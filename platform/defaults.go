package platform

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
)

// CancelReasonPrefix starts the reason the submission function gives AWS
// Batch when it cancels a job. Batch reports a cancelled job as FAILED with
// that reason, which is how the observer tells a cancellation from a failure.
const CancelReasonPrefix = "trainq: cancelled"

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
	}
	for i := range p.Teams {
		t := &p.Teams[i]
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
			if instanceTypePattern.MatchString(pool.InstanceType) {
				p.Submission.InstanceTypes = append(p.Submission.InstanceTypes, pool.InstanceType)
			}
		}
	}
}

// Class returns the class named name.
func (p *Platform) Class(name string) (Class, bool) {
	for _, c := range p.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return Class{}, false
}

// ClassNames returns the class names in declaration order.
func (p *Platform) ClassNames() []string {
	out := make([]string, len(p.Classes))
	for i, c := range p.Classes {
		out[i] = c.Name
	}
	return out
}

// ClassForPriority returns the class whose band holds the scheduling
// priority sp. Bands never overlap in a valid platform, so the answer is
// unique; it is how observers recover a job's class from Batch events, which
// carry no tags.
func (p *Platform) ClassForPriority(sp int) (Class, bool) {
	for _, c := range p.Classes {
		if c.Priority.Contains(sp) {
			return c, true
		}
	}
	return Class{}, false
}

// Team returns the team named name.
func (p *Platform) Team(name string) (Team, bool) {
	for _, t := range p.Teams {
		if t.Name == name {
			return t, true
		}
	}
	return Team{}, false
}

// TeamNames returns the team names in declaration order.
func (p *Platform) TeamNames() []string {
	out := make([]string, len(p.Teams))
	for i, t := range p.Teams {
		out[i] = t.Name
	}
	return out
}

// PoolInstances returns the pool capacity of instanceType (0 when the type is
// not in the pool).
func (p *Platform) PoolInstances(instanceType string) int {
	for _, pool := range p.Pools {
		if pool.InstanceType == instanceType {
			return pool.Instances
		}
	}
	return 0
}

// TotalInstances is the capacity of all pools together, the NUM_INSTANCES
// limit of a fair-share service environment.
func (p *Platform) TotalInstances() int {
	n := 0
	for _, pool := range p.Pools {
		n += pool.Instances
	}
	return n
}

// InstanceTypes returns the pool's instance types in declaration order.
func (p *Platform) InstanceTypes() []string {
	out := make([]string, len(p.Pools))
	for i, pool := range p.Pools {
		out[i] = pool.InstanceType
	}
	return out
}

// Names of the resources trainq creates for a platform. Constructs, functions
// and the CLI derive them here so that they always agree.

// SubmitFunctionName is the name of the submission Lambda function.
func (p *Platform) SubmitFunctionName() string { return p.Name + "-submit" }

// ObserverFunctionName is the name of the event-to-metrics Lambda function.
func (p *Platform) ObserverFunctionName() string { return p.Name + "-observer" }

// PollerFunctionName is the name of the queue-snapshot Lambda function.
func (p *Platform) PollerFunctionName() string { return p.Name + "-poller" }

// JobQueueName is the name of the platform's job queue.
func (p *Platform) JobQueueName() string { return p.Name + "-training" }

// ServiceEnvironmentName is the name of the platform's service environment.
func (p *Platform) ServiceEnvironmentName() string { return p.Name + "-gpu-pool" }
