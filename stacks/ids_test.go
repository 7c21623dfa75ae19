package stacks

// Pure tests: no jsii call.

import "testing"

func TestLegacyLogicalIDIsCDKs(t *testing.T) {
	// Each want is a logical id CDK allocated in a released template
	// (test/testdata/logical-ids).
	cases := []struct {
		path []string
		want string
	}{
		{[]string{"Queue", "SchedulingPolicy"}, "QueueSchedulingPolicyA2C15D45"},
		{[]string{"Pool", "Resource"}, "PoolD3F588B8"},
		{[]string{"Monitor", "AlarmTopic", "Resource"}, "MonitorAlarmTopic5F908138"},
		// "Default" is left out of both the name and the hash.
		{[]string{"Monitor", "Default", "Observer", "Function", "Resource"}, "MonitorObserverFunctionEEA9590B"},
		{[]string{"Queue", "Share-search-ranking", "Resource"}, "QueueSharesearchranking98908B3A"},
	}
	for _, c := range cases {
		if got := legacyLogicalID(c.path...); got != c.want {
			t.Errorf("legacyLogicalID(%q) = %s, want %s", c.path, got, c.want)
		}
	}
}
