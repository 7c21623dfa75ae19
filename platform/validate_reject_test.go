package platform

import (
	"fmt"
	"strings"
	"testing"
)

// rejectCase is one mistake in an otherwise valid file. The file must be
// rejected with exactly one problem: one mistake, one message.
type rejectCase struct {
	name    string
	base    func() doc
	change  func(t testing.TB, d doc)
	field   string
	value   string   // the Value must contain this (the value the user wrote)
	allowed []string // the Allowed must contain each of these
}

// to returns a change that sets one path.
func to(path string, v any) func(testing.TB, doc) {
	return func(t testing.TB, d doc) { set(t, d, path, v) }
}

// withClasses returns a change that lists the default classes explicitly and
// then applies change.
func withClasses(change func(testing.TB, doc)) func(testing.TB, doc) {
	return func(t testing.TB, d doc) {
		d["classes"] = defaultClassesDoc()
		change(t, d)
	}
}

// teamsOfOne returns n quota teams team00…, each guaranteed one
// ml.p5.48xlarge.
func teamsOfOne(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = doc{"name": fmt.Sprintf("team%02d", i), "capacity": []any{
			doc{"instanceType": "ml.p5.48xlarge", "instances": 1},
		}}
	}
	return out
}

// budgetTeams returns n fair-share teams t00…, each with one budget of 5
// alarms (20, 40, 60, 80 and 100%).
func budgetTeams(n int) []any {
	out := make([]any, n)
	for i := range out {
		var alarms []any
		for _, pct := range []int{20, 40, 60, 80, 100} {
			alarms = append(alarms, doc{"percent": pct})
		}
		out[i] = doc{"name": fmt.Sprintf("t%02d", i), "budgets": []any{doc{"name": "b", "instanceHours": 10, "alarms": alarms}}}
	}
	return out
}

// sixTypes are six SageMaker training instance types.
var sixTypes = []string{"ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.p4de.24xlarge", "ml.p5e.48xlarge", "ml.g5.48xlarge", "ml.trn1.32xlarge"}

// subnets returns n distinct subnet IDs subnet-00000000, subnet-00000001, …
func subnets(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("subnet-%08x", i)
	}
	return out
}

// securityGroups returns n distinct security group IDs sg-00000000, …
func securityGroups(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("sg-%08x", i)
	}
	return out
}

// kmsKeys returns n distinct KMS key ARNs of account 123456789012, whose key
// IDs end in the key's number.
func kmsKeys(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-%012x", i)
	}
	return out
}

// poolsOf returns pools of 40 instances of each type, and capacities of one
// instance of each type.
func poolsOf(types []string) (pools, capacity []any) {
	for _, it := range types {
		pools = append(pools, doc{"instanceType": it, "instances": 40})
		capacity = append(capacity, doc{"instanceType": it, "instances": 1})
	}
	return pools, capacity
}

