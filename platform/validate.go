package platform

import (
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/trainq/trainq/batchrules"
)

// Validate checks a defaulted platform and returns a *ValidationError listing
// every problem, or nil.
func (p *Platform) Validate() error {
	var ps Problems
	if !namePattern.MatchString(p.Name) {
		ps.Add("name", p.Name, "a letter then up to 31 letters, digits or '-'")
	}
	p.validatePools(&ps)
	p.validateScheduling(&ps)
	p.validateClasses(&ps)
	p.validateTeams(&ps)
	p.validateTrainingJobPrefixes(&ps)
	p.validateMonitoring(&ps)
	p.validateSubmission(&ps)
	p.validateSubmitAliases(&ps)
	p.validateTraining(&ps)
	p.validateRerouting(&ps)
	p.validateLedger(&ps)
	if len(ps) > 0 {
		return &ValidationError{Problems: ps}
	}
	return nil
}

func (p *Platform) validatePools(ps *Problems) {
	if len(p.Pools) == 0 {
		ps.Add("pools", "[]", "at least one instance type with its capacity")
	}
	seen := map[string]bool{}
	for i, pool := range p.Pools {
		f := fmt.Sprintf("pools[%d]", i)
		checkInstanceType(ps, f+".instanceType", pool.InstanceType)
		if seen[pool.InstanceType] {
			ps.Add(f+".instanceType", pool.InstanceType, "each instance type once")
		}
		seen[pool.InstanceType] = true
		if pool.Instances < 1 {
			ps.Add(f+".instances", pool.Instances, "at least 1")
		}
	}
}

func checkInstanceType(ps *Problems, field, v string) {
	if !batchrules.ValidInstanceType(v) {
		ps.Add(field, v, "a SageMaker instance type such as ml.p5.48xlarge (ml.<family>.<size>)")
	}
}

func (p *Platform) validateScheduling(ps *Problems) {
	s := p.Scheduling
	switch s.Mode {
	case ModeQuota:
		if s.ShareDecaySeconds != nil {
			ps.Add("scheduling.shareDecaySeconds", *s.ShareDecaySeconds, "no value in quota mode (fairshare only)")
		}
		if s.ComputeReservation != nil {
			ps.Add("scheduling.computeReservation", *s.ComputeReservation, "no value in quota mode (fairshare only)")
		}
	case ModeFairShare:
		if d := deref(s.ShareDecaySeconds); d < 0 || d > MaxShareDecaySeconds {
			ps.Addf("scheduling.shareDecaySeconds", d, "0 to %d", MaxShareDecaySeconds)
		}
		if r := deref(s.ComputeReservation); r < 0 || r > MaxComputeReservation {
			ps.Addf("scheduling.computeReservation", r, "0 to %d", MaxComputeReservation)
		}
	default:
		ps.Add("scheduling.mode", string(s.Mode), "quota or fairshare")
	}
	if q := deref(s.QueuePriority); q < 0 || q > MaxQueuePriority {
		ps.Addf("scheduling.queuePriority", q, "0 to %d", MaxQueuePriority)
	}
	seen := map[string]bool{}
	for i, a := range s.JobStateTimeLimitActions {
		f := fmt.Sprintf("scheduling.jobStateTimeLimitActions[%d]", i)
		switch {
		case !batchrules.ValidTimeLimitReason(a.Reason):
			ps.Addf(f+".reason", a.Reason, "one of %s (AWS Batch's reasons on a SageMaker training queue)", strings.Join(batchrules.TimeLimitReasons(), ", "))
		case seen[a.Reason]:
			ps.Add(f+".reason", a.Reason, "each reason once")
		}
		seen[a.Reason] = true
		if a.MaxTimeSeconds < batchrules.MinTimeLimitSeconds || a.MaxTimeSeconds > batchrules.MaxTimeLimitSeconds {
			ps.Addf(f+".maxTimeSeconds", a.MaxTimeSeconds, "%d to %d (10 minutes to 24 hours)", batchrules.MinTimeLimitSeconds, batchrules.MaxTimeLimitSeconds)
		}
	}
}

func deref(v *int) int {
	if v == nil {
		return 0
	}
	return *v
}

