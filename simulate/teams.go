package simulate

import (
	"fmt"
	"strings"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/trace"
)

// sameTeamKey is a team name with '-' read as '_'. A quota share may be
// named search-ranking, but a fair-share identifier allows no '-'
// (batchrules.ValidShareIdentifier), so the fair-share variant of a platform
// names that team search_ranking: the two names are one team when a trace is
// replayed against both.
func sameTeamKey(name string) string { return strings.ReplaceAll(name, "-", "_") }

// teamMatch gives each trace row the platform team its jobs belong to: the
// team of the same name, or else the one team whose name is the same once
// '-' and '_' are read alike. Each platform team stands for one spelling of
// the trace's, so that a run never merges two of the trace's teams and each
// team's jobs are the trace's jobs of that team.
type teamMatch struct {
	names  []string
	byName map[string]int
	byKey  map[string][]int
	// spelling is, per platform team, the trace's name for it (empty until
	// a row of the team is read), and line the row that first used it.
	spelling []string
	line     []int
}

func newTeamMatch(p *platform.Platform) teamMatch {
	m := teamMatch{names: p.TeamNames(), byName: map[string]int{}, byKey: map[string][]int{}}
	for i, n := range m.names {
		m.byName[n] = i
		k := sameTeamKey(n)
		m.byKey[k] = append(m.byKey[k], i)
	}
	m.spelling = make([]string, len(m.names))
	m.line = make([]int, len(m.names))
	return m
}

// resolve returns the platform team of tj's team.
func (m *teamMatch) resolve(tj trace.Job) (int, error) {
	where := func(allowed string) error {
		return &trace.LineError{Line: tj.Line, Column: trace.ColTeam, Value: tj.Team, Allowed: allowed}
	}
	i, ok := m.byName[tj.Team]
	if !ok {
		switch alike := m.byKey[sameTeamKey(tj.Team)]; len(alike) {
		case 0:
			return 0, where("a team of the platform (" + strings.Join(m.names, ", ") + ")")
		case 1:
			i = alike[0]
		default:
			return 0, where(fmt.Sprintf("one team of the platform, but %q and %q are both that name once '-' and '_' are read alike: spell it as the platform does",
				m.names[alike[0]], m.names[alike[1]]))
		}
	}
	switch m.spelling[i] {
	case tj.Team:
	case "":
		m.spelling[i], m.line[i] = tj.Team, tj.Line
	default:
		return 0, where(fmt.Sprintf("%s as line %d spells it: both name the platform's team %s once '-' and '_' are read alike, and a run keeps the trace's teams apart (give the platform a team for each, or spell them alike)",
			trace.Shorten(m.spelling[i]), m.line[i], m.names[i]))
	}
	return i, nil
}

// traceName is the trace's name for platform team i when it differs from
// the platform's, else "".
func (m *teamMatch) traceName(i int) string {
	if m.spelling[i] == m.names[i] {
		return ""
	}
	return m.spelling[i]
}

// recordName is the team a job record of platform team i names: the
// trace's spelling, as the record's other fields are the trace's.
func (m *teamMatch) recordName(i int) string {
	if m.spelling[i] == "" {
		return m.names[i]
	}
	return m.spelling[i]
}
