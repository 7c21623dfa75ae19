package submit_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
)

// quotaPlatform: vision has quotas for p5 (8) and p4d (10) and may borrow
// 50% more; nlp has quotas for all three types; g5 is first in the
// fallback order but vision has no quota for it.
const quotaPlatform = `
pools:
  - {instanceType: ml.p5.48xlarge, instances: 40}
  - {instanceType: ml.p4d.24xlarge, instances: 60}
  - {instanceType: ml.g5.48xlarge, instances: 10}
scheduling: {mode: quota}
teams:
  - name: vision
    capacity: [{instanceType: ml.p5.48xlarge, instances: 8}, {instanceType: ml.p4d.24xlarge, instances: 10}]
    sharing: lend-and-borrow
    borrowLimitPercent: 50
  - name: nlp
    capacity: [{instanceType: ml.p5.48xlarge, instances: 32}, {instanceType: ml.p4d.24xlarge, instances: 50}, {instanceType: ml.g5.48xlarge, instances: 10}]
    sharing: lend-and-borrow
submission: {instanceTypes: [ml.g5.48xlarge, ml.p5.48xlarge, ml.p4d.24xlarge]}
`

// visionJob asks for 2 instances of whatever type trainq chooses.
const visionJob = `{"jobName":"vit","team":"vision","class":"research",` +
	`"trainingJob":{"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/x/"},"ResourceConfig":{"InstanceCount":2}}}`

func mustParse(t *testing.T, yaml string) *platform.Platform {
	t.Helper()
	p, err := platformfile.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInstanceTypeFallbackFollowsTheTeamsQuota(t *testing.T) {
	tests := []struct {
		name string
		// used is the queue's usage per type; shares the per-share
		// breakdown (nil: the snapshot has none).
		used   map[string]float64
		shares map[string]map[string]float64
		want   string
	}{
		{
			name: "a type the team has no quota for is never chosen, even with the pool idle",
			// g5 is first in the fallback order and all 10 are free, but
			// vision has no g5 quota: the first of its types, p5.
			shares: map[string]map[string]float64{},
			want:   "ml.p5.48xlarge",
		},
		{
			name: "the team's own quota counts as headroom even when borrowers fill the pool",
			// p5: the pool is full (40 used, all by nlp), vision uses 0 of
			// its 8: Batch reclaims them. max(8-0, min(12-0, 40-40)) = 8 >= 2.
			used:   map[string]float64{"ml.p5.48xlarge": 40},
			shares: map[string]map[string]float64{"nlp": {"ml.p5.48xlarge": 40}},
			want:   "ml.p5.48xlarge",
		},
		{
			name: "beyond quota and borrow limit the team falls back although the pool has room",
			// p5: vision uses 11; limit 8 x 1.5 = 12; pool free 40-11 = 29.
			// max(8-11, min(12-11, 29)) = 1 < 2: p4d, where vision uses
			// nothing: max(10-0, min(15-0, 60-0)) = 15.
			used:   map[string]float64{"ml.p5.48xlarge": 11},
			shares: map[string]map[string]float64{"vision": {"ml.p5.48xlarge": 11}},
			want:   "ml.p4d.24xlarge",
		},
		{
			name: "without a per-share breakdown the pool's free instances decide among the team's types",
			// p5: 40-39 = 1 free < 2; p4d: 60 free. g5 is still skipped.
			used: map[string]float64{"ml.p5.48xlarge": 39},
			want: "ml.p4d.24xlarge",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			fake.SetUsed(tt.used)
			fake.SetShareUsed(tt.shares)
			h := newHandler(t, mustParse(t, quotaPlatform), fake, fastPolicy)
			resp, ferr := invoke(t, invocation("", "req-1"), h, []byte(visionJob))
			if ferr != nil {
				t.Fatalf("function error %s: %s", ferr.Type, ferr.Message)
			}
			if resp.InstanceType != tt.want {
				t.Errorf("chose %s, want %s", resp.InstanceType, tt.want)
			}
		})
	}
}