func (p *Platform) validateClasses(ps *Problems) {
	seen := map[string]bool{}
	for i, c := range p.Classes {
		f := fmt.Sprintf("classes[%d]", i)
		if !classPattern.MatchString(c.Name) {
			ps.Add(f+".name", c.Name, "a letter then up to 63 letters, digits, '-' or '_'")
		}
		if seen[c.Name] {
			ps.Add(f+".name", c.Name, "a name not used by another class")
		}
		seen[c.Name] = true
		b := c.Priority
		if b.Min < 0 || b.Min > MaxSchedulingPriority {
			ps.Addf(f+".priority.min", b.Min, "0 to %d", MaxSchedulingPriority)
		}
		if b.Max < 0 || b.Max > MaxSchedulingPriority {
			ps.Addf(f+".priority.max", b.Max, "0 to %d", MaxSchedulingPriority)
		}
		if b.Max < b.Min {
			ps.Addf(f+".priority.max", b.Max, "at least priority.min (%d)", b.Min)
		}
		for j := 0; j < i; j++ {
			o := p.Classes[j].Priority
			if b.Min <= o.Max && o.Min <= b.Max {
				ps.Addf(f+".priority", fmt.Sprintf("%d-%d", b.Min, b.Max),
					"a band that does not overlap classes[%d] (%s, %d-%d)", j, p.Classes[j].Name, o.Min, o.Max)
			}
		}
		if c.MaxRuntimeSeconds < 1 || c.MaxRuntimeSeconds > MaxRuntimeSecondsLimit {
			ps.Addf(f+".maxRuntimeSeconds", c.MaxRuntimeSeconds, "1 to %d (28 days)", MaxRuntimeSecondsLimit)
		}
		if r := deref(c.Retries); r < 0 || r > MaxRetries {
			ps.Addf(f+".retries", r, "0 to %d (Batch allows 1-10 attempts)", MaxRetries)
		}
		if c.PreemptionRetries != nil && (*c.PreemptionRetries < 0 || *c.PreemptionRetries > MaxPreemptionRetries) {
			ps.Addf(f+".preemptionRetries", *c.PreemptionRetries, "0 to %d, or omitted for unlimited", MaxPreemptionRetries)
		}
		p.validateReroute(ps, f, c)
		if k := c.Checkpoints; k != nil && (k.IntervalSeconds < MinCheckpointSeconds || k.IntervalSeconds > MaxCheckpointSeconds) {
			ps.Addf(f+".checkpoints.intervalSeconds", k.IntervalSeconds, "%d to %d", MinCheckpointSeconds, MaxCheckpointSeconds)
		}
	}
}

// validateRerouting checks the re-router's platform-wide bounds.
func (p *Platform) validateRerouting(ps *Problems) {
	r := p.Rerouting
	if r.MaxMovesPerMinute < 1 || r.MaxMovesPerMinute > MaxMovesPerMinuteLimit {
		ps.Addf("rerouting.maxMovesPerMinute", r.MaxMovesPerMinute, "1 to %d (AWS Batch allows about 5 submissions a second per account, shared with the submission function)", MaxMovesPerMinuteLimit)
	}
	if r.EveryMinutes < 1 || r.EveryMinutes > 60 {
		ps.Add("rerouting.everyMinutes", r.EveryMinutes, "1 to 60")
	}
}

// MaxLedgerRetentionDays bounds ledger.retentionDays: ten years.
const MaxLedgerRetentionDays = 3653

// MaxHourlyPrice bounds a price in ledger.hourlyPrices, a sanity bound
// far above any instance's on-demand price.
const MaxHourlyPrice = 10000.0

// validateLedger checks the ledger's retention and prices: each price is
// of an instance type of the pools, above 0 and at most MaxHourlyPrice.
func (p *Platform) validateLedger(ps *Problems) {
	l := p.Ledger
	if l.RetentionDays < 1 || l.RetentionDays > MaxLedgerRetentionDays {
		ps.Addf("ledger.retentionDays", l.RetentionDays, "1 to %d (days)", MaxLedgerRetentionDays)
	}
	types := make([]string, 0, len(p.Pools))
	for _, pool := range p.Pools {
		types = append(types, pool.InstanceType)
	}
	keys := make([]string, 0, len(l.HourlyPrices))
	for k := range l.HourlyPrices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f := "ledger.hourlyPrices." + k
		if !slices.Contains(types, k) {
			ps.Addf(f, k, "an instance type of the pools (%s)", strings.Join(types, ", "))
		}
		if v := l.HourlyPrices[k]; !(v > 0 && v <= MaxHourlyPrice) {
			ps.Addf(f, v, "a price above 0 and at most %g per instance-hour", MaxHourlyPrice)
		}
	}
}

