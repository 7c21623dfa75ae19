package test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trainq/trainq/platform"
)

const fairSharePlatform = "testdata/fairshare.yaml"

func TestQuotaPlatformServiceEnvironmentLimitsEachPoolType(t *testing.T) {
	s := synth(t, "")
	_, env := s.template.one(t, "AWS::Batch::ServiceEnvironment")
	var want []any
	for _, pool := range s.platform.Pools {
		want = append(want, map[string]any{"CapacityUnit": pool.InstanceType, "MaxCapacity": float64(pool.Instances)})
	}
	if diff := cmp.Diff(want, env.Properties["CapacityLimits"]); diff != "" {
		t.Errorf("capacity limits (-want +got):\n%s", diff)
	}
	if got := env.Properties["ServiceEnvironmentType"]; got != "SAGEMAKER_TRAINING" {
		t.Errorf("ServiceEnvironmentType = %v, want SAGEMAKER_TRAINING", got)
	}
	if got := env.Properties["ServiceEnvironmentName"]; got != s.platform.ServiceEnvironmentName() {
		t.Errorf("ServiceEnvironmentName = %v, want %s", got, s.platform.ServiceEnvironmentName())
	}
}

func TestQueueRunsOnThePoolWithItsSchedulingPolicy(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			envID, _ := s.template.one(t, "AWS::Batch::ServiceEnvironment")
			policyID, _ := s.template.one(t, "AWS::Batch::SchedulingPolicy")
			_, q := s.template.one(t, "AWS::Batch::JobQueue")
			want := map[string]any{
				"JobQueueName":        s.platform.JobQueueName(),
				"JobQueueType":        "SAGEMAKER_TRAINING",
				"Priority":            float64(*s.platform.Scheduling.QueuePriority),
				"State":               "ENABLED",
				"SchedulingPolicyArn": getAtt(policyID, "Arn"),
				"ServiceEnvironmentOrder": []any{map[string]any{
					"Order": float64(1), "ServiceEnvironment": getAtt(envID, "ServiceEnvironmentArn"),
				}},
				"Tags": map[string]any{"trainq:platform": s.platform.Name},
			}
			// A SAGEMAKER_TRAINING queue's time limit actions are RUNNABLE →
			// TERMINATE (AWS Batch API reference, JobStateTimeLimitAction).
			var actions []any
			for _, a := range s.platform.Scheduling.JobStateTimeLimitActions {
				actions = append(actions, map[string]any{"Action": "TERMINATE", "State": "RUNNABLE", "Reason": a.Reason, "MaxTimeSeconds": float64(a.MaxTimeSeconds)})
			}
			if actions != nil {
				want["JobStateTimeLimitActions"] = actions
			}
			if diff := cmp.Diff(want, q.Properties); diff != "" {
				t.Errorf("job queue (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultQueueTerminatesJobsThatCanNeverRunAfterTenMinutes(t *testing.T) {
	// The default (docs/platform.md, "Jobs that block the queue"): a job
	// that needs more than its quota share or the pool allows can never
	// run, so Batch terminates it after 600 s (the API's minimum); a lack
	// of SageMaker capacity is transient, so those jobs wait.
	_, q := synth(t, "").template.one(t, "AWS::Batch::JobQueue")
	want := []any{
		map[string]any{"Action": "TERMINATE", "State": "RUNNABLE", "Reason": "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE", "MaxTimeSeconds": float64(600)},
		map[string]any{"Action": "TERMINATE", "State": "RUNNABLE", "Reason": "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED", "MaxTimeSeconds": float64(600)},
	}
	got, _ := q.Properties["JobStateTimeLimitActions"].([]any)
	less := func(a, b any) bool { return fmt.Sprint(a) < fmt.Sprint(b) }
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(less)); diff != "" {
		t.Errorf("time limit actions (-want +got):\n%s", diff)
	}
}

func TestQuotaPlatformHasOneQuotaSharePerTeam(t *testing.T) {
	s := synth(t, "")
	_, policy := s.template.one(t, "AWS::Batch::SchedulingPolicy")
	if diff := cmp.Diff(map[string]any{"IdleResourceAssignmentStrategy": "FIFO"}, policy.Properties["QuotaSharePolicy"]); diff != "" {
		t.Errorf("quota share policy (-want +got):\n%s", diff)
	}
	if policy.Properties["FairsharePolicy"] != nil {
		t.Errorf("a quota platform's policy has a FairsharePolicy: %v", policy.Properties["FairsharePolicy"])
	}
	queueID, _ := s.template.one(t, "AWS::Batch::JobQueue")
	got := map[string]any{}
	for _, id := range s.template.ofType("AWS::Batch::QuotaShare") {
		props := s.template.Resources[id].Properties
		got[props["QuotaShareName"].(string)] = props
	}
	want := map[string]any{}
	for _, team := range s.platform.Teams {
		var limits []any
		for _, c := range team.Capacity {
			limits = append(limits, map[string]any{"CapacityUnit": c.InstanceType, "MaxCapacity": float64(c.Instances)})
		}
		sharing := map[string]any{"Strategy": team.Sharing.BatchStrategy()}
		if team.Sharing == platform.StrategyLendAndBorrow {
			sharing["BorrowLimit"] = float64(team.BorrowLimit())
		}
		preemption := "DISABLED"
		if team.PreemptsInShare() {
			preemption = "ENABLED"
		}
		want[team.Name] = map[string]any{
			"QuotaShareName":               team.Name,
			"JobQueue":                     getAtt(queueID, "JobQueueArn"),
			"CapacityLimits":               limits,
			"ResourceSharingConfiguration": sharing,
			"PreemptionConfiguration":      map[string]any{"InSharePreemption": preemption},
			"State":                        "ENABLED",
			"Tags":                         map[string]any{"trainq:platform": s.platform.Name},
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quota shares (-want +got):\n%s", diff)
	}
}

func TestReferenceSetupLendsBorrowsAndPreemptsInShare(t *testing.T) {
	// The embedded default is the reference setup: every team lends and
	// borrows, and production preempts sweeps inside a team.
	s := synth(t, "")
	for _, id := range s.template.ofType("AWS::Batch::QuotaShare") {
		props := s.template.Resources[id].Properties
		if got := get(props, "ResourceSharingConfiguration.Strategy"); got != "LEND_AND_BORROW" {
			t.Errorf("%s: strategy %v, want LEND_AND_BORROW", id, got)
		}
		if got := get(props, "PreemptionConfiguration.InSharePreemption"); got != "ENABLED" {
			t.Errorf("%s: in-share preemption %v, want ENABLED", id, got)
		}
	}
}

func TestFairSharePlatformPoolAndPolicy(t *testing.T) {
	s := synth(t, fairSharePlatform)
	_, env := s.template.one(t, "AWS::Batch::ServiceEnvironment")
	// 16 + 32 instances in one NUM_INSTANCES limit.
	wantLimits := []any{map[string]any{"CapacityUnit": "NUM_INSTANCES", "MaxCapacity": float64(s.platform.TotalInstances())}}
	if diff := cmp.Diff(wantLimits, env.Properties["CapacityLimits"]); diff != "" {
		t.Errorf("capacity limits (-want +got):\n%s", diff)
	}
	_, policy := s.template.one(t, "AWS::Batch::SchedulingPolicy")
	var shares []any
	for _, team := range s.platform.Teams {
		shares = append(shares, map[string]any{"ShareIdentifier": team.Name, "WeightFactor": team.Weight})
	}
	want := map[string]any{
		"ShareDecaySeconds":  float64(*s.platform.Scheduling.ShareDecaySeconds),
		"ComputeReservation": float64(*s.platform.Scheduling.ComputeReservation),
		"ShareDistribution":  shares,
	}
	if diff := cmp.Diff(want, policy.Properties["FairsharePolicy"]); diff != "" {
		t.Errorf("fair-share policy (-want +got):\n%s", diff)
	}
	if n := len(s.template.ofType("AWS::Batch::QuotaShare")); n != 0 {
		t.Errorf("a fair-share platform has %d quota shares, want none", n)
	}
}
