package platform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseAcceptsBoundaries checks that the edges of every range are
// allowed, so that the rejections above are not off by one.
func TestParseAcceptsBoundaries(t *testing.T) {
	cases := []struct {
		name   string
		base   func() doc
		change func(testing.TB, doc)
	}{
		{"20 quota shares are accepted", quotaDoc, to("teams", teamsOfOne(20))},
		// 40 teams × 5 budget alarms: 200, the most a stack has room for.
		{"200 budget alarms are accepted", fairshareDoc, to("teams", budgetTeams(40))},
		{"21 fair-share identifiers are accepted (the 20-share limit is for quota shares)", fairshareDoc, func(t testing.TB, d doc) {
			teams := make([]any, 21)
			for i := range teams {
				teams[i] = doc{"name": fmt.Sprintf("team_%02d", i), "weight": 1}
			}
			d["teams"] = teams
		}},
		{"5 capacity limits in one share are accepted", quotaDoc, func(t testing.TB, d doc) {
			pools, capacity := poolsOf(sixTypes[:5])
			d["pools"] = pools
			set(t, d, "teams.0.capacity", capacity)
		}},
		{"a quota share name of 128 characters with '-' and '_' is accepted", quotaDoc, to("teams.0.name", "a-b_"+strings.Repeat("c", 124))},
		{"a fair-share identifier of 255 characters is accepted", fairshareDoc, to("teams.0.name", strings.Repeat("b", 255))},
		{"a weight of 0.0001 is accepted", fairshareDoc, to("teams.0.weight", 0.0001)},
		{"a weight of 999.9999 is accepted", fairshareDoc, to("teams.0.weight", 999.9999)},
		{"a share decay of 604800 s is accepted", fairshareDoc, to("scheduling.shareDecaySeconds", 604800)},
		{"a share decay of 0 s is accepted", fairshareDoc, to("scheduling.shareDecaySeconds", 0)},
		{"a compute reservation of 99 is accepted", fairshareDoc, to("scheduling.computeReservation", 99)},
		{"a compute reservation of 0 is accepted", fairshareDoc, to("scheduling.computeReservation", 0)},
		{"a queue priority of 0 is accepted", quotaDoc, to("scheduling.queuePriority", 0)},
		{"a queue priority of 1000 is accepted", quotaDoc, to("scheduling.queuePriority", 1000)},
		{"no time limit actions at all is accepted", quotaDoc, to("scheduling.jobStateTimeLimitActions", []any{})},
		{"a time limit action for each reason, at Batch's bounds, is accepted", quotaDoc, to("scheduling.jobStateTimeLimitActions", []any{
			doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "maxTimeSeconds": 86400},
			doc{"reason": "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE", "maxTimeSeconds": 600},
			doc{"reason": "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED", "maxTimeSeconds": 600},
		})},
		{"a borrow limit of -1 (unlimited) is accepted", quotaDoc, to("teams.0.borrowLimitPercent", -1)},
		{"a borrow limit of 0 is accepted", quotaDoc, to("teams.0.borrowLimitPercent", 0)},
		{"a borrow limit of 300 percent is accepted", quotaDoc, to("teams.0.borrowLimitPercent", 300)},
		{"a reserving share without a borrow limit is accepted", quotaDoc, to("teams.0.sharing", "reserve")},
		{"adjacent bands are accepted", quotaDoc, withClasses(to("classes.1.priority", doc{"min": 200, "max": 899}))},
		{"a band of one priority is accepted", quotaDoc, withClasses(to("classes.2.priority", doc{"min": 0, "max": 0}))},
		{"a band up to 9999 is accepted", quotaDoc, withClasses(to("classes.0.priority.max", 9999))},
		{"a max runtime of 28 days is accepted", quotaDoc, withClasses(to("classes.0.maxRuntimeSeconds", 2419200))},
		{"9 retries are accepted", quotaDoc, withClasses(to("classes.0.retries", 9))},
		{"9999 preemption retries are accepted", quotaDoc, withClasses(to("classes.0.preemptionRetries", 9999))},
		{"a platform name of 32 characters is accepted", quotaDoc, to("name", "t"+strings.Repeat("x", 31))},
		{"an idle alarm of one minute is accepted", quotaDoc, to("monitoring.idleAlarmSeconds", 60)},
		{"an idle alarm of one day is accepted", quotaDoc, to("monitoring.idleAlarmSeconds", 86400)},
		{"a utilization target of 100 percent is accepted", quotaDoc, to("monitoring.utilizationTargetPercent", 100)},
		{"a wait threshold of a week is accepted", quotaDoc, to("monitoring.maxWaitSeconds.sweep", 604800)},
		{"a role whose path and name have 512 characters is accepted (IAM's limit, batchrules.ValidRoleARN)", quotaDoc, to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/ml/" + strings.Repeat("r", 509), "classes": []any{"sweep"}, "teams": []any{"search-ranking"}}})},
		{"a role ARN in another partition is accepted", quotaDoc, to("submission.submitters", []any{doc{"roleArn": "arn:aws-us-gov:iam::123456789012:role/ml/pipeline", "classes": []any{"sweep"}, "teams": []any{"search-ranking"}}})},
		{"an S3 bucket without prefix is accepted", quotaDoc, to("training.s3Read", []any{"s3://datasets"})},
		{"a whole S3 bucket with a trailing slash is accepted", quotaDoc, to("training.s3Write", []any{"s3://checkpoints/"})},
		{"an S3 prefix with a trailing slash is accepted", quotaDoc, to("training.s3Read", []any{"s3://ml-datasets/search/"})},
		{"one S3 object is accepted", quotaDoc, to("training.s3Read", []any{"s3://ml-datasets/search/vocab.txt"})},
		{"the same S3 location may be read and written", quotaDoc, func(t testing.TB, d doc) {
			set(t, d, "training.s3Read", []any{"s3://ml-checkpoints/search/"})
			set(t, d, "training.s3Write", []any{"s3://ml-checkpoints/search/"})
		}},
		{"AWS's prebuilt images may be turned off", quotaDoc, to("training.awsManagedImages", false)},
		{"16 subnets and 5 security groups are accepted", quotaDoc, to("training.vpc", doc{"subnets": subnets(16), "securityGroups": securityGroups(5)})},
		{"each team in subnets of its own, beside a training.vpc of others, is accepted", quotaDoc, func(t testing.TB, d doc) {
			set(t, d, "training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d"}, "securityGroups": []any{"sg-0a1b2c3d"}})
			set(t, d, "teams.0.training", doc{"vpc": doc{"subnets": []any{"subnet-1a1b2c3d"}, "securityGroups": []any{"sg-0a1b2c3d"}}})
			set(t, d, "teams.1.training", doc{"vpc": doc{"subnets": []any{"subnet-2a1b2c3d"}, "securityGroups": []any{"sg-0a1b2c3d"}}})
		}},
		{"one subnet and one security group of 8 hex digits are accepted", quotaDoc, to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d"}, "securityGroups": []any{"sg-0a1b2c3d"}})},
		{"20 KMS keys are accepted", quotaDoc, to("training.kmsKeys", kmsKeys(20))},
		{"a multi-Region KMS key is accepted", quotaDoc, to("training.kmsKeys", []any{"arn:aws:kms:us-east-2:111122223333:key/mrk-1234abcd12ab34cd56ef1234567890ab"})},
		{"a KMS key in GovCloud is accepted", quotaDoc, to("training.kmsKeys", []any{"arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"})},
		{"a namespaced ECR repository is accepted", quotaDoc, to("training.ecrRepositories", []any{"ml/trainer-v2"})},
		{"failure alarms may be turned off with an empty list", quotaDoc, to("monitoring.failureAlarmClasses", []any{})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.base()
			tc.change(t, d)
			mustParse(t, render(t, d))
		})
	}
}

// TestValidateAPlatformBuiltInGo: Validate works on a struct built in Go
// after ApplyDefaults, with the same problems as the file form.
func TestValidateAPlatformBuiltInGo(t *testing.T) {
	p := Platform{
		Pools:      []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 8}},
		Scheduling: Scheduling{Mode: ModeFairShare, ComputeReservation: ptr(120)},
		Teams:      []Team{{Name: "ranking", Weight: 0.5}, {Name: "search-research", Weight: 1}},
	}
	p.ApplyDefaults()
	err := p.Validate()
	want := []string{"scheduling.computeReservation", "teams[1].name"}
	if diff := cmp.Diff(want, fields(problemsOf(t, err))); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s", diff)
	}
	p.Scheduling.ComputeReservation = ptr(20)
	p.Teams[1].Name = "search_research"
	if err := p.Validate(); err != nil {
		t.Errorf("corrected platform: %v", err)
	}
}