// validateReroute checks a class's reroute block: a threshold in range, a
// move bound, and at least two instance types, each once and each one the
// platform submits to.
func (p *Platform) validateReroute(ps *Problems, f string, c Class) {
	r := c.Reroute
	if r == nil {
		return
	}
	f += ".reroute"
	if r.AfterSeconds < MinRerouteAfterSeconds || r.AfterSeconds > MaxRerouteAfterSeconds {
		ps.Addf(f+".afterSeconds", r.AfterSeconds, "%d to %d", MinRerouteAfterSeconds, MaxRerouteAfterSeconds)
	}
	if r.MaxMoves < 1 || r.MaxMoves > MaxRerouteMoves {
		ps.Addf(f+".maxMoves", r.MaxMoves, "1 to %d", MaxRerouteMoves)
	}
	if len(r.InstanceTypes) < 2 {
		ps.Add(f+".instanceTypes", fmt.Sprintf("%d instance types", len(r.InstanceTypes)), "at least two instance types of submission.instanceTypes: a job moves from one to another")
	}
	for j, it := range r.InstanceTypes {
		g := fmt.Sprintf("%s.instanceTypes[%d]", f, j)
		switch {
		case !slices.Contains(p.Submission.InstanceTypes, it):
			ps.Addf(g, it, "one of submission.instanceTypes (%s)", strings.Join(p.Submission.InstanceTypes, ", "))
		case slices.Index(r.InstanceTypes, it) < j:
			ps.Add(g, it, "each instance type once")
		}
	}
}

func (p *Platform) validateTeams(ps *Problems) {
	if len(p.Teams) == 0 {
		ps.Add("teams", "[]", "at least one team")
	}
	quota := p.Scheduling.Mode == ModeQuota
	known := quota || p.Scheduling.Mode == ModeFairShare
	if quota && len(p.Teams) > MaxQuotaSharesPerQueue {
		ps.Addf("teams", fmt.Sprintf("%d teams", len(p.Teams)), "at most %d quota shares per queue", MaxQuotaSharesPerQueue)
	}
	seen := map[string]bool{}
	totals := map[string]int{}
	for i, t := range p.Teams {
		f := fmt.Sprintf("teams[%d]", i)
		if seen[t.Name] {
			ps.Add(f+".name", t.Name, "a name not used by another team")
		}
		seen[t.Name] = true
		p.validateBudgets(ps, f, t)
		if !known {
			// scheduling.mode is reported; the team fields depend on it.
			continue
		}
		if !quota {
			if !batchrules.ValidShareIdentifier(t.Name) {
				ps.Addf(f+".name", t.Name, "1-255 letters, digits or '_' (a fair-share identifier: AWS Batch allows no '-' there, API_ShareAttributes)%s", shareNameHint(t.Name))
			}
			if t.Weight < MinWeight || t.Weight > MaxWeight {
				ps.Addf(f+".weight", t.Weight, "%g to %g", MinWeight, MaxWeight)
			}
			for _, q := range []struct {
				field string
				set   bool
			}{
				{"capacity", len(t.Capacity) > 0}, {"sharing", t.Sharing != ""},
				{"borrowLimitPercent", t.BorrowLimitPercent != nil}, {"inSharePreemption", t.InSharePreemption != nil},
			} {
				if q.set {
					ps.Add(f+"."+q.field, "a value", "no value in fairshare mode (quota only)")
				}
			}
			continue
		}
		if !batchrules.ValidName(t.Name) {
			ps.Add(f+".name", t.Name, "1-128 letters, digits, '-' or '_' (a quota share name)")
		}
		if t.Weight != 0 {
			ps.Add(f+".weight", t.Weight, "no value in quota mode (fairshare only)")
		}
		if len(t.Capacity) == 0 {
			ps.Add(f+".capacity", "[]", "1 to 5 instance types with their guaranteed instances")
		}
		if len(t.Capacity) > MaxCapacityLimitsPerShare {
			ps.Addf(f+".capacity", fmt.Sprintf("%d instance types", len(t.Capacity)), "at most %d capacity limits per quota share", MaxCapacityLimitsPerShare)
		}
		types := map[string]bool{}
		for j, c := range t.Capacity {
			cf := fmt.Sprintf("%s.capacity[%d]", f, j)
			checkInstanceType(ps, cf+".instanceType", c.InstanceType)
			if types[c.InstanceType] {
				ps.Add(cf+".instanceType", c.InstanceType, "each instance type once per team")
			}
			types[c.InstanceType] = true
			if !p.hasPool(c.InstanceType) && batchrules.ValidInstanceType(c.InstanceType) {
				ps.Addf(cf+".instanceType", c.InstanceType, "an instance type of the pools (%s)", strings.Join(p.InstanceTypes(), ", "))
			}
			if c.Instances < 1 {
				ps.Add(cf+".instances", c.Instances, "at least 1")
			}
			totals[c.InstanceType] += c.Instances
		}
		switch t.Sharing {
		case StrategyReserve, StrategyLend, StrategyLendAndBorrow:
		default:
			ps.Add(f+".sharing", string(t.Sharing), "reserve, lend or lend-and-borrow")
		}
		if t.BorrowLimitPercent != nil {
			if t.Sharing != StrategyLendAndBorrow {
				ps.Add(f+".borrowLimitPercent", *t.BorrowLimitPercent, "no value unless sharing is lend-and-borrow (sharing is "+string(t.Sharing)+")")
			} else if *t.BorrowLimitPercent < -1 {
				ps.Add(f+".borrowLimitPercent", *t.BorrowLimitPercent, "-1 (unlimited) or a percentage of at least 0")
			}
		}
	}
	p.validateBudgetAlarmsTotal(ps)
	if quota {
		types := make([]string, 0, len(totals))
		for it := range totals {
			types = append(types, it)
		}
		sort.Strings(types)
		for _, it := range types {
			if pool := p.PoolInstances(it); pool > 0 && totals[it] > pool {
				ps.Addf("teams[*].capacity", fmt.Sprintf("%d × %s in all", totals[it], it),
					"at most the pool's %d × %s", pool, it)
			}
		}
	}
}

