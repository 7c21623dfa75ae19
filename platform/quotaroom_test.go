package platform

import (
	"testing"

	"github.com/trainq/trainq/batchrules"
)

func TestRoomInQuotaIsTheTeamsOwnQuotaOfTheType(t *testing.T) {
	p := Default() // search-ranking: 24 × p5, 30 × p4d
	usage := &batchrules.Usage{ByShare: map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 20}}}
	cases := []struct {
		name      string
		team, typ string
		n         int
		want      bool
	}{
		{"20 in use + 4 = 24 fits the quota of 24", "search-ranking", "ml.p5.48xlarge", 4, true},
		{"20 in use + 5 = 25 is over it", "search-ranking", "ml.p5.48xlarge", 5, false},
		{"the other type's quota is the team's whole 30", "search-ranking", "ml.p4d.24xlarge", 30, true},
		{"a type the team has no quota of never fits", "search-ranking", "ml.g5.48xlarge", 1, false},
		{"an unknown team is the platform's to explain", "vision", "ml.p5.48xlarge", 100, true},
		{"an unknown type is too", "search-ranking", "", 1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.RoomInQuota(usage, tc.team, tc.typ, tc.n); got != tc.want {
				t.Errorf("RoomInQuota = %v, want %v", got, tc.want)
			}
		})
	}
	if !p.RoomInQuota(nil, "search-ranking", "ml.p5.48xlarge", 100) {
		t.Error("without usage every job has room")
	}
	fs := Default()
	fs.Scheduling.Mode = ModeFairShare
	if !fs.RoomInQuota(usage, "search-ranking", "ml.p5.48xlarge", 100) {
		t.Error("in fair-share mode every job has room")
	}
}