// TestFallbackLeavesAReserveTeamsIdleQuotaAlone: nlp reserves its p5
// quota. With 10 p5 instances idle, all of them nlp's unused quota, vision
// (at its own quota) cannot borrow them, so the fallback goes on to p4d.
func TestFallbackLeavesAReserveTeamsIdleQuotaAlone(t *testing.T) {
	p := mustParse(t, strings.Replace(quotaPlatform, "    capacity: [{instanceType: ml.p5.48xlarge, instances: 32}, {instanceType: ml.p4d.24xlarge, instances: 50}, {instanceType: ml.g5.48xlarge, instances: 10}]\n    sharing: lend-and-borrow",
		"    capacity: [{instanceType: ml.p5.48xlarge, instances: 32}, {instanceType: ml.p4d.24xlarge, instances: 50}, {instanceType: ml.g5.48xlarge, instances: 10}]\n    sharing: reserve", 1))
	if team, _ := p.Team("nlp"); team.Sharing != platform.StrategyReserve {
		t.Fatalf("nlp shares %q, want reserve", team.Sharing)
	}
	fake := newFake(t)
	defer fake.Close()
	// p5: vision holds its 8 and nlp 22 of its 32; 40 - 30 = 10 free, but
	// nlp's idle quota is 32 - 22 = 10: max(8-8, min(12-8, 10-10)) = 0 < 2.
	// p4d: nothing in use: max(10-0, min(15-0, 60-50)) = 10 >= 2.
	fake.SetUsed(map[string]float64{"ml.p5.48xlarge": 30})
	fake.SetShareUsed(map[string]map[string]float64{"vision": {"ml.p5.48xlarge": 8}, "nlp": {"ml.p5.48xlarge": 22}})
	h := newHandler(t, p, fake, fastPolicy)
	resp, ferr := invoke(t, invocation("", "req-1"), h, []byte(visionJob))
	if ferr != nil {
		t.Fatalf("function error %s: %s", ferr.Type, ferr.Message)
	}
	if resp.InstanceType != "ml.p4d.24xlarge" {
		t.Errorf("chose %s, want ml.p4d.24xlarge (nlp's idle p5 quota is not vision's to borrow)", resp.InstanceType)
	}
}

func TestInstanceTypesWithoutTeamQuotaAreRefused(t *testing.T) {
	tests := []struct {
		name    string
		request string
		want    string
	}{
		{
			name:    "a requested fallback type the team has no quota for",
			request: `{"jobName":"vit","team":"vision","class":"research","instanceTypes":["ml.p5.48xlarge","ml.g5.48xlarge"],"trainingJob":{"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/x/"}}}`,
			want:    `instanceTypes[1]: got "ml.g5.48xlarge", want an instance type team vision has a quota for (ml.p5.48xlarge, ml.p4d.24xlarge)`,
		},
		{
			name:    "a payload instance type the team has no quota for",
			request: `{"jobName":"vit","team":"vision","class":"research","trainingJob":{"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/x/"},"ResourceConfig":{"InstanceType":"ml.g5.48xlarge"}}}`,
			want:    `trainingJob.ResourceConfig.InstanceType: got "ml.g5.48xlarge", want an instance type team vision has a quota for (ml.p5.48xlarge, ml.p4d.24xlarge)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, mustParse(t, quotaPlatform), fake, fastPolicy)
			_, ferr := invoke(t, invocation("", "req-1"), h, []byte(tt.request))
			if ferr == nil || ferr.Type != "ValidationError" {
				t.Fatalf("got %+v, want a ValidationError", ferr)
			}
			if !strings.Contains(ferr.Message, tt.want) {
				t.Errorf("message lacks %q:\n%s", tt.want, ferr.Message)
			}
			if n := len(fake.Calls("")); n != 0 {
				t.Errorf("%d Batch calls for a refused request, want 0", n)
			}
		})
	}
}

func TestFairShareFallbackUsesPoolHeadroom(t *testing.T) {
	p := mustParse(t, `
pools: [{instanceType: ml.p5.48xlarge, instances: 4}, {instanceType: ml.p4d.24xlarge, instances: 8}]
scheduling: {mode: fairshare}
teams: [{name: vision, weight: 1}]
submission: {instanceTypes: [ml.p5.48xlarge, ml.p4d.24xlarge]}
`)
	fake := newFake(t)
	defer fake.Close()
	// p5: 4-3 = 1 free < 2: p4d (8 free).
	fake.SetUsed(map[string]float64{"ml.p5.48xlarge": 3})
	h := newHandler(t, p, fake, fastPolicy)
	resp, ferr := invoke(t, invocation("", "req-1"), h, []byte(visionJob))
	if ferr != nil {
		t.Fatal(ferr.Message)
	}
	if diff := cmp.Diff("ml.p4d.24xlarge", resp.InstanceType); diff != "" {
		t.Errorf("instance type (-want +got):\n%s", diff)
	}
}

func TestHeadroomWithUnlimitedBorrowingIsCappedByThePool(t *testing.T) {
	p := mustParse(t, strings.Replace(quotaPlatform, "borrowLimitPercent: 50", "borrowLimitPercent: -1", 1))
	team, _ := p.Team("vision")
	u := &batchrules.Usage{PerShare: true, ByType: map[string]float64{"ml.p5.48xlarge": 30},
		ByShare: map[string]map[string]float64{"vision": {"ml.p5.48xlarge": 20}, "nlp": {"ml.p5.48xlarge": 10}}}
	// Unlimited: the ceiling is 8 + the pool's 40. max(min(48-20, 40-30), min(8-20, …)) = 10.
	if got := p.Headroom(team, "ml.p5.48xlarge", u); got != 10 {
		t.Errorf("headroom %v, want 10", got)
	}
}
