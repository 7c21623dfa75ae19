package platform

import (
	"strings"
	"testing"
)

// TestResourceNamesArePrefixedAndDistinct: every resource name starts with
// the platform name and no two resources share a name.
func TestResourceNamesArePrefixedAndDistinct(t *testing.T) {
	p := Default()
	names := map[string]string{}
	for what, n := range map[string]string{
		"queue": p.JobQueueName(), "service environment": p.ServiceEnvironmentName(),
		"submit function": p.SubmitFunctionName(), "observer function": p.ObserverFunctionName(),
		"poller function": p.PollerFunctionName(),
	} {
		if !strings.HasPrefix(n, p.Name+"-") {
			t.Errorf("%s name %q does not start with the platform name %q", what, n, p.Name)
		}
		if other, dup := names[n]; dup {
			t.Errorf("%s and %s are both named %q", what, other, n)
		}
		names[n] = what
	}
}

func TestSubmitAliasNames(t *testing.T) {
	if got := SubmitAliasName("research", "search-ranking"); got != "research-search-ranking" {
		t.Errorf("got %q, want research-search-ranking", got)
	}
	long1, long2 := strings.Repeat("a", 128), strings.Repeat("a", 127)+"b"
	n1, n2 := SubmitAliasName("research", long1), SubmitAliasName("research", long2)
	if len(n1) != MaxAliasNameLength || len(n2) != MaxAliasNameLength || n1 == n2 {
		t.Errorf("long names %q (%d) and %q (%d): want %d characters each, different", n1, len(n1), n2, len(n2), MaxAliasNameLength)
	}
	p := Default()
	for _, a := range p.SubmitAliases() {
		if got, ok := p.SubmitAliasOf(a.Name); !ok || got != a {
			t.Errorf("SubmitAliasOf(%q) = %+v, %v; want %+v", a.Name, got, ok, a)
		}
	}
	if _, ok := p.SubmitAliasOf("research"); ok {
		t.Error("a bare class is an alias")
	}
}
