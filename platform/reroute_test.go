package platform

import (
	"testing"

	"github.com/trainq/trainq/batchrules"
)

// TestRerouteTarget: where a waiting job would move, on the embedded
// default platform (pools 40 ml.p5.48xlarge and 60 ml.p4d.24xlarge;
// search-ranking's quota 24 p5 and 30 p4d, search-research's 16 and 30,
// both lend and borrow up to 100%).
func TestRerouteTarget(t *testing.T) {
	p := Default()
	research, _ := p.Class("research")
	research.Reroute = &Reroute{AfterSeconds: 1800, InstanceTypes: []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}, MaxMoves: 3}
	production, _ := p.Class("production") // no reroute
	ranking, _ := p.Team("search-ranking")
	// All 40 p5 in use (24 by search-ranking, 16 by search-research), no p4d:
	// p5 has no room for anyone; p4d's 60 are idle, and search-ranking may
	// hold up to 30 + 30 borrowed of them.
	p5full := &batchrules.Usage{PerShare: true, ByType: map[string]float64{"ml.p5.48xlarge": 40},
		ByShare: map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 24}, "search-research": {"ml.p5.48xlarge": 16}}}
	// And p4d full too: 30 + 30.
	bothFull := &batchrules.Usage{PerShare: true, ByType: map[string]float64{"ml.p5.48xlarge": 40, "ml.p4d.24xlarge": 60},
		ByShare: map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 24, "ml.p4d.24xlarge": 30}, "search-research": {"ml.p5.48xlarge": 16, "ml.p4d.24xlarge": 30}}}
	for _, tc := range []struct {
		name  string
		class Class
		it    string
		n     int
		u     *batchrules.Usage
		want  string
	}{
		{"a research job of 8 on the full p5 moves to the idle p4d", research, "ml.p5.48xlarge", 8, p5full, "ml.p4d.24xlarge"},
		{"60 p4d are idle but search-ranking may hold at most 60 of them: 61 do not fit", research, "ml.p5.48xlarge", 61, p5full, ""},
		{"a production job (its class does not reroute) stays", production, "ml.p5.48xlarge", 8, p5full, ""},
		{"a job on a type its class does not list stays", research, "ml.g5.48xlarge", 8, p5full, ""},
		{"with both types full there is nowhere to go", research, "ml.p5.48xlarge", 1, bothFull, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := p.RerouteTarget(tc.class, ranking, tc.it, tc.n, tc.u)
			if got != tc.want || ok != (tc.want != "") {
				t.Errorf("RerouteTarget = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
