package platform

import "github.com/trainq/trainq/batchrules"

// The platform's teams as AWS Batch's quota shares, the input of
// batchrules' quota rules (what fits, headroom), so that the submission
// function and the simulator read a team's quota the same way.

// QuotaShare is the team as a quota share (AWS::Batch::QuotaShare): named
// after the team, its capacity per instance type (the first entry of a type
// counts, as in CapacityOf), its sharing strategy in Batch's spelling and
// its borrow limit (batchrules.UnlimitedBorrow when none is set).
func (t Team) QuotaShare() batchrules.Share {
	c := make(map[string]int, len(t.Capacity))
	for _, pool := range t.Capacity {
		if _, seen := c[pool.InstanceType]; !seen {
			c[pool.InstanceType] = pool.Instances
		}
	}
	return batchrules.Share{
		Name:               t.Name,
		Capacity:           c,
		Strategy:           batchrules.Strategy(t.Sharing.BatchStrategy()),
		BorrowLimitPercent: t.BorrowLimit(),
	}
}

// QuotaShares are the platform's teams as quota shares, in declaration
// order (the index of a team is the index of its share).
func (p *Platform) QuotaShares() []batchrules.Share {
	out := make([]batchrules.Share, len(p.Teams))
	for i, t := range p.Teams {
		out[i] = t.QuotaShare()
	}
	return out
}