func (p *Platform) validateMonitoring(ps *Problems) {
	m := p.Monitoring
	for i, e := range m.AlarmEmails {
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			ps.Add(fmt.Sprintf("monitoring.alarmEmails[%d]", i), e, "an e-mail address such as oncall@example.com")
		}
	}
	names := make([]string, 0, len(m.MaxWaitSeconds))
	for name := range m.MaxWaitSeconds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := "monitoring.maxWaitSeconds." + name
		if _, ok := p.Class(name); !ok {
			ps.Addf(f, "(key)", "a class name (%s)", strings.Join(p.ClassNames(), ", "))
		}
		if v := m.MaxWaitSeconds[name]; v < 60 || v > 7*24*3600 {
			ps.Add(f, v, "60 to 604800 seconds")
		}
	}
	if v := m.UtilizationTargetPercent; v < 1 || v > 100 {
		ps.Add("monitoring.utilizationTargetPercent", v, "1 to 100")
	}
	if v := m.IdleAlarmSeconds; v < 60 || v > 86400 || v%60 != 0 {
		ps.Add("monitoring.idleAlarmSeconds", v, "60 to 86400, whole minutes")
	}
	for i, c := range m.FailureAlarmClasses {
		if _, ok := p.Class(c); !ok {
			ps.Addf(fmt.Sprintf("monitoring.failureAlarmClasses[%d]", i), c, "a class name (%s)", strings.Join(p.ClassNames(), ", "))
		}
	}
	for _, c := range []struct {
		field  string
		target AlarmTarget
	}{{"monitoring.page", m.Page}, {"monitoring.ticket", m.Ticket}} {
		for i, e := range c.target.Emails {
			if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
				ps.Add(fmt.Sprintf("%s.emails[%d]", c.field, i), e, "an e-mail address such as oncall@example.com")
			}
		}
		if a := c.target.TopicARN; a != "" && !validTopicARN(a) {
			ps.Add(c.field+".topicArn", a, "an SNS topic ARN such as arn:aws:sns:us-east-1:123456789012:oncall-pages")
		}
	}
	for i, c := range m.PagingClasses {
		if _, ok := p.Class(c); !ok {
			ps.Addf(fmt.Sprintf("monitoring.pagingClasses[%d]", i), c, "a class name (%s)", strings.Join(p.ClassNames(), ", "))
		}
	}
	if u, err := url.Parse(m.RunbookURL); err != nil || u.Scheme != "https" || u.Host == "" || u.Fragment != "" || len(m.RunbookURL) > 512 {
		ps.Add("monitoring.runbookUrl", m.RunbookURL, "an https URL of at most 512 characters without a #fragment (each alarm links its own section)")
	}
	if !validRetention(m.LogRetentionDays) {
		ps.Add("monitoring.logRetentionDays", m.LogRetentionDays, "one of CloudWatch Logs' retentions: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653")
	}
}

