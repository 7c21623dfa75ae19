package test

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roleLabels are docs/security.md's names of the stack's roles, by the
// prefix of their logical ids.
var roleLabels = map[string]string{
	"ExecutionRole":              "execution role",
	"SubmitterServiceRole":       "submitter function",
	"MonitorObserverServiceRole": "observer function",
	"MonitorPollerServiceRole":   "poller function",
	"RerouterServiceRole":        "rerouter function",
	"TrainingLogRetentionRole":   "training log retention function",
}

// grantsByPrincipal are the actions every principal is allowed (or, for
// "everyone (deny)", denied) in a deployed template, by docs/security.md's
// label.
func grantsByPrincipal(t *testing.T, d *deployed) map[string][]string {
	t.Helper()
	sets := map[string]map[string]bool{}
	add := func(label string, actions any) {
		if sets[label] == nil {
			sets[label] = map[string]bool{}
		}
		for _, a := range strs(actions) {
			sets[label][a] = true
		}
	}
	for id, r := range d.res {
		if r["Type"] != "AWS::IAM::Role" {
			continue
		}
		label := ""
		for prefix, l := range roleLabels {
			if strings.HasPrefix(id, prefix) {
				label = l
			}
		}
		if label == "" {
			t.Errorf("role %s is not in docs/security.md's table", id)
			continue
		}
		for _, p := range d.identity[d.getAtt(id, "Arn").(string)] {
			for _, st := range asList(get(p.Policy, "Statement")) {
				add(label, get(st, "Action"))
			}
		}
	}
	for _, docs := range d.resource {
		for _, doc := range docs {
			for _, st := range asList(get(doc, "Statement")) {
				label := principalLabel(get(st, "Principal"))
				if get(st, "Effect") == "Deny" {
					label = "everyone (deny)"
				}
				add(label, get(st, "Action"))
			}
		}
	}
	out := map[string][]string{}
	for label, set := range sets {
		for a := range set {
			out[label] = append(out[label], a)
		}
		sort.Strings(out[label])
	}
	return out
}

func principalLabel(p any) string {
	if s, ok := get(p, "Service").(string); ok {
		return s
	}
	if a, ok := get(p, "AWS").(string); ok {
		switch {
		case a == "*":
			return "everyone"
		case strings.HasSuffix(a, ":root"):
			return "the account"
		case strings.Contains(a, ":role/"):
			return "platform submitters"
		}
	}
	return mustJSON(p)
}

// docGrants reads docs/security.md's table: label -> actions.
func docGrants(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	action := regexp.MustCompile("`([a-z0-9-]+:[A-Za-z0-9*]+)`")
	sets := map[string]map[string]bool{}
	inTable := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| principal | actions |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			t.Fatalf("docs/security.md: malformed row %q", line)
		}
		label := strings.TrimSpace(cells[1])
		if sets[label] == nil {
			sets[label] = map[string]bool{}
		}
		for _, m := range action.FindAllStringSubmatch(cells[2], -1) {
			sets[label][m[1]] = true
		}
	}
	out := map[string][]string{}
	for label, set := range sets {
		for a := range set {
			out[label] = append(out[label], a)
		}
		sort.Strings(out[label])
	}
	return out
}

func TestSecurityDocMatchesTheTemplates(t *testing.T) {
	doc := docGrants(t)
	if len(doc) == 0 {
		t.Fatal("docs/security.md has no permissions table")
	}
	// The example platform uses every optional part (VPC, keys,
	// repositories, submitters): its template holds exactly the table.
	t.Run("the example platform holds exactly the documented permissions", func(t *testing.T) {
		s := synth(t, examplePlatform)
		if diff := cmp.Diff(doc, grantsByPrincipal(t, deploy(t, s.path))); diff != "" {
			t.Errorf("docs/security.md (-) and the template (+) differ:\n%s", diff)
		}
	})
	for _, file := range []string{"", fairSharePlatform} {
		t.Run(describe(file)+" holds only documented permissions", func(t *testing.T) {
			s := synth(t, file)
			for label, actions := range grantsByPrincipal(t, deploy(t, s.path)) {
				documented := map[string]bool{}
				for _, a := range doc[label] {
					documented[a] = true
				}
				for _, a := range actions {
					if !documented[a] {
						t.Errorf("%s may %s, which docs/security.md does not say", label, a)
					}
				}
			}
		})
	}
}
