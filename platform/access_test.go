package platform

import (
	"testing"

	"github.com/trainq/trainq/batchrules"
)

func TestAccessMatchesASessionToItsRoleWhateverThePath(t *testing.T) {
	p := Default()
	p.Submission.Submitters = []Submitter{{RoleARN: "arn:aws:iam::123456789012:role/ci/ranking", Classes: []string{"research"}, Teams: []string{"search-ranking"}}}
	p.Submission.Operators = []Operator{{RoleARN: "arn:aws:iam::123456789012:role/oncall"}}
	a := p.NewAccess([]Submitter{{RoleARN: "arn:aws:iam::123456789012:role/ranking", Classes: []string{"sweep"}, Teams: []string{"search-ranking"}}}, nil)
	tests := []struct {
		caller       string
		class, team  string
		want, isRole bool
	}{
		// STS names a session without the role's path (ci/): the grant of
		// role/ci/ranking and the recorded one of role/ranking are one role's.
		{"arn:aws:sts::123456789012:assumed-role/ranking/build-17", "research", "search-ranking", true, true},
		{"arn:aws:sts::123456789012:assumed-role/ranking/build-17", "sweep", "search-ranking", true, true},
		{"arn:aws:sts::123456789012:assumed-role/ranking/build-17", "research", "search-research", false, true},
		{"arn:aws:sts::123456789012:assumed-role/ranking/build-17", "production", "search-ranking", false, true},
		// The same name in another account is another role.
		{"arn:aws:sts::210987654321:assumed-role/ranking/xy", "research", "search-ranking", false, true},
		{"arn:aws:sts::123456789012:assumed-role/oncall/alice", "production", "search-research", true, true},
		// A name that merely starts like a granted one.
		{"arn:aws:sts::123456789012:assumed-role/ranking-admin/xy", "research", "search-ranking", false, true},
		// Not roles: never granted.
		{"arn:aws:iam::123456789012:user/ranking", "research", "search-ranking", false, false},
		{"arn:aws:iam::123456789012:root", "research", "search-ranking", false, false},
		{"arn:aws:sts::123456789012:federated-user/ranking", "research", "search-ranking", false, false},
	}
	for _, tt := range tests {
		k, ok := batchrules.CallerRoleKey(tt.caller)
		if ok != tt.isRole {
			t.Errorf("CallerRoleKey(%s) = %v, want %v", tt.caller, ok, tt.isRole)
			continue
		}
		if got := a.Of(k).May(tt.class, tt.team); got != tt.want {
			t.Errorf("%s may act for (%s, %s): %v, want %v", tt.caller, tt.class, tt.team, got, tt.want)
		}
	}
}