// ValidateSubmission checks the submission section alone (the constructs
// check their Submitters and Operators props with it).
func (p *Platform) ValidateSubmission(ps *Problems) { p.validateSubmission(ps) }

func (p *Platform) validateSubmission(ps *Problems) {
	s := p.Submission
	seen := map[string]bool{}
	for i, it := range s.InstanceTypes {
		f := fmt.Sprintf("submission.instanceTypes[%d]", i)
		checkInstanceType(ps, f, it)
		if batchrules.ValidInstanceType(it) && !p.hasPool(it) {
			ps.Addf(f, it, "an instance type of the pools (%s)", strings.Join(p.InstanceTypes(), ", "))
		}
		if seen[it] {
			ps.Add(f, it, "each instance type once")
		}
		seen[it] = true
	}
	operators := map[batchrules.RoleKey]bool{}
	for i, op := range s.Operators {
		f := fmt.Sprintf("submission.operators[%d].roleArn", i)
		k, ok := batchrules.RoleKeyOf(op.RoleARN)
		switch {
		case !ok:
			ps.Add(f, op.RoleARN, "an IAM role ARN such as arn:aws:iam::123456789012:role/platform-operator")
		case operators[k]:
			ps.Add(f, op.RoleARN, "each role once (a role's name is unique in its account whatever its path)")
		}
		operators[k] = true
	}
	for i, sub := range s.Submitters {
		f := fmt.Sprintf("submission.submitters[%d]", i)
		if !batchrules.ValidRoleARN(sub.RoleARN) {
			ps.Add(f+".roleArn", sub.RoleARN, "an IAM role ARN such as arn:aws:iam::123456789012:role/pipeline")
		} else if k, _ := batchrules.RoleKeyOf(sub.RoleARN); operators[k] {
			ps.Add(f+".roleArn", sub.RoleARN, "a role that is not also an operator (an operator acts for every class and team already)")
		}
		if len(sub.Classes) == 0 {
			ps.Add(f+".classes", "[]", "at least one class name")
		}
		for j, c := range sub.Classes {
			if _, ok := p.Class(c); !ok {
				ps.Addf(fmt.Sprintf("%s.classes[%d]", f, j), c, "a class name (%s)", strings.Join(p.ClassNames(), ", "))
			}
			if slices.Index(sub.Classes, c) < j {
				ps.Add(fmt.Sprintf("%s.classes[%d]", f, j), c, "each class once")
			}
		}
		if len(sub.Teams) == 0 {
			ps.Addf(f+".teams", "[]", "at least one team name (%s); list every team to grant them all", strings.Join(p.TeamNames(), ", "))
		}
		for j, t := range sub.Teams {
			if _, ok := p.Team(t); !ok {
				ps.Addf(fmt.Sprintf("%s.teams[%d]", f, j), t, "a team name (%s)", strings.Join(p.TeamNames(), ", "))
			}
			if slices.Index(sub.Teams, t) < j {
				ps.Add(fmt.Sprintf("%s.teams[%d]", f, j), t, "each team once")
			}
		}
	}
}

func checkECRRepositories(ps *Problems, field string, repos []string) {
	for i, r := range repos {
		if len(r) < 2 || len(r) > 256 || !ecrRepositoryShape(r) {
			ps.Add(fmt.Sprintf("%s[%d]", field, i), r, "an ECR repository name such as ml/trainer")
		}
	}
}

