// Package quotashare converts a platform's teams to package batchrules'
// quota shares, once for the submitter and the simulator (until package
// platform offers the conversion itself).
//
// It is run-time code: it must never import the AWS CDK, jsii or
// constructs, nor the AWS SDK (the CLI links it through the simulator).
package quotashare

import (
	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// Of returns the quota share of each of p's teams, in p's order. A team's
// share is named after the team; its sharing strategy is the team's in
// Batch's spelling.
func Of(p *platform.Platform) []batchrules.Share {
	out := make([]batchrules.Share, len(p.Teams))
	for i, t := range p.Teams {
		c := make(map[string]int, len(t.Capacity))
		for _, pool := range t.Capacity {
			if _, dup := c[pool.InstanceType]; !dup {
				c[pool.InstanceType] = pool.Instances
			}
		}
		out[i] = batchrules.Share{Name: t.Name, Capacity: c, Strategy: batchrules.Strategy(t.Sharing.BatchStrategy()), BorrowLimitPercent: t.BorrowLimit()}
	}
	return out
}
