package platform

import (
	"slices"
	"sort"

	"github.com/trainq/trainq/batchrules"
)

// Access is who may act for which (class, team) on the submission
// function: the platform file's submission.submitters and
// submission.operators, plus the grants a deployment adds (the constructs'
// GrantSubmit and GrantOperate, which the function reads from its
// environment). A role is matched by account and name (batchrules.RoleKey):
// the assumed-role session ARN a caller presents carries no path.
type Access struct {
	grants map[batchrules.RoleKey]*Grant
}

// Grant is what one role may do.
type Grant struct {
	// Role is the role's ARN as granted (first grant's spelling).
	Role string
	// Operator acts for every class and team.
	Operator bool
	pairs    map[[2]string]bool
}

// May reports whether g may act for class and team.
func (g *Grant) May(class, team string) bool {
	return g != nil && (g.Operator || g.pairs[[2]string{class, team}])
}

// Teams lists the teams g may act for in some class (every team of p for
// an operator), sorted.
func (g *Grant) Teams(p *Platform) []string {
	if g == nil {
		return nil
	}
	if g.Operator {
		return p.TeamNames()
	}
	var out []string
	for k := range g.pairs {
		if !slices.Contains(out, k[1]) {
			out = append(out, k[1])
		}
	}
	sort.Strings(out)
	return out
}

// Pairs lists g's (class, team) pairs as "class/team", sorted; nil for an
// operator.
func (g *Grant) Pairs() []string {
	if g == nil || g.Operator {
		return nil
	}
	out := make([]string, 0, len(g.pairs))
	for k := range g.pairs {
		out = append(out, k[0]+"/"+k[1])
	}
	sort.Strings(out)
	return out
}

// NewAccess is the access table of p's submission section plus extra
// submitters and operators (role ARNs). Entries that are not role ARNs are
// skipped: validation reports them for the platform file, and the function
// refuses extra ones when it loads them.
func (p *Platform) NewAccess(extra []Submitter, extraOperators []string) Access {
	a := Access{grants: map[batchrules.RoleKey]*Grant{}}
	get := func(arn string) *Grant {
		k, ok := batchrules.RoleKeyOf(arn)
		if !ok {
			return nil
		}
		g := a.grants[k]
		if g == nil {
			g = &Grant{Role: arn, pairs: map[[2]string]bool{}}
			a.grants[k] = g
		}
		return g
	}
	ops := append([]string(nil), extraOperators...)
	for _, op := range p.Submission.Operators {
		ops = append(ops, op.RoleARN)
	}
	for _, arn := range ops {
		if g := get(arn); g != nil {
			g.Operator = true
		}
	}
	for _, s := range append(append([]Submitter(nil), p.Submission.Submitters...), extra...) {
		g := get(s.RoleARN)
		if g == nil {
			continue
		}
		for _, c := range s.Classes {
			for _, t := range s.Teams {
				g.pairs[[2]string{c, t}] = true
			}
		}
	}
	return a
}

// Of is the grant of the role key k; nil when k is granted nothing.
func (a Access) Of(k batchrules.RoleKey) *Grant { return a.grants[k] }

// Len is the number of roles granted something.
func (a Access) Len() int { return len(a.grants) }