var rejectCases = []rejectCase{
	// Unknown keys.
	{
		name: "an unknown top-level key is named with the keys that are allowed",
		base: quotaDoc, change: to("gpuPools", []any{}),
		field: "gpuPools", value: "unknown key", allowed: []string{"pools", "teams", "scheduling"},
	},
	{
		name: "a misspelt team key is named with its full path",
		base: quotaDoc, change: to("teams.0.borowLimitPercent", 50),
		field: "teams[0].borowLimitPercent", value: "unknown key", allowed: []string{"borrowLimitPercent"},
	},
	{
		name: "an unknown key inside a capacity entry is named with its full path",
		base: quotaDoc, change: to("teams.1.capacity.0.gpus", 8),
		field: "teams[1].capacity[0].gpus", value: "unknown key", allowed: []string{"instances", "instanceType"},
	},
	{
		name: "an unknown scheduling key is named",
		base: quotaDoc, change: to("scheduling.preemption", true),
		field: "scheduling.preemption", value: "unknown key", allowed: []string{"mode", "queuePriority"},
	},

	// Names Batch would refuse.
	{
		name: "a quota share name with a space is refused",
		base: quotaDoc, change: to("teams.0.name", "search ranking"),
		field: "teams[0].name", value: "search ranking", allowed: []string{"quota share name", "128"},
	},
	{
		name: "a quota share name of 129 characters is refused (Batch allows 128)",
		base: quotaDoc, change: to("teams.0.name", strings.Repeat("a", 129)),
		field: "teams[0].name", value: strings.Repeat("a", 129), allowed: []string{"1-128"},
	},
	{
		name: "a fair-share identifier with a hyphen is refused",
		base: fairshareDoc, change: to("teams.0.name", "search-ranking"),
		field: "teams[0].name", value: "search-ranking", allowed: []string{"fair-share identifier", "'_'"},
	},
	{
		name: "a fair-share identifier of 256 characters is refused (Batch allows 255)",
		base: fairshareDoc, change: to("teams.0.name", strings.Repeat("b", 256)),
		field: "teams[0].name", value: strings.Repeat("b", 256), allowed: []string{"1-255"},
	},
	{
		name: "a fair-share identifier ending in * (a Batch prefix) is refused",
		base: fairshareDoc, change: to("teams.0.name", "ranking*"),
		field: "teams[0].name", value: "ranking*", allowed: []string{"fair-share identifier"},
	},
	{
		name: "two teams with the same name are refused",
		base: quotaDoc, change: to("teams.1.name", "search-ranking"),
		field: "teams[1].name", value: "search-ranking", allowed: []string{"not used by another team"},
	},
	{
		name: "a platform name starting with a digit is refused",
		base: quotaDoc, change: to("name", "9gpu"),
		field: "name", value: "9gpu", allowed: []string{"a letter"},
	},
	{
		name: "a platform name of 33 characters is refused (it prefixes function names)",
		base: quotaDoc, change: to("name", "t"+strings.Repeat("x", 32)),
		field: "name", value: "t" + strings.Repeat("x", 32), allowed: []string{"31"},
	},

	// Quota share limits.
	{
		name: "21 quota shares are refused (Batch allows 20 per queue)",
		base: quotaDoc, change: to("teams", teamsOfOne(21)),
		field: "teams", value: "21", allowed: []string{"20", "quota shares"},
	},
	{
		name: "6 capacity limits in one share are refused (Batch allows 5)",
		base: quotaDoc,
		change: func(t testing.TB, d doc) {
			pools, capacity := poolsOf(sixTypes)
			d["pools"] = pools
			set(t, d, "teams.0.capacity", capacity)
		},
		field: "teams[0].capacity", value: "6", allowed: []string{"5", "capacity limits"},
	},
	{
		name: "a quota team without capacity is refused",
		base: quotaDoc, change: to("teams.0.capacity", []any{}),
		field: "teams[0].capacity", value: "[]", allowed: []string{"1 to 5"},
	},

	// Borrowing.
	{
		name: "a borrow limit on a reserving share is refused",
		base: quotaDoc,
		change: func(t testing.TB, d doc) {
			set(t, d, "teams.0.sharing", "reserve")
			set(t, d, "teams.0.borrowLimitPercent", 50)
		},
		field: "teams[0].borrowLimitPercent", value: "50", allowed: []string{"lend-and-borrow", "reserve"},
	},
	{
		name: "a borrow limit on a lending share is refused",
		base: quotaDoc,
		change: func(t testing.TB, d doc) {
			set(t, d, "teams.1.sharing", "lend")
			set(t, d, "teams.1.borrowLimitPercent", 100)
		},
		field: "teams[1].borrowLimitPercent", value: "100", allowed: []string{"lend-and-borrow", "lend)"},
	},
	{
		name: "a borrow limit below -1 is refused",
		base: quotaDoc, change: to("teams.0.borrowLimitPercent", -2),
		field: "teams[0].borrowLimitPercent", value: "-2", allowed: []string{"-1", "unlimited"},
	},
	{
		name: "an unknown sharing strategy is refused",
		base: quotaDoc, change: to("teams.0.sharing", "borrow"),
		field: "teams[0].sharing", value: "borrow", allowed: []string{"reserve", "lend", "lend-and-borrow"},
	},

	// Weights.
	{
		name: "a weight of 1000 is refused (above 999.9999)",
		base: fairshareDoc, change: to("teams.1.weight", 1000),
		field: "teams[1].weight", value: "1000", allowed: []string{"0.0001", "999.9999"},
	},
	{
		name: "a weight of 999.99995 is refused (above 999.9999)",
		base: fairshareDoc, change: to("teams.1.weight", 999.99995),
		field: "teams[1].weight", value: "999.99995", allowed: []string{"0.0001", "999.9999"},
	},
	{
		name: "a negative weight is refused",
		base: fairshareDoc, change: to("teams.0.weight", -0.5),
		field: "teams[0].weight", value: "-0.5", allowed: []string{"0.0001", "999.9999"},
	},
	{
		name: "a weight of 0 is refused (below 0.0001), not replaced by the default",
		base: fairshareDoc, change: to("teams.0.weight", 0),
		field: "teams[0].weight", value: "0", allowed: []string{"0.0001", "999.9999"},
	},
	{
		name: "a weight in quota mode is refused",
		base: quotaDoc, change: to("teams.0.weight", 2),
		field: "teams[0].weight", value: "2", allowed: []string{"fairshare only"},
	},

	// Fair-share policy.
	{
		name: "a share decay of 604801 s is refused (above 604800, 7 days)",
		base: fairshareDoc, change: to("scheduling.shareDecaySeconds", 604801),
		field: "scheduling.shareDecaySeconds", value: "604801", allowed: []string{"0 to 604800"},
	},
	{
		name: "a negative share decay is refused",
		base: fairshareDoc, change: to("scheduling.shareDecaySeconds", -1),
		field: "scheduling.shareDecaySeconds", value: "-1", allowed: []string{"0 to 604800"},
	},
	{
		name: "a compute reservation of 100 is refused (above 99)",
		base: fairshareDoc, change: to("scheduling.computeReservation", 100),
		field: "scheduling.computeReservation", value: "100", allowed: []string{"0 to 99"},
	},
	{
		name: "a negative compute reservation is refused",
		base: fairshareDoc, change: to("scheduling.computeReservation", -1),
		field: "scheduling.computeReservation", value: "-1", allowed: []string{"0 to 99"},
	},
	{
		name: "a share decay in quota mode is refused",
		base: quotaDoc, change: to("scheduling.shareDecaySeconds", 3600),
		field: "scheduling.shareDecaySeconds", value: "3600", allowed: []string{"fairshare only"},
	},
	{
		name: "a compute reservation in quota mode is refused",
		base: quotaDoc, change: to("scheduling.computeReservation", 10),
		field: "scheduling.computeReservation", value: "10", allowed: []string{"fairshare only"},
	},
	{
		name: "capacity on a fair-share team is refused",
		base: fairshareDoc, change: to("teams.0.capacity", []any{doc{"instanceType": "ml.p5.48xlarge", "instances": 4}}),
		field: "teams[0].capacity", allowed: []string{"quota only"},
	},
	{
		name: "a sharing strategy on a fair-share team is refused",
		base: fairshareDoc, change: to("teams.0.sharing", "lend"),
		field: "teams[0].sharing", allowed: []string{"quota only"},
	},
	{
		name: "a borrow limit on a fair-share team is refused",
		base: fairshareDoc, change: to("teams.0.borrowLimitPercent", 50),
		field: "teams[0].borrowLimitPercent", allowed: []string{"quota only"},
	},
	{
		name: "in-share preemption on a fair-share team is refused",
		base: fairshareDoc, change: to("teams.0.inSharePreemption", false),
		field: "teams[0].inSharePreemption", allowed: []string{"quota only"},
	},
	{
		name: "a queue priority of 1001 is refused (Batch allows 0-1000)",
		base: quotaDoc, change: to("scheduling.queuePriority", 1001),
		field: "scheduling.queuePriority", value: "1001", allowed: []string{"0 to 1000"},
	},
	{
		name: "a negative queue priority is refused",
		base: quotaDoc, change: to("scheduling.queuePriority", -1),
		field: "scheduling.queuePriority", value: "-1", allowed: []string{"0 to 1000"},
	},
	{
		name: "a time limit for a reason Batch does not have is refused, naming Batch's reasons",
		base: quotaDoc, change: to("scheduling.jobStateTimeLimitActions", []any{doc{"reason": "MISCONFIGURATION:JOB_RESOURCE_REQUIREMENT", "maxTimeSeconds": 600}}),
		field: "scheduling.jobStateTimeLimitActions[0].reason", value: "JOB_RESOURCE_REQUIREMENT",
		allowed: []string{"CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED"},
	},
	{
		name: "a time limit below Batch's 600 s is refused",
		base: quotaDoc, change: to("scheduling.jobStateTimeLimitActions", []any{doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "maxTimeSeconds": 599}}),
		field: "scheduling.jobStateTimeLimitActions[0].maxTimeSeconds", value: "599", allowed: []string{"600 to 86400"},
	},
	{
		name: "a time limit beyond Batch's 24 hours is refused",
		base: quotaDoc, change: to("scheduling.jobStateTimeLimitActions", []any{doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "maxTimeSeconds": 86401}}),
		field: "scheduling.jobStateTimeLimitActions[0].maxTimeSeconds", value: "86401", allowed: []string{"600 to 86400"},
	},
	{
		name: "a time limit without maxTimeSeconds is refused",
		base: quotaDoc, change: to("scheduling.jobStateTimeLimitActions", []any{doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY"}}),
		field: "scheduling.jobStateTimeLimitActions[0].maxTimeSeconds", value: "0", allowed: []string{"600 to 86400"},
	},
	{
		name: "two time limits for one reason are refused",
		base: quotaDoc, change: to("scheduling.jobStateTimeLimitActions", []any{
			doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "maxTimeSeconds": 600},
			doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "maxTimeSeconds": 3600},
		}),
		field: "scheduling.jobStateTimeLimitActions[1].reason", value: "CAPACITY", allowed: []string{"each reason once"},
	},
	{
		name: "a time limit with an action is refused: a SageMaker training queue only terminates",
		base: quotaDoc, change: to("scheduling.jobStateTimeLimitActions", []any{doc{"reason": "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY", "maxTimeSeconds": 600, "action": "CANCEL"}}),
		field: "scheduling.jobStateTimeLimitActions[0].action", value: "unknown key", allowed: []string{"reason", "maxTimeSeconds"},
	},

	// Priority bands and classes.
	{
		name: "a band overlapping a higher class names the class it overlaps",
		base: quotaDoc, change: withClasses(to("classes.1.priority", doc{"min": 550, "max": 950})),
		field: "classes[1].priority", value: "550-950", allowed: []string{"classes[0]", "production", "900-999"},
	},
	{
		name: "bands sharing a single priority overlap",
		base: quotaDoc, change: withClasses(to("classes.1.priority.min", 199)),
		// sweep (classes[2]) is 100-199 and research now 199-599: both hold 199.
		field: "classes[2].priority", value: "100-199", allowed: []string{"classes[1]", "research", "199-599"},
	},
	{
		name: "a band whose max is below its min is refused",
		base: quotaDoc, change: withClasses(to("classes.0.priority.max", 800)),
		field: "classes[0].priority.max", value: "800", allowed: []string{"900"},
	},
	{
		name: "a band above scheduling priority 9999 is refused",
		base: quotaDoc, change: withClasses(to("classes.0.priority.max", 10000)),
		field: "classes[0].priority.max", value: "10000", allowed: []string{"0 to 9999"},
	},
	{
		name: "a band below scheduling priority 0 is refused",
		base: quotaDoc, change: withClasses(to("classes.2.priority.min", -1)),
		field: "classes[2].priority.min", value: "-1", allowed: []string{"0 to 9999"},
	},
	{
		name: "a class name with a space is refused (it names a Lambda alias)",
		base: quotaDoc, change: withClasses(to("classes.2.name", "sweep jobs")),
		field: "classes[2].name", value: "sweep jobs", allowed: []string{"letter"},
	},
	{
		name: "two classes with the same name are refused",
		base: quotaDoc, change: withClasses(to("classes.1.name", "production")),
		field: "classes[1].name", value: "production", allowed: []string{"not used by another class"},
	},
	{
		name: "a max runtime above 28 days is refused",
		// 28 days = 28 × 24 × 3600 = 2419200 s.
		base: quotaDoc, change: withClasses(to("classes.0.maxRuntimeSeconds", 2419201)),
		field: "classes[0].maxRuntimeSeconds", value: "2419201", allowed: []string{"2419200"},
	},
	{
		name: "a negative max runtime is refused",
		base: quotaDoc, change: withClasses(to("classes.0.maxRuntimeSeconds", -5)),
		field: "classes[0].maxRuntimeSeconds", value: "-5", allowed: []string{"1 to 2419200"},
	},
	{
		name: "10 retries are refused (Batch allows 10 attempts, so 9 retries)",
		base: quotaDoc, change: withClasses(to("classes.0.retries", 10)),
		field: "classes[0].retries", value: "10", allowed: []string{"0 to 9"},
	},
	{
		name: "negative retries are refused",
		base: quotaDoc, change: withClasses(to("classes.0.retries", -1)),
		field: "classes[0].retries", value: "-1", allowed: []string{"0 to 9"},
	},
	{
		name: "10000 preemption retries are refused",
		base: quotaDoc, change: withClasses(to("classes.1.preemptionRetries", 10000)),
		field: "classes[1].preemptionRetries", value: "10000", allowed: []string{"0 to 9999", "unlimited"},
	},
	{
		name: "negative preemption retries are refused",
		base: quotaDoc, change: withClasses(to("classes.1.preemptionRetries", -1)),
		field: "classes[1].preemptionRetries", value: "-1", allowed: []string{"0 to 9999"},
	},
	// Re-routing moves a job between two or more of the submitted types.
	{
		name: "a reroute with one instance type (nothing to move to)",
		base: quotaDoc, change: withClasses(to("classes.1.reroute", doc{"instanceTypes": []any{"ml.p5.48xlarge"}})),
		field: "classes[1].reroute.instanceTypes", value: "1 instance types", allowed: []string{"at least two", "submission.instanceTypes"},
	},
	{
		name: "a reroute to a type the platform does not submit to",
		base: quotaDoc, change: withClasses(to("classes.1.reroute", doc{"instanceTypes": []any{"ml.p5.48xlarge", "ml.g5.48xlarge"}})),
		field: "classes[1].reroute.instanceTypes[1]", value: "ml.g5.48xlarge", allowed: []string{"ml.p5.48xlarge, ml.p4d.24xlarge"},
	},
	{
		name: "a reroute naming a type twice",
		base: quotaDoc, change: withClasses(to("classes.1.reroute", doc{"instanceTypes": []any{"ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.p5.48xlarge"}})),
		field: "classes[1].reroute.instanceTypes[2]", value: "ml.p5.48xlarge", allowed: []string{"each instance type once"},
	},
	{
		name: "a reroute threshold under a minute",
		base: quotaDoc, change: withClasses(to("classes.1.reroute", doc{"afterSeconds": 59, "instanceTypes": []any{"ml.p5.48xlarge", "ml.p4d.24xlarge"}})),
		field: "classes[1].reroute.afterSeconds", value: "59", allowed: []string{"60 to 86400"},
	},
	{
		name: "more than 10 moves of one job",
		base: quotaDoc, change: withClasses(to("classes.1.reroute", doc{"maxMoves": 11, "instanceTypes": []any{"ml.p5.48xlarge", "ml.p4d.24xlarge"}})),
		field: "classes[1].reroute.maxMoves", value: "11", allowed: []string{"1 to 10"},
	},
	{
		name: "a checkpoint interval over a day",
		base: quotaDoc, change: withClasses(to("classes.2.checkpoints", doc{"intervalSeconds": 86401})),
		field: "classes[2].checkpoints.intervalSeconds", value: "86401", allowed: []string{"60 to 86400"},
	},
	{
		// 121 a minute is over 2 a second: 120 is the bound.
		name: "more re-routing moves a minute than half of Batch's submission rate",
		base: quotaDoc, change: to("rerouting.maxMovesPerMinute", 121),
		field: "rerouting.maxMovesPerMinute", value: "121", allowed: []string{"1 to 120", "5 submissions a second"},
	},
	{
		name: "a re-router schedule over an hour",
		base: quotaDoc, change: to("rerouting.everyMinutes", 61),
		field: "rerouting.everyMinutes", value: "61", allowed: []string{"1 to 60"},
	},
	{
		name: "a ledger kept over ten years",
		base: quotaDoc, change: to("ledger.retentionDays", 3654),
		field: "ledger.retentionDays", value: "3654", allowed: []string{"1 to 3653"},
	},
	{
		name: "a price of an instance type outside the pools",
		base: quotaDoc, change: to("ledger.hourlyPrices", map[string]any{"ml.g5.xlarge": 1.4}),
		field: "ledger.hourlyPrices.ml.g5.xlarge", value: "ml.g5.xlarge", allowed: []string{"an instance type of the pools"},
	},
	{
		name: "a negative price",
		base: quotaDoc, change: to("ledger.hourlyPrices", map[string]any{"ml.p5.48xlarge": -1}),
		field: "ledger.hourlyPrices.ml.p5.48xlarge", value: "-1", allowed: []string{"above 0"},
	},

	// Budgets.
	{
		name: "a budget with neither instance-hours nor cost",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5"}}),
		field: "teams[0].budgets[0].instanceHours", value: "0", allowed: []string{"above 0", "cost"},
	},
	{
		name: "a budget of an instance type outside the pools",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "g5", "instanceHours": 10, "instanceType": "ml.g5.xlarge"}}),
		field: "teams[0].budgets[0].instanceType", value: "ml.g5.xlarge", allowed: []string{"an instance type of the pools"},
	},
	{
		name: "a budget per week",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "period": "week"}}),
		field: "teams[0].budgets[0].period", value: "week", allowed: []string{"month", "rolling-30-days"},
	},
	{
		name: "a budget action that does not exist",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "actions": doc{"sweep": "cancel"}}}),
		field: "teams[0].budgets[0].actions.sweep", value: "cancel", allowed: []string{"alarm, lower-priority or refuse"},
	},
	{
		name: "a budget action of a class the platform does not have",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "actions": doc{"nightly": "refuse"}}}),
		field: "teams[0].budgets[0].actions.nightly", value: "nightly", allowed: []string{"a class of the platform", "sweep"},
	},
	{
		name: "a cost budget without prices",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "spend", "cost": 1000}}),
		field: "teams[0].budgets[0].cost", value: "1000", allowed: []string{"ledger.hourlyPrices", "ml.p5.48xlarge, ml.p4d.24xlarge"},
	},
	{
		name: "a budget of both instance-hours and cost",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "cost": 1000}}),
		field: "teams[0].budgets[0].cost", value: "1000", allowed: []string{"not both"},
	},
	{
		name: "a budget of one type and weights",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "instanceType": "ml.p5.48xlarge", "weights": doc{"ml.p5.48xlarge": 1}}}),
		field: "teams[0].budgets[0].weights", value: "a mapping", allowed: []string{"no value with instanceType"},
	},
	{
		name: "a budget weight of zero",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "gpu", "instanceHours": 10, "weights": doc{"ml.p5.48xlarge": 1, "ml.p4d.24xlarge": 0}}}),
		field: "teams[0].budgets[0].weights.ml.p4d.24xlarge", value: "0", allowed: []string{"above 0"},
	},
	{
		name: "two budgets of one team with one name",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10}, doc{"name": "p5", "instanceHours": 20}}),
		field: "teams[0].budgets[1].name", value: "p5", allowed: []string{"not used by another budget"},
	},
	{
		name: "a budget alarm at 0%",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "alarms": []any{doc{"percent": 0}}}}),
		field: "teams[0].budgets[0].alarms[0].percent", value: "0", allowed: []string{"1 to 1000"},
	},
	{
		name: "a budget alarm of another severity",
		base: quotaDoc, change: to("teams.0.budgets", []any{doc{"name": "p5", "instanceHours": 10, "alarms": []any{doc{"percent": 90, "severity": "email"}}}}),
		field: "teams[0].budgets[0].alarms[0].severity", value: "email", allowed: []string{"page or ticket"},
	},
	{
		// 41 teams × 1 budget × 5 alarms = 205 alarms, past the 200 a stack
		// has room for.
		name: "budget alarms past the stack's room", base: fairshareDoc, change: to("teams", budgetTeams(41)),
		field: "teams", value: "205 budget alarms", allowed: []string{"at most 200 budget alarms in all", "500 resources"},
	},
	{
		name: "a budget in fair share is checked too",
		base: fairshareDoc, change: to("teams.0.budgets", []any{doc{"name": "all", "instanceHours": -5}}),
		field: "teams[0].budgets[0].instanceHours", value: "-5", allowed: []string{"above 0"},
	},

	// Capacity against the pools.
	{
		name: "quota shares guaranteeing more than the pool are refused",
		// p5: 25 + 16 = 41 guaranteed, the pool has 40.
		base: quotaDoc, change: to("teams.0.capacity.0.instances", 25),
		field: "teams[*].capacity", value: "41", allowed: []string{"40", "ml.p5.48xlarge"},
	},
	{
		name: "one share alone guaranteeing more than the pool is refused",
		// p4d: 61 + 0 = 61 guaranteed, the pool has 60.
		base: quotaDoc,
		change: func(t testing.TB, d doc) {
			set(t, d, "teams.0.capacity.1.instances", 61)
			set(t, d, "teams.1.capacity", []any{doc{"instanceType": "ml.p5.48xlarge", "instances": 16}})
		},
		field: "teams[*].capacity", value: "61", allowed: []string{"60", "ml.p4d.24xlarge"},
	},
	{
		name: "a share capacity of an instance type outside the pools is refused",
		base: quotaDoc, change: to("teams.0.capacity.1.instanceType", "ml.g5.48xlarge"),
		field: "teams[0].capacity[1].instanceType", value: "ml.g5.48xlarge", allowed: []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"},
	},
	{
		name: "the same instance type twice in one share is refused",
		// p5 stays within the pool: 12 + 12 + 16 = 40.
		base: quotaDoc, change: to("teams.0.capacity", []any{
			doc{"instanceType": "ml.p5.48xlarge", "instances": 12},
			doc{"instanceType": "ml.p5.48xlarge", "instances": 12},
		}),
		field: "teams[0].capacity[1].instanceType", value: "ml.p5.48xlarge", allowed: []string{"once per team"},
	},
	{
		name: "a share capacity of 0 instances is refused",
		base: quotaDoc, change: to("teams.0.capacity.0.instances", 0),
		field: "teams[0].capacity[0].instances", value: "0", allowed: []string{"at least 1"},
	},

	// Instance types.
	{
		name: "a share capacity whose instance type is not ml.* is refused",
		base: quotaDoc, change: to("teams.1.capacity.0.instanceType", "p5.48xlarge"),
		field: "teams[1].capacity[0].instanceType", value: "p5.48xlarge", allowed: []string{"ml.p5.48xlarge", "ml.<family>.<size>"},
	},
	{
		name: "a pool whose instance type is not ml.* is refused",
		base: quotaDoc,
		change: func(t testing.TB, d doc) {
			set(t, d, "pools", append(d["pools"].([]any), doc{"instanceType": "p4de.24xlarge", "instances": 8}))
			set(t, d, "submission.instanceTypes", []any{"ml.p5.48xlarge", "ml.p4d.24xlarge"})
		},
		field: "pools[2].instanceType", value: "p4de.24xlarge", allowed: []string{"ml.<family>.<size>"},
	},
	{
		name: "a submission instance type that is not ml.* is refused",
		base: quotaDoc, change: to("submission.instanceTypes", []any{"ml.p5.48xlarge", "g5.48xlarge"}),
		field: "submission.instanceTypes[1]", value: "g5.48xlarge", allowed: []string{"ml.<family>.<size>"},
	},
	{
		name: "a submission instance type outside the pools is refused",
		base: quotaDoc, change: to("submission.instanceTypes", []any{"ml.g5.48xlarge"}),
		field: "submission.instanceTypes[0]", value: "ml.g5.48xlarge", allowed: []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"},
	},
	{
		name: "the same submission instance type twice is refused",
		base: quotaDoc, change: to("submission.instanceTypes", []any{"ml.p4d.24xlarge", "ml.p4d.24xlarge"}),
		field: "submission.instanceTypes[1]", value: "ml.p4d.24xlarge", allowed: []string{"once"},
	},

	// Pools and teams present.
	{
		name: "a platform without pools is refused",
		base: fairshareDoc, change: to("pools", []any{}),
		field: "pools", allowed: []string{"at least one instance type"},
	},
	{
		name: "a pool of 0 instances is refused",
		base: fairshareDoc,
		change: func(t testing.TB, d doc) {
			set(t, d, "pools", append(d["pools"].([]any), doc{"instanceType": "ml.p4d.24xlarge", "instances": 0}))
			set(t, d, "submission.instanceTypes", []any{"ml.p5.48xlarge"})
		},
		field: "pools[1].instances", value: "0", allowed: []string{"at least 1"},
	},
	{
		name: "the same pool instance type twice is refused",
		base: fairshareDoc,
		change: func(t testing.TB, d doc) {
			set(t, d, "pools", append(d["pools"].([]any), doc{"instanceType": "ml.p5.48xlarge", "instances": 8}))
			set(t, d, "submission.instanceTypes", []any{"ml.p5.48xlarge"})
		},
		field: "pools[1].instanceType", value: "ml.p5.48xlarge", allowed: []string{"once"},
	},
	{
		name: "a platform without teams is refused",
		base: fairshareDoc, change: to("teams", []any{}),
		field: "teams", allowed: []string{"at least one team"},
	},

	// Monitoring.
	{
		name: "an alarm e-mail that is not an address is refused",
		base: quotaDoc, change: to("monitoring.alarmEmails", []any{"ml-oncall@example.com", "oncall"}),
		field: "monitoring.alarmEmails[1]", value: "oncall", allowed: []string{"e-mail address"},
	},
	{
		name: "an alarm e-mail with a display name is refused (SNS takes a bare address)",
		base: quotaDoc, change: to("monitoring.alarmEmails", []any{"On call <oncall@example.com>"}),
		field: "monitoring.alarmEmails[0]", value: "On call <oncall@example.com>", allowed: []string{"oncall@example.com"},
	},
	{
		name: "a page e-mail that is not an address is refused",
		base: quotaDoc, change: to("monitoring.page.emails", []any{"pager"}),
		field: "monitoring.page.emails[0]", value: "pager", allowed: []string{"e-mail address"},
	},
	{
		name: "a ticket topic that is no SNS topic ARN is refused (a queue's ARN, say)",
		base: quotaDoc, change: to("monitoring.ticket.topicArn", "arn:aws:sqs:us-east-1:123456789012:tickets"),
		field: "monitoring.ticket.topicArn", value: "arn:aws:sqs:us-east-1:123456789012:tickets", allowed: []string{"SNS topic ARN"},
	},
	{
		name: "a paging class that does not exist names the classes",
		base: quotaDoc, change: to("monitoring.pagingClasses", []any{"prod"}),
		field: "monitoring.pagingClasses[0]", value: "prod", allowed: []string{"production", "research", "sweep"},
	},
	{
		name: "a runbook URL over plain http is refused",
		base: quotaDoc, change: to("monitoring.runbookUrl", "http://wiki.example.com/runbooks"),
		field: "monitoring.runbookUrl", value: "http://wiki.example.com/runbooks", allowed: []string{"https URL"},
	},
	{
		name: "a runbook URL with a fragment is refused (each alarm adds its own)",
		base: quotaDoc, change: to("monitoring.runbookUrl", "https://wiki.example.com/runbooks#top"),
		field: "monitoring.runbookUrl", allowed: []string{"#fragment"},
	},
	{
		name: "a wait threshold for a class that does not exist names the classes",
		base: quotaDoc, change: to("monitoring.maxWaitSeconds.prod", 900),
		field: "monitoring.maxWaitSeconds.prod", allowed: []string{"production", "research", "sweep"},
	},
	{
		name: "a wait threshold under a minute is refused",
		base: quotaDoc, change: to("monitoring.maxWaitSeconds.production", 59),
		field: "monitoring.maxWaitSeconds.production", value: "59", allowed: []string{"60 to 604800"},
	},
	{
		name: "a wait threshold above a week is refused",
		// A week is 7 × 24 × 3600 = 604800 s.
		base: quotaDoc, change: to("monitoring.maxWaitSeconds.sweep", 604801),
		field: "monitoring.maxWaitSeconds.sweep", value: "604801", allowed: []string{"60 to 604800"},
	},
	{
		name: "a utilization target above 100 percent is refused",
		base: quotaDoc, change: to("monitoring.utilizationTargetPercent", 101),
		field: "monitoring.utilizationTargetPercent", value: "101", allowed: []string{"1 to 100"},
	},
	{
		name: "a negative utilization target is refused",
		base: quotaDoc, change: to("monitoring.utilizationTargetPercent", -1),
		field: "monitoring.utilizationTargetPercent", value: "-1", allowed: []string{"1 to 100"},
	},
	{
		name: "an idle alarm period that is not whole minutes is refused",
		base: quotaDoc, change: to("monitoring.idleAlarmSeconds", 90),
		field: "monitoring.idleAlarmSeconds", value: "90", allowed: []string{"whole minutes"},
	},
	{
		name: "an idle alarm period above a day is refused",
		// A day and a minute: 86400 + 60 = 86460 s, whole minutes but too long.
		base: quotaDoc, change: to("monitoring.idleAlarmSeconds", 86460),
		field: "monitoring.idleAlarmSeconds", value: "86460", allowed: []string{"60 to 86400"},
	},
	{
		name: "a failure alarm for a class that does not exist names the classes",
		base: quotaDoc, change: to("monitoring.failureAlarmClasses", []any{"production", "prod"}),
		field: "monitoring.failureAlarmClasses[1]", value: "prod", allowed: []string{"production", "research", "sweep"},
	},
	{
		name: "a log retention CloudWatch does not offer is refused",
		base: quotaDoc, change: to("monitoring.logRetentionDays", 31),
		field: "monitoring.logRetentionDays", value: "31", allowed: []string{"30", "60"},
	},

	// Submission.
	{
		name: "a submitter role ARN with an 11-digit account is refused",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::12345678901:role/pipeline", "classes": []any{"research"}, "teams": []any{"search-ranking"}}}),
		field: "submission.submitters[0].roleArn", value: "arn:aws:iam::12345678901:role/pipeline", allowed: []string{"arn:aws:iam::123456789012:role/"},
	},
	{
		name: "a submitter given a user ARN instead of a role is refused",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:user/alice", "classes": []any{"research"}, "teams": []any{"search-ranking"}}}),
		field: "submission.submitters[0].roleArn", value: "user/alice", allowed: []string{"IAM role ARN"},
	},
	{
		// IAM bounds a role's path and name, not the ARN: 513 characters
		// after role/ are refused in every partition (platform used to bound
		// the whole ARN, which let the aws partition have 519).
		name: "a submitter role whose path and name have 513 characters is refused",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/" + strings.Repeat("r", 513), "classes": []any{"research"}, "teams": []any{"search-ranking"}}}),
		field: "submission.submitters[0].roleArn", value: "role/rrr", allowed: []string{"IAM role ARN"},
	},
	{
		name: "a submitter without classes is refused",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/pipeline", "classes": []any{}, "teams": []any{"search-ranking"}}}),
		field: "submission.submitters[0].classes", allowed: []string{"at least one class"},
	},
	{
		name: "a submitter granted a class that does not exist names the classes",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/pipeline", "classes": []any{"research", "admin"}, "teams": []any{"search-ranking"}}}),
		field: "submission.submitters[0].classes[1]", value: "admin", allowed: []string{"production", "research", "sweep"},
	},

	{
		name: "an operator given a user ARN instead of a role is refused",
		base: quotaDoc, change: to("submission.operators", []any{doc{"roleArn": "arn:aws:iam::123456789012:user/alice"}}),
		field: "submission.operators[0].roleArn", value: "user/alice", allowed: []string{"IAM role ARN"},
	},
	{
		// Role names are unique in an account whatever the path, and a
		// session ARN carries no path: the two name one role.
		name: "the same operator role under two paths is refused",
		base: quotaDoc, change: to("submission.operators", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/oncall"}, doc{"roleArn": "arn:aws:iam::123456789012:role/team/oncall"}}),
		field: "submission.operators[1].roleArn", value: "role/team/oncall", allowed: []string{"each role once"},
	},
	{
		name: "a role that is both operator and submitter is refused",
		base: quotaDoc, change: func(t testing.TB, d doc) {
			set(t, d, "submission.operators", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/oncall"}})
			set(t, d, "submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/oncall", "classes": []any{"research"}, "teams": []any{"search-ranking"}}})
		},
		field: "submission.submitters[0].roleArn", value: "role/oncall", allowed: []string{"not also an operator"},
	},
	{
		name: "a submitter without teams is refused, not granted every team",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/pipeline", "classes": []any{"research"}}}),
		field: "submission.submitters[0].teams", allowed: []string{"at least one team name (search-ranking, search-research)", "list every team"},
	},
	{
		name: "a submitter granted a team that does not exist names the teams",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/pipeline", "classes": []any{"research"}, "teams": []any{"search-ranking", "ads"}}}),
		field: "submission.submitters[0].teams[1]", value: "ads", allowed: []string{"search-ranking, search-research"},
	},
	{
		name: "a submitter granted a team twice is refused",
		base: quotaDoc, change: to("submission.submitters", []any{doc{"roleArn": "arn:aws:iam::123456789012:role/pipeline", "classes": []any{"research"}, "teams": []any{"search-ranking", "search-ranking"}}}),
		field: "submission.submitters[0].teams[1]", value: "search-ranking", allowed: []string{"each team once"},
	},
	{
		name: "a team's own S3 location with a wildcard is refused",
		base: quotaDoc, change: to("teams.0.training", doc{"s3Read": []any{"s3://datasets/ranking/*"}}),
		field: "teams[0].training.s3Read[0]", value: "s3://datasets/ranking/*", allowed: []string{"'*' is an IAM wildcard"},
	},
	{
		name: "a team's own ECR repository that is not a repository name is refused",
		base: quotaDoc, change: to("teams.1.training", doc{"ecrRepositories": []any{"ML/Trainer"}}),
		field: "teams[1].training.ecrRepositories[0]", value: "ML/Trainer", allowed: []string{"ECR repository name"},
	},

	{
		name: "a class and a team whose submission alias is another pair's are refused",
		base: quotaDoc, change: func(t testing.TB, d doc) {
			d["classes"] = []any{
				doc{"name": "research", "priority": doc{"min": 500, "max": 599}, "maxRuntimeSeconds": 3600},
				doc{"name": "research-search", "priority": doc{"min": 100, "max": 199}, "maxRuntimeSeconds": 3600},
			}
			set(t, d, "teams.0.name", "search-ranking")
			set(t, d, "teams.1.name", "ranking")
		},
		field: "teams", value: "ranking", allowed: []string{`"research-search-ranking"`, "rename a class or a team"},
	},

	// Training access.
	{
		name: "an S3 read URI with a wildcard is refused",
		base: quotaDoc, change: to("training.s3Read", []any{"s3://datasets/imagenet/*"}),
		field: "training.s3Read[0]", value: "s3://datasets/imagenet/*", allowed: []string{"'*' is an IAM wildcard"},
	},
	{
		name: "an S3 write location that is not an s3:// URI is refused",
		base: quotaDoc, change: to("training.s3Write", []any{"https://checkpoints.s3.amazonaws.com/run"}),
		field: "training.s3Write[0]", value: "https://checkpoints.s3.amazonaws.com/run", allowed: []string{"s3://bucket/prefix/"},
	},
	{
		name: "an S3 bucket name with capitals is refused",
		base: quotaDoc, change: to("training.s3Write", []any{"s3://Checkpoints/run/"}),
		field: "training.s3Write[0]", value: "s3://Checkpoints/run/", allowed: []string{"lowercase letters", "'C'"},
	},
	{
		name: "a read prefix without a trailing slash is refused with the prefix suggested",
		base: quotaDoc, change: to("training.s3Read", []any{"s3://ml-datasets/search"}),
		field: "training.s3Read[0]", value: "s3://ml-datasets/search", allowed: []string{"s3://ml-datasets/search/ for the prefix"},
	},
	{
		name: "the second write URI is named by its index",
		base: quotaDoc, change: to("training.s3Write", []any{"s3://ml-checkpoints/search/", "s3://ml-checkpoints/%zz/"}),
		field: "training.s3Write[1]", value: "s3://ml-checkpoints/%zz/", allowed: []string{"never percent-decoded"},
	},
	{
		name: "an ECR repository name with capitals is refused",
		base: quotaDoc, change: to("training.ecrRepositories", []any{"ML/Trainer"}),
		field: "training.ecrRepositories[0]", value: "ML/Trainer", allowed: []string{"ECR repository name"},
	},
	{
		name: "a one-character ECR repository name is refused (ECR wants 2 to 256)",
		base: quotaDoc, change: to("training.ecrRepositories", []any{"a"}),
		field: "training.ecrRepositories[0]", value: "a", allowed: []string{"ECR repository name"},
	},
	{
		name: "a string where awsManagedImages goes is refused",
		base: quotaDoc, change: to("training.awsManagedImages", "yes please"),
		field: "training.awsManagedImages", value: "yes please", allowed: []string{"true or false"},
	},
	{
		// A team's own subnets are its network-interface fence: a subnet
		// both teams list would let either delete the other's interfaces.
		name: "a subnet of two teams' own VPCs is refused",
		base: quotaDoc, change: func(t testing.TB, d doc) {
			vpc := func(sg string) doc {
				return doc{"subnets": []any{"subnet-0a1b2c3d4e5f60718"}, "securityGroups": []any{sg}}
			}
			set(t, d, "teams.0.training", doc{"vpc": vpc("sg-0123456789abcdef0")})
			set(t, d, "teams.1.training", doc{"vpc": vpc("sg-0fedcba987654321f")})
		},
		field: "teams[1].training.vpc.subnets[0]", value: "subnet-0a1b2c3d4e5f60718", allowed: []string{"a subnet of team search-research's own", "search-ranking"},
	},
	{
		name: "a team's own subnet that training.vpc lists for every other team is refused",
		base: quotaDoc, change: func(t testing.TB, d doc) {
			vpc := doc{"subnets": []any{"subnet-0a1b2c3d4e5f60718"}, "securityGroups": []any{"sg-0123456789abcdef0"}}
			set(t, d, "training.vpc", vpc)
			set(t, d, "teams.0.training", doc{"vpc": vpc})
		},
		field: "teams[0].training.vpc.subnets[0]", value: "subnet-0a1b2c3d4e5f60718", allowed: []string{"not also training.vpc's"},
	},
	{
		name: "a team's own VPC without security groups is refused",
		base: quotaDoc, change: to("teams.0.training", doc{"vpc": doc{"subnets": []any{"subnet-0a1b2c3d4e5f60718"}}}),
		field: "teams[0].training.vpc.securityGroups", value: "[]", allowed: []string{"1 to 5 security group IDs"},
	},
	{
		// CloudWatch Logs' PutRetentionPolicy takes 1, 3, 5, 7, 14, 30, …
		// days: 2 is none of them.
		name: "a training log retention CloudWatch Logs does not offer is refused",
		base: quotaDoc, change: to("training.logRetentionDays", 2),
		field: "training.logRetentionDays", value: "2", allowed: []string{"one of CloudWatch Logs' retentions", "400"},
	},
	{
		name: "a VPC without subnets is refused",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{}, "securityGroups": []any{"sg-0123456789abcdef0"}}),
		field: "training.vpc.subnets", value: "[]", allowed: []string{"1 to 16 subnet IDs", "subnet-0a1b2c3d4e5f60718"},
	},
	{
		name: "a VPC without security groups is refused",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d4e5f60718"}}),
		field: "training.vpc.securityGroups", value: "[]", allowed: []string{"1 to 5 security group IDs"},
	},
	{
		name: "17 subnets are refused (SageMaker takes 16)",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": subnets(17), "securityGroups": []any{"sg-0123456789abcdef0"}}),
		field: "training.vpc.subnets", value: "17 subnets", allowed: []string{"at most 16 subnets"},
	},
	{
		name: "6 security groups are refused (SageMaker takes 5)",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d4e5f60718"}, "securityGroups": securityGroups(6)}),
		field: "training.vpc.securityGroups", value: "6 security groups", allowed: []string{"at most 5 security groups"},
	},
	{
		name: "a subnet ID of 10 hex digits is refused (8 or 17)",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d4e"}, "securityGroups": []any{"sg-0123456789abcdef0"}}),
		field: "training.vpc.subnets[0]", value: "subnet-0a1b2c3d4e", allowed: []string{"subnet- then 8 or 17 lowercase hex digits"},
	},
	{
		name: "a subnet ID in capitals is refused",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0A1B2C3D"}, "securityGroups": []any{"sg-0123456789abcdef0"}}),
		field: "training.vpc.subnets[0]", value: "subnet-0A1B2C3D", allowed: []string{"lowercase hex digits"},
	},
	{
		name: "a security group name where its ID goes is refused",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d4e5f60718"}, "securityGroups": []any{"training-jobs"}}),
		field: "training.vpc.securityGroups[0]", value: "training-jobs", allowed: []string{"sg- then 8 or 17 lowercase hex digits", "sg-0123456789abcdef0"},
	},
	{
		name: "a subnet listed twice is refused at its second place",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d", "subnet-1a2b3c4d", "subnet-0a1b2c3d"}, "securityGroups": []any{"sg-01234567"}}),
		field: "training.vpc.subnets[2]", value: "subnet-0a1b2c3d", allowed: []string{"each subnet once"},
	},
	{
		name: "a security group listed twice is refused at its second place",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d"}, "securityGroups": []any{"sg-01234567", "sg-01234567"}}),
		field: "training.vpc.securityGroups[1]", value: "sg-01234567", allowed: []string{"each security group once"},
	},
	{
		name: "an unknown key in the VPC is named with the keys that are allowed",
		base: quotaDoc, change: to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d"}, "securityGroups": []any{"sg-01234567"}, "vpcId": "vpc-01234567"}),
		field: "training.vpc.vpcId", value: "unknown key", allowed: []string{"securityGroups", "subnets"},
	},
	{
		name: "a KMS alias ARN is refused: IAM grants on KMS actions name the key ARN",
		base: quotaDoc, change: to("training.kmsKeys", []any{"arn:aws:kms:us-east-1:123456789012:alias/training"}),
		field: "training.kmsKeys[0]", value: "alias/training", allowed: []string{"not of an alias", "key ARN"},
	},
	{
		name: "a bare KMS key ID is refused",
		base: quotaDoc, change: to("training.kmsKeys", []any{"1234abcd-12ab-34cd-56ef-1234567890ab"}),
		field: "training.kmsKeys[0]", value: "1234abcd-12ab-34cd-56ef-1234567890ab", allowed: []string{"a KMS key ARN such as arn:aws:kms:"},
	},
	{
		name: "a multi-Region key ID with 31 hex digits is refused",
		base: quotaDoc, change: to("training.kmsKeys", []any{"arn:aws:kms:us-east-1:123456789012:key/mrk-1234abcd12ab34cd56ef1234567890a"}),
		field: "training.kmsKeys[0]", value: "mrk-1234abcd12ab34cd56ef1234567890a", allowed: []string{"mrk- and 32 hex digits"},
	},
	{
		name: "a KMS key ARN with an 11-digit account is refused",
		base: quotaDoc, change: to("training.kmsKeys", []any{"arn:aws:kms:us-east-1:12345678901:key/1234abcd-12ab-34cd-56ef-1234567890ab"}),
		field: "training.kmsKeys[0]", value: "12345678901", allowed: []string{"a KMS key ARN"},
	},
	{
		name: "an ARN of another service where a KMS key goes is refused",
		base: quotaDoc, change: to("training.kmsKeys", []any{"arn:aws:s3:::ml-datasets"}),
		field: "training.kmsKeys[0]", value: "arn:aws:s3:::ml-datasets", allowed: []string{"a KMS key ARN"},
	},
	{
		name: "a KMS key listed twice is refused at its second place",
		base: quotaDoc, change: to("training.kmsKeys", []any{
			"arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
			"arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
		}),
		field: "training.kmsKeys[1]", value: "1234abcd-12ab-34cd-56ef-1234567890ab", allowed: []string{"each key once"},
	},
	{
		name: "21 KMS keys are refused",
		base: quotaDoc, change: to("training.kmsKeys", kmsKeys(21)),
		field: "training.kmsKeys", value: "21 keys", allowed: []string{"at most 20 KMS keys"},
	},

	// Values of the wrong type.
	{
		name: "a string where a whole number goes is named with its path",
		base: quotaDoc, change: to("pools.1.instances", "sixty"),
		field: "pools[1].instances", value: "sixty", allowed: []string{"a whole number"},
	},
	{
		name: "a fraction where a whole number goes is refused",
		base: quotaDoc, change: to("teams.0.capacity.0.instances", 2.5),
		field: "teams[0].capacity[0].instances", value: "2.5", allowed: []string{"a whole number"},
	},
	{
		name: "a string where a weight goes is named with its path",
		base: fairshareDoc, change: to("teams.1.weight", "heavy"),
		field: "teams[1].weight", value: "heavy", allowed: []string{"a number"},
	},
	{
		name: "a number where a string goes is refused",
		base: quotaDoc, change: to("name", 5),
		field: "name", value: "5", allowed: []string{"a string"},
	},
	{
		name: "a string where true or false goes is refused",
		base: quotaDoc, change: to("teams.0.inSharePreemption", "sometimes"),
		field: "teams[0].inSharePreemption", value: "sometimes", allowed: []string{"true or false"},
	},
	{
		name: "a single value where a list goes is refused",
		base: quotaDoc, change: to("monitoring.alarmEmails", "oncall@example.com"),
		field: "monitoring.alarmEmails", value: "oncall@example.com", allowed: []string{"a list"},
	},
	{
		name: "a list where a string goes says it got a list",
		base: quotaDoc, change: to("name", []any{"vision", "speech"}),
		field: "name", value: "list", allowed: []string{"a string"},
	},
	{
		name: "a mapping where a list goes says it got a mapping",
		base: quotaDoc, change: to("submission.instanceTypes", doc{"first": "ml.p5.48xlarge"}),
		field: "submission.instanceTypes", value: "mapping", allowed: []string{"a list"},
	},
	{
		name: "a number where a mapping goes is refused",
		base: quotaDoc, change: withClasses(to("classes.0.priority", 900)),
		field: "classes[0].priority", value: "900", allowed: []string{"a mapping"},
	},
	{
		name: "a string where a wait threshold goes is named with the class",
		base: quotaDoc, change: to("monitoring.maxWaitSeconds.research", "2h"),
		field: "monitoring.maxWaitSeconds.research", value: "2h", allowed: []string{"a whole number"},
	},
}

