package platform

import (
	"crypto/sha256"
	"encoding/hex"
)

// Names of the resources trainq creates for a platform. Constructs, functions
// and the CLI derive them here so that they always agree.

// SubmitFunctionName is the name of the submission Lambda function.
func (p *Platform) SubmitFunctionName() string { return p.Name + "-submit" }

// ObserverFunctionName is the name of the event-to-metrics Lambda function.
func (p *Platform) ObserverFunctionName() string { return p.Name + "-observer" }

// PollerFunctionName is the name of the queue-snapshot Lambda function.
func (p *Platform) PollerFunctionName() string { return p.Name + "-poller" }

// RerouterFunctionName is the name of the re-routing Lambda function.
func (p *Platform) RerouterFunctionName() string { return p.Name + "-rerouter" }

// Reroutes reports whether any class sets reroute, i.e. whether the
// platform runs a re-router.
func (p *Platform) Reroutes() bool {
	for _, c := range p.Classes {
		if c.Reroute != nil {
			return true
		}
	}
	return false
}

// JobQueueName is the name of the platform's job queue.
func (p *Platform) JobQueueName() string { return p.Name + "-training" }

// ServiceEnvironmentName is the name of the platform's service environment.
func (p *Platform) ServiceEnvironmentName() string { return p.Name + "-gpu-pool" }

// MaxAliasNameLength is Lambda's limit on an alias name.
const MaxAliasNameLength = 128

// SubmitAlias is the submission function's alias of one class and one team:
// invoke permission on it grants submitting that class for that team, and
// the function reads both from the alias it was invoked through.
type SubmitAlias struct {
	Name, Class, Team string
}

// SubmitAliasName names the alias of class and team: "<class>-<team>", e.g.
// research-search-ranking. A name longer than Lambda's 128 characters keeps
// its first 119 and ends in '-' and 8 hex digits of the pair's SHA-256.
// Names may contain '-', so two pairs can meet ("a-b"+"c", "a"+"b-c");
// validation refuses such platforms.
func SubmitAliasName(class, team string) string {
	name := class + "-" + team
	if len(name) <= MaxAliasNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(class + "\x00" + team))
	return name[:MaxAliasNameLength-9] + "-" + hex.EncodeToString(sum[:4])
}

// SubmitAliases lists the aliases of every (class, team) pair, class by
// class in declaration order, then team by team.
func (p *Platform) SubmitAliases() []SubmitAlias {
	out := make([]SubmitAlias, 0, len(p.Classes)*len(p.Teams))
	for _, c := range p.Classes {
		for _, t := range p.Teams {
			out = append(out, SubmitAlias{Name: SubmitAliasName(c.Name, t.Name), Class: c.Name, Team: t.Name})
		}
	}
	return out
}

// SubmitAliasOf returns the (class, team) of alias name.
func (p *Platform) SubmitAliasOf(name string) (SubmitAlias, bool) {
	for _, a := range p.SubmitAliases() {
		if a.Name == name {
			return a, true
		}
	}
	return SubmitAlias{}, false
}

func (p *Platform) validateSubmitAliases(ps *Problems) {
	seen := map[string]SubmitAlias{}
	for _, a := range p.SubmitAliases() {
		o, dup := seen[a.Name]
		if dup && (o.Class != a.Class || o.Team != a.Team) {
			// A class or team given twice is its own problem.
			ps.Addf("teams", a.Team, "class and team names whose submission aliases differ (%s and %s both give %q: rename a class or a team)", o.Class+" + "+o.Team, a.Class+" + "+a.Team, a.Name)
		}
		seen[a.Name] = a
	}
}

// ArtifactsPrefix is team's key prefix in the platform's artifacts bucket,
// "<team>/": only the team's execution role may read and write it.
func ArtifactsPrefix(team string) string { return team + "/" }
