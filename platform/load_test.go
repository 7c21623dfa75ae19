package platform

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmbeddedDefaultIsTheReferenceSetup checks the promises of DESIGN.md:
// quota mode, one GPU pool (40 × ml.p5.48xlarge, 60 × ml.p4d.24xlarge), two
// teams that lend and borrow, in-share preemption on, three classes with
// non-overlapping bands and production highest.
func TestEmbeddedDefaultIsTheReferenceSetup(t *testing.T) {
	p := Default()
	if p.Scheduling.Mode != ModeQuota {
		t.Errorf("mode = %q, want quota", p.Scheduling.Mode)
	}
	if got, want := p.Pools, []Pool{{"ml.p5.48xlarge", 40}, {"ml.p4d.24xlarge", 60}}; !cmp.Equal(want, got) {
		t.Errorf("pools = %v, want %v", got, want)
	}
	if len(p.Teams) != 2 {
		t.Fatalf("%d teams, want 2", len(p.Teams))
	}
	for _, team := range p.Teams {
		if team.Sharing != StrategyLendAndBorrow || team.Sharing.BatchStrategy() != "LEND_AND_BORROW" {
			t.Errorf("team %s shares %q, want lend-and-borrow", team.Name, team.Sharing)
		}
		if team.BorrowLimit() == 0 {
			t.Errorf("team %s may borrow nothing (borrow limit 0)", team.Name)
		}
		if !team.PreemptsInShare() {
			t.Errorf("team %s: in-share preemption off, want on", team.Name)
		}
	}
	// The teams' guarantees fit the pool: each type's sum is at most the pool.
	for _, pool := range p.Pools {
		sum := 0
		for _, team := range p.Teams {
			sum += team.CapacityOf(pool.InstanceType)
		}
		if sum == 0 || sum > pool.Instances {
			t.Errorf("teams guarantee %d × %s, want 1 to %d", sum, pool.InstanceType, pool.Instances)
		}
	}
	if diff := cmp.Diff([]string{"production", "research", "sweep"}, p.ClassNames()); diff != "" {
		t.Errorf("class names (-want +got):\n%s", diff)
	}
	for i, c := range p.Classes {
		for j, o := range p.Classes {
			if i != j && c.Priority.Min <= o.Priority.Max && o.Priority.Min <= c.Priority.Max {
				t.Errorf("bands of %s %v and %s %v overlap", c.Name, c.Priority, o.Name, o.Priority)
			}
		}
	}
	prod, _ := p.Class("production")
	for _, c := range p.Classes {
		if c.Name != "production" && c.Priority.Max >= prod.Priority.Min {
			t.Errorf("class %s reaches %d, not below production's lowest %d", c.Name, c.Priority.Max, prod.Priority.Min)
		}
	}
	sweep, _ := p.Class("sweep")
	research, _ := p.Class("research")
	if !(sweep.Priority.Max < research.Priority.Min) {
		t.Errorf("sweep %v is not below research %v", sweep.Priority, research.Priority)
	}
	if p.Monitoring.MaxWaitSeconds["production"] >= p.Monitoring.MaxWaitSeconds["sweep"] {
		t.Errorf("production may wait %d s and sweep %d s, want production alarmed first",
			p.Monitoring.MaxWaitSeconds["production"], p.Monitoring.MaxWaitSeconds["sweep"])
	}
}

// TestOneMistakeIsNotReportedAsMany: a single mistake must not cascade into
// messages about fields the user wrote correctly.
func TestOneMistakeIsNotReportedAsMany(t *testing.T) {
	cases := []struct {
		name   string
		base   func() doc
		change func(testing.TB, doc)
		field  string
	}{
		{
			// With a misspelt mode, the quota teams are judged as fair-share
			// teams: their names, weights, capacity and sharing are all
			// reported, and the user is told to remove their capacity.
			name: "a misspelt mode is reported once, not as one problem per team field",
			base: quotaDoc, change: to("scheduling.mode", "quotas"),
			field: "scheduling.mode",
		},
		{
			// A pool of 0 instances is then treated as absent: each team
			// capacity and submission type of that instance type is told to
			// use "an instance type of the pools (ml.p5.48xlarge, …)", which
			// lists the very type it uses.
			name: "a pool of 0 instances is reported once, not as missing from the pools",
			base: quotaDoc, change: to("pools.0.instances", 0),
			field: "pools[0].instances",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.base()
			tc.change(t, d)
			_, err := Parse(render(t, d))
			if diff := cmp.Diff([]string{tc.field}, fields(problemsOf(t, err))); diff != "" {
				t.Errorf("problem fields (-want +got):\n%s\nerror:\n%v", diff, err)
			}
		})
	}
}

// TestFairshareFixture pins testdata/fairshare.yaml, which other packages'
// tests use.
func TestFairshareFixture(t *testing.T) {
	p := mustParse(t, readTestdata(t, "fairshare.yaml"))
	if p.Scheduling.Mode != ModeFairShare || *p.Scheduling.ShareDecaySeconds != 7200 || *p.Scheduling.ComputeReservation != 10 {
		t.Errorf("scheduling = %+v, want fairshare, decay 7200 s, reservation 10", p.Scheduling)
	}
	if diff := cmp.Diff([]Pool{{"ml.p5.48xlarge", 16}, {"ml.p4d.24xlarge", 32}}, p.Pools); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
	var weights []float64
	shareID := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	for _, team := range p.Teams {
		weights = append(weights, team.Weight)
		if !shareID.MatchString(team.Name) {
			t.Errorf("team %q: want letters, digits and '_' only", team.Name)
		}
	}
	if diff := cmp.Diff([]float64{0.5, 1, 2}, weights); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(defaultClassesWant(), p.Classes); diff != "" {
		t.Errorf("classes are not the defaults (-want +got):\n%s", diff)
	}
	if len(p.Monitoring.AlarmEmails) == 0 {
		t.Error("no monitoring.alarmEmails entry")
	}
	if len(p.Submission.Submitters) != 1 ||
		!strings.HasPrefix(p.Submission.Submitters[0].RoleARN, "arn:aws:iam::123456789012:role/") ||
		!cmp.Equal([]string{"research", "sweep"}, p.Submission.Submitters[0].Classes) {
		t.Errorf("submitters = %+v, want one role of account 123456789012 for [research sweep]", p.Submission.Submitters)
	}
}
