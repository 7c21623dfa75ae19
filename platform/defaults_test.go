package platform

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The expected defaults below are the ones documented on the fields of
// Platform (platform.go), written out by hand.

// defaultClassesWant are the documented default classes after defaults:
// maxRuntimeSeconds 432000 (5 days = 5 × 86400) and 0 retries each.
func defaultClassesWant() []Class {
	return []Class{
		{Name: "production", Priority: Band{Min: 900, Max: 999}, MaxRuntimeSeconds: 432000, Retries: ptr(0)},
		{Name: "research", Priority: Band{Min: 500, Max: 599}, MaxRuntimeSeconds: 432000, Retries: ptr(0)},
		{Name: "sweep", Priority: Band{Min: 100, Max: 199}, MaxRuntimeSeconds: 432000, Retries: ptr(0)},
	}
}

// timeLimitsWant are the documented default jobStateTimeLimitActions: the
// two misconfigurations terminate after Batch's minimum, 600 s.
func timeLimitsWant() []JobStateTimeLimitAction {
	return []JobStateTimeLimitAction{
		{Reason: "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE", MaxTimeSeconds: 600},
		{Reason: "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED", MaxTimeSeconds: 600},
	}
}

func TestOmittedFieldsGetTheDocumentedDefaults(t *testing.T) {
	cases := []struct {
		name string
		file string
		want *Platform
	}{
		{
			name: "a quota file with only pools and team capacities gets every other field",
			file: `
pools:
  - {instanceType: ml.p5.48xlarge, instances: 40}
  - {instanceType: ml.p4d.24xlarge, instances: 60}
teams:
  - name: ranking
    capacity: [{instanceType: ml.p5.48xlarge, instances: 40}]
`,
			want: &Platform{
				Name: "trainq",
				Pools: []Pool{
					{InstanceType: "ml.p5.48xlarge", Instances: 40},
					{InstanceType: "ml.p4d.24xlarge", Instances: 60},
				},
				// Quota is the default mode; fair-share fields stay unset.
				Scheduling: Scheduling{Mode: ModeQuota, QueuePriority: ptr(10), JobStateTimeLimitActions: timeLimitsWant()},
				Classes:    defaultClassesWant(),
				Teams: []Team{{
					Name:     "ranking",
					Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 40}},
					// lend-and-borrow, unlimited borrowing (nil), in-share preemption on.
					Sharing:           StrategyLendAndBorrow,
					InSharePreemption: ptr(true),
				}},
				Monitoring: Monitoring{
					Enabled:                  ptr(true),
					MaxWaitSeconds:           map[string]int{"production": 900, "research": 7200, "sweep": 43200},
					UtilizationTargetPercent: 80,
					IdleAlarmSeconds:         1800,
					FailureAlarmClasses:      []string{"production"},
					LogRetentionDays:         30,
					PagingClasses:            []string{"production"},
					RunbookURL:               DefaultRunbookURL,
				},
				// The pool's types, in pool order.
				Submission: Submission{InstanceTypes: []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}},
				// AWS's prebuilt images on; no S3, repositories, VPC or keys.
				Training: Training{AWSManagedImages: ptr(true), LogRetentionDays: DefaultTrainingLogRetentionDays},
				// 30 moves a minute, every minute (platform.md, rerouting).
				Rerouting: Rerouting{MaxMovesPerMinute: 30, EveryMinutes: 1},
				Ledger:    Ledger{RetentionDays: DefaultLedgerRetentionDays},
			},
		},
		{
			name: "a fair-share file gets decay, reservation and weight, and no quota defaults",
			file: `
pools: [{instanceType: ml.p4d.24xlarge, instances: 32}]
scheduling: {mode: fairshare}
teams:
  - name: ranking
  - name: research
    weight: 2
`,
			want: &Platform{
				Name:  "trainq",
				Pools: []Pool{{InstanceType: "ml.p4d.24xlarge", Instances: 32}},
				Scheduling: Scheduling{
					Mode: ModeFairShare, QueuePriority: ptr(10),
					ShareDecaySeconds: ptr(3600), ComputeReservation: ptr(0),
					JobStateTimeLimitActions: timeLimitsWant(),
				},
				Classes: defaultClassesWant(),
				// Weight 1 when omitted; no sharing strategy or preemption
				// setting, which are quota-only.
				Teams: []Team{{Name: "ranking", Weight: 1}, {Name: "research", Weight: 2}},
				Monitoring: Monitoring{
					Enabled:                  ptr(true),
					MaxWaitSeconds:           map[string]int{"production": 900, "research": 7200, "sweep": 43200},
					UtilizationTargetPercent: 80,
					IdleAlarmSeconds:         1800,
					FailureAlarmClasses:      []string{"production"},
					LogRetentionDays:         30,
					PagingClasses:            []string{"production"},
					RunbookURL:               DefaultRunbookURL,
				},
				Submission: Submission{InstanceTypes: []string{"ml.p4d.24xlarge"}},
				Training:   Training{AWSManagedImages: ptr(true), LogRetentionDays: DefaultTrainingLogRetentionDays},
				Rerouting:  Rerouting{MaxMovesPerMinute: 30, EveryMinutes: 1},
				Ledger:     Ledger{RetentionDays: DefaultLedgerRetentionDays},
			},
		},
		{
			name: "classes with other names wait 3600 s before an alarm and raise no failure alarm",
			file: `
pools: [{instanceType: ml.g5.48xlarge, instances: 4}]
scheduling: {mode: fairshare, shareDecaySeconds: 0}
classes:
  - {name: interactive, priority: {min: 5000, max: 5099}}
  - {name: research, priority: {min: 100, max: 199}, maxRuntimeSeconds: 7200}
teams: [{name: solo}]
monitoring:
  maxWaitSeconds: {interactive: 300}
`,
			want: &Platform{
				Name:  "trainq",
				Pools: []Pool{{InstanceType: "ml.g5.48xlarge", Instances: 4}},
				// An explicit decay of 0 is kept, not replaced by 3600.
				Scheduling: Scheduling{
					Mode: ModeFairShare, QueuePriority: ptr(10),
					ShareDecaySeconds: ptr(0), ComputeReservation: ptr(0),
					JobStateTimeLimitActions: timeLimitsWant(),
				},
				Classes: []Class{
					{Name: "interactive", Priority: Band{Min: 5000, Max: 5099}, MaxRuntimeSeconds: 432000, Retries: ptr(0)},
					{Name: "research", Priority: Band{Min: 100, Max: 199}, MaxRuntimeSeconds: 7200, Retries: ptr(0)},
				},
				Teams: []Team{{Name: "solo", Weight: 1}},
				Monitoring: Monitoring{
					Enabled: ptr(true),
					// interactive keeps its 300; research gets its well-known 7200.
					MaxWaitSeconds:           map[string]int{"interactive": 300, "research": 7200},
					UtilizationTargetPercent: 80,
					IdleAlarmSeconds:         1800,
					LogRetentionDays:         30,
					PagingClasses:            []string{},
					RunbookURL:               DefaultRunbookURL,
				},
				Submission: Submission{InstanceTypes: []string{"ml.g5.48xlarge"}},
				Training:   Training{AWSManagedImages: ptr(true), LogRetentionDays: DefaultTrainingLogRetentionDays},
				Rerouting:  Rerouting{MaxMovesPerMinute: 30, EveryMinutes: 1},
				Ledger:     Ledger{RetentionDays: DefaultLedgerRetentionDays},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, []byte(tc.file))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("platform (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExplicitValuesAreKept: a file that sets every field comes back exactly
// as written (testdata/quota.yaml, transcribed by hand).
func TestExplicitValuesAreKept(t *testing.T) {
	want := &Platform{
		Name: "vision",
		Pools: []Pool{
			{InstanceType: "ml.p5.48xlarge", Instances: 8},
			{InstanceType: "ml.g5.48xlarge", Instances: 20},
		},
		// Written: capacity waits up to 4 h; the misconfigurations get no
		// default once the list is given.
		Scheduling: Scheduling{Mode: ModeQuota, QueuePriority: ptr(50), JobStateTimeLimitActions: []JobStateTimeLimitAction{
			{Reason: "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", MaxTimeSeconds: 14400},
		}},
		Classes: []Class{
			{Name: "urgent", Priority: Band{Min: 9000, Max: 9999}, MaxRuntimeSeconds: 86400, Retries: ptr(3), PreemptionRetries: ptr(0)},
			{Name: "batch", Priority: Band{Min: 10, Max: 19}, MaxRuntimeSeconds: 3600, Retries: ptr(0),
				Reroute:     &Reroute{AfterSeconds: 600, InstanceTypes: []string{"ml.g5.48xlarge", "ml.p5.48xlarge"}, MaxMoves: 1},
				Checkpoints: &Checkpoints{IntervalSeconds: 900}},
		},
		Teams: []Team{
			{
				Name: "detection",
				Capacity: []Pool{
					{InstanceType: "ml.p5.48xlarge", Instances: 6},
					{InstanceType: "ml.g5.48xlarge", Instances: 10},
				},
				Sharing: StrategyReserve, InSharePreemption: ptr(false),
			},
			{
				Name:     "segmentation_v2",
				Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 2}},
				Sharing:  StrategyLendAndBorrow, BorrowLimitPercent: ptr(200), InSharePreemption: ptr(true),
			},
			{
				Name:     "labeling",
				Capacity: []Pool{{InstanceType: "ml.g5.48xlarge", Instances: 10}},
				// inSharePreemption omitted: on.
				Sharing: StrategyLend, InSharePreemption: ptr(true),
			},
		},
		Monitoring: Monitoring{
			Enabled:                  ptr(true),
			AlarmEmails:              []string{"vision-oncall@example.com", "ml-platform@example.com"},
			MaxWaitSeconds:           map[string]int{"urgent": 600, "batch": 86400},
			UtilizationTargetPercent: 70,
			IdleAlarmSeconds:         3600,
			FailureAlarmClasses:      []string{"urgent", "batch"},
			LogRetentionDays:         90,
			PagingClasses:            []string{"urgent"},
			RunbookURL:               "https://wiki.example.com/vision/trainq-runbooks",
			Page:                     AlarmTarget{TopicARN: "arn:aws:sns:eu-west-1:210987654321:vision-pages"},
			Ticket:                   AlarmTarget{Emails: []string{"vision-tickets@example.com"}},
		},
		Submission: Submission{
			InstanceTypes: []string{"ml.g5.48xlarge", "ml.p5.48xlarge"},
			Submitters: []Submitter{
				{RoleARN: "arn:aws:iam::210987654321:role/vision/pipeline", Classes: []string{"urgent", "batch"}, Teams: []string{"detection", "segmentation_v2"}},
				{RoleARN: "arn:aws:iam::210987654321:role/notebooks", Classes: []string{"batch"}, Teams: []string{"labeling"}},
			},
		},
		Training: Training{
			S3Read:          []string{"s3://vision-datasets/coco/", "s3://vision-datasets/openimages/v7/"},
			S3Write:         []string{"s3://vision-checkpoints"},
			ECRRepositories: []string{"vision/trainer", "vision/evaluator"},
			// Written as false, kept as false.
			AWSManagedImages: ptr(false),
			VPC: &TrainingVPC{
				Subnets:        []string{"subnet-0f1e2d3c4b5a69788", "subnet-1234abcd"},
				SecurityGroups: []string{"sg-0fedcba9876543210"},
			},
			KMSKeys: []string{
				"arn:aws:kms:eu-west-1:210987654321:key/0fedcba9-8765-4321-0fed-cba987654321",
				"arn:aws:kms:eu-west-1:210987654321:key/mrk-0fedcba987654321fedcba9876543210",
			},

			LogRetentionDays: DefaultTrainingLogRetentionDays,
		},
		Rerouting: Rerouting{MaxMovesPerMinute: 10, EveryMinutes: 5},
		Ledger:    Ledger{RetentionDays: DefaultLedgerRetentionDays},
	}
	got := mustParse(t, readTestdata(t, "quota.yaml"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("platform (-want +got):\n%s", diff)
	}
}

// TestExplicitFalseAndZeroAreKept: pointers let a user turn off what is on
// by default.
func TestExplicitFalseAndZeroAreKept(t *testing.T) {
	d := quotaDoc()
	set(t, d, "teams.0.inSharePreemption", false)
	set(t, d, "monitoring.enabled", false)
	set(t, d, "monitoring.failureAlarmClasses", []any{})
	set(t, d, "scheduling.queuePriority", 0)
	p := mustParse(t, render(t, d))
	if p.Teams[0].PreemptsInShare() {
		t.Error("teams[0]: in-share preemption is on, want off as written")
	}
	if !p.Teams[1].PreemptsInShare() {
		t.Error("teams[1]: in-share preemption is off, want the default on")
	}
	if p.Monitoring.IsEnabled() {
		t.Error("monitoring is on, want off as written")
	}
	if len(p.Monitoring.FailureAlarmClasses) != 0 {
		t.Errorf("failureAlarmClasses = %v, want none as written", p.Monitoring.FailureAlarmClasses)
	}
	if got := *p.Scheduling.QueuePriority; got != 0 {
		t.Errorf("queuePriority = %d, want 0 as written", got)
	}
}

func TestApplyDefaultsIsIdempotent(t *testing.T) {
	for _, name := range []string{"fairshare.yaml", "quota.yaml"} {
		t.Run(name, func(t *testing.T) {
			p := mustParse(t, readTestdata(t, name))
			again := *p
			again.ApplyDefaults()
			if diff := cmp.Diff(p, &again); diff != "" {
				t.Errorf("second ApplyDefaults changed the platform (-once +twice):\n%s", diff)
			}
		})
	}
}
