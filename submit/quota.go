package submit

import (
	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// Headroom is platform.Platform.Headroom, the one rule of what a team's
// job could get now, which the instance-type fallback decides by.
func Headroom(p *platform.Platform, team platform.Team, instanceType string, u *batchrules.Usage) int {
	return p.Headroom(team, instanceType, u)
}
