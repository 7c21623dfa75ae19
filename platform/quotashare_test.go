package platform

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
)

// TestTeamQuotaShare: a team is the quota share AWS Batch is given
// (AWS::Batch::QuotaShare: capacityLimits and resourceSharingConfiguration,
// https://docs.aws.amazon.com/batch/latest/APIReference/API_QuotaShareResourceSharingConfiguration.html).
func TestTeamQuotaShare(t *testing.T) {
	tests := []struct {
		name string
		team Team
		want batchrules.Share
	}{
		{"a lending and borrowing team without a limit borrows without limit",
			Team{Name: "vision", Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 24}, {InstanceType: "ml.p4d.24xlarge", Instances: 30}}, Sharing: StrategyLendAndBorrow},
			batchrules.Share{Name: "vision", Capacity: map[string]int{"ml.p5.48xlarge": 24, "ml.p4d.24xlarge": 30}, Strategy: batchrules.LendAndBorrow, BorrowLimitPercent: batchrules.UnlimitedBorrow}},
		{"a borrow limit is carried in percent",
			Team{Name: "speech", Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 8}}, Sharing: StrategyLendAndBorrow, BorrowLimitPercent: ptr(200)},
			batchrules.Share{Name: "speech", Capacity: map[string]int{"ml.p5.48xlarge": 8}, Strategy: batchrules.LendAndBorrow, BorrowLimitPercent: 200}},
		{"a reserving team is a RESERVE share",
			Team{Name: "prod", Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 4}}, Sharing: StrategyReserve},
			batchrules.Share{Name: "prod", Capacity: map[string]int{"ml.p5.48xlarge": 4}, Strategy: batchrules.Reserve, BorrowLimitPercent: batchrules.UnlimitedBorrow}},
		{"a lending team is a LEND share",
			Team{Name: "research", Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 4}}, Sharing: StrategyLend},
			batchrules.Share{Name: "research", Capacity: map[string]int{"ml.p5.48xlarge": 4}, Strategy: batchrules.Lend, BorrowLimitPercent: batchrules.UnlimitedBorrow}},
		{"a type listed twice counts once, as CapacityOf reads it",
			Team{Name: "twice", Capacity: []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 4}, {InstanceType: "ml.p5.48xlarge", Instances: 9}}, Sharing: StrategyLend},
			batchrules.Share{Name: "twice", Capacity: map[string]int{"ml.p5.48xlarge": 4}, Strategy: batchrules.Lend, BorrowLimitPercent: batchrules.UnlimitedBorrow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.team.QuotaShare()); diff != "" {
				t.Errorf("QuotaShare (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQuotaSharesFollowTheTeams(t *testing.T) {
	p := Default()
	shares := p.QuotaShares()
	if len(shares) != len(p.Teams) {
		t.Fatalf("%d shares for %d teams", len(shares), len(p.Teams))
	}
	for i, team := range p.Teams {
		if diff := cmp.Diff(team.QuotaShare(), shares[i]); diff != "" {
			t.Errorf("share %d is not team %s's (-want +got):\n%s", i, team.Name, diff)
		}
	}
}
