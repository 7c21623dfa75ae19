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
