package platform

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The log and trust fences are IAM patterns "AWSBatch" + prefix + "*": a
// team's jobs must match its own pattern and no other team's, whatever
// the names (search vs search-ranking, case, underscores, length).
func TestTrainingJobPrefixesNeverStartOneAnother(t *testing.T) {
	p := &Platform{Name: "trainq"}
	teams := []string{"search", "search-ranking", "search-research", "s", "S", "search_ranking", "Search-Ranking",
		"a", "ab", "abc", "abcd", "vision", "vision2", strings.Repeat("x", 128), "x_y", "42", "sea", "seax"}
	for i := 0; i < 200; i++ {
		teams = append(teams, fmt.Sprintf("team-%d", i))
	}
	shape := regexp.MustCompile(`^[a-z0-9]{7}-$`)
	for _, a := range teams {
		pa := p.TrainingJobPrefix(a)
		if !shape.MatchString(pa) || len(pa) != TrainingJobPrefixLength {
			t.Errorf("team %q: prefix %q, want 7 lowercase letters or digits and '-'", a, pa)
		}
		for _, b := range teams {
			if a == b {
				continue
			}
			if pb := p.TrainingJobPrefix(b); strings.HasPrefix(pb, pa) {
				t.Errorf("team %q's prefix %q starts team %q's %q", a, pa, b, pb)
			}
		}
	}
	if p.TrainingJobPrefix("search") == (&Platform{Name: "trainq-dev"}).TrainingJobPrefix("search") {
		t.Errorf("two platforms give team search one prefix")
	}
}

func TestValidateRefusesTeamsWithOneTrainingJobPrefix(t *testing.T) {
	p := &Platform{Name: "trainq"}
	// Find two team names of one code by brute force (a code has 32^4
	// hashes per three-letter hint).
	seen := map[string]string{}
	var a, b string
	for i := 0; a == ""; i++ {
		name := fmt.Sprintf("abc%d", i)
		pre := p.TrainingJobPrefix(name)
		if other, ok := seen[pre]; ok {
			a, b = other, name
		}
		seen[pre] = name
	}
	p.Teams = []Team{{Name: a}, {Name: b}}
	var ps Problems
	p.validateTrainingJobPrefixes(&ps)
	if len(ps) != 1 || ps[0].Field != "teams[1].name" || !strings.Contains(ps[0].Allowed, a) {
		t.Fatalf("teams %s and %s (prefix %s): problems %+v, want one naming teams[1].name and team %s", a, b, p.TrainingJobPrefix(a), ps, a)
	}
}