// TestParseRejectsEachMistakeOnce checks every rule of the issue and every
// other check of Validate: one mistake yields exactly one problem naming the
// field, the value and what is allowed.
func TestParseRejectsEachMistakeOnce(t *testing.T) {
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.base()
			tc.change(t, d)
			data := render(t, d)
			_, err := Parse(data)
			ps := problemsOf(t, err)
			if len(ps) != 1 {
				t.Fatalf("got %d problems, want 1 (%s):\n%v\nfile:\n%s", len(ps), tc.field, err, data)
			}
			got := ps[0]
			if got.Field != tc.field {
				t.Errorf("Field = %q, want %q", got.Field, tc.field)
			}
			if !strings.Contains(got.Value, tc.value) {
				t.Errorf("Value = %q, want it to mention %q", got.Value, tc.value)
			}
			if got.Value == "" || got.Allowed == "" {
				t.Errorf("problem %+v has an empty Value or Allowed", got)
			}
			for _, a := range tc.allowed {
				if !strings.Contains(got.Allowed, a) {
					t.Errorf("Allowed = %q, want it to mention %q", got.Allowed, a)
				}
			}
			if msg := err.Error(); !strings.Contains(msg, tc.field) {
				t.Errorf("error text %q does not name the field %q", msg, tc.field)
			}
		})
	}
}