func (p *Platform) validateTraining(ps *Problems) {
	t := p.Training
	if !validRetention(t.LogRetentionDays) {
		ps.Add("training.logRetentionDays", t.LogRetentionDays, "one of CloudWatch Logs' retentions: 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653")
	}
	checkURIs := func(field string, uris []string) {
		for i, u := range uris {
			if _, allowed := parseS3URI(u); allowed != "" {
				ps.Add(fmt.Sprintf("%s[%d]", field, i), u, allowed)
			}
		}
	}
	checkURIs("training.s3Read", t.S3Read)
	checkURIs("training.s3Write", t.S3Write)
	checkECRRepositories(ps, "training.ecrRepositories", t.ECRRepositories)
	for i, team := range p.Teams {
		tt := team.TrainingOf()
		f := fmt.Sprintf("teams[%d].training", i)
		checkURIs(f+".s3Read", tt.S3Read)
		checkURIs(f+".s3Write", tt.S3Write)
		checkECRRepositories(ps, f+".ecrRepositories", tt.ECRRepositories)
	}
	checkVPC := func(field string, v *TrainingVPC) {
		checkIDs(ps, field+".subnets", v.Subnets, maxTrainingSubnets, ValidSubnetID,
			"subnet", "subnet-", "subnet-0a1b2c3d4e5f60718")
		checkIDs(ps, field+".securityGroups", v.SecurityGroups, maxTrainingSecurityGroups, ValidSecurityGroupID,
			"security group", "sg-", "sg-0123456789abcdef0")
	}
	if v := t.VPC; v != nil {
		checkVPC("training.vpc", v)
	}
	// A team's own VPC is its network-interface fence (the execution role
	// changes interfaces only in its subnets, condition ec2:Subnet): a
	// subnet of a team's own may be no other team's, nor training.vpc's,
	// whose subnets every team without a VPC of its own shares.
	owner := map[string]string{}
	if v := t.VPC; v != nil {
		for _, s := range v.Subnets {
			owner[s] = "training.vpc"
		}
	}
	for i, team := range p.Teams {
		v := team.TrainingOf().VPC
		if v == nil {
			continue
		}
		f := fmt.Sprintf("teams[%d].training.vpc", i)
		checkVPC(f, v)
		for j, s := range v.Subnets {
			if other, taken := owner[s]; taken && other != team.Name {
				ps.Add(fmt.Sprintf("%s.subnets[%d]", f, j), s, fmt.Sprintf("a subnet of team %s's own, not also %s's: jobs may change the network interfaces of every subnet of their fence, so a shared subnet lets either team delete the other's", team.Name, other))
			}
			owner[s] = team.Name
		}
	}
	if n := len(t.KMSKeys); n > maxTrainingKMSKeys {
		ps.Addf("training.kmsKeys", fmt.Sprintf("%d keys", n), "at most %d KMS keys", maxTrainingKMSKeys)
	}
	seen := map[string]bool{}
	for i, k := range t.KMSKeys {
		f := fmt.Sprintf("training.kmsKeys[%d]", i)
		switch {
		case kmsAliasARN(k):
			ps.Add(f, k, "the ARN of the key itself (…:key/ID), not of an alias: IAM evaluates KMS permissions against the key ARN, so a grant on an alias ARN does not reach its key")
		case !validKMSKeyARN(k):
			ps.Add(f, k, "a KMS key ARN such as arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab (the key ID is a UUID, or mrk- and 32 hex digits for a multi-Region key)")
		case seen[k]:
			ps.Add(f, k, "each key once")
		}
		seen[k] = true
	}
}

// checkIDs checks a list of 1 to limit EC2 IDs of one kind (prefix, then 8
// or 17 hex digits), each once.
func checkIDs(ps *Problems, field string, ids []string, limit int, valid func(string) bool, kind, prefix, example string) {
	switch {
	case len(ids) == 0:
		ps.Addf(field, "[]", "1 to %d %s IDs such as %s (SageMaker VpcConfig)", limit, kind, example)
	case len(ids) > limit:
		ps.Addf(field, fmt.Sprintf("%d %ss", len(ids), kind), "at most %d %ss (SageMaker VpcConfig takes 1 to %d)", limit, kind, limit)
	}
	seen := map[string]bool{}
	for i, id := range ids {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !valid(id):
			ps.Addf(f, id, "a %s ID: %s then 8 or 17 lowercase hex digits, such as %s", kind, prefix, example)
		case seen[id]:
			ps.Addf(f, id, "each %s once", kind)
		}
		seen[id] = true
	}
}

// shareNameHint suggests a fair-share identifier for a team name that is
// one but for its '-' or '.' (the default platform's search-ranking).
func shareNameHint(name string) string {
	s := strings.NewReplacer("-", "_", ".", "_").Replace(name)
	if s == name || !batchrules.ValidShareIdentifier(s) {
		return ""
	}
	return fmt.Sprintf(", such as %q", s)
}
