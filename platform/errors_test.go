package platform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseAcceptsBoundaries checks that the edges of every range are
// allowed, so that the rejections above are not off by one.
func TestParseAcceptsBoundaries(t *testing.T) {
	cases := []struct {
		name   string
		base   func() doc
		change func(testing.TB, doc)
	}{
		{"20 quota shares are accepted", quotaDoc, to("teams", teamsOfOne(20))},
		{"21 fair-share identifiers are accepted (the 20-share limit is for quota shares)", fairshareDoc, func(t testing.TB, d doc) {
			teams := make([]any, 21)
			for i := range teams {
				teams[i] = doc{"name": fmt.Sprintf("team_%02d", i), "weight": 1}
			}
			d["teams"] = teams
		}},
		{"5 capacity limits in one share are accepted", quotaDoc, func(t testing.TB, d doc) {
			pools, capacity := poolsOf(sixTypes[:5])
			d["pools"] = pools
			set(t, d, "teams.0.capacity", capacity)
		}},
		{"a quota share name of 128 characters with '-' and '_' is accepted", quotaDoc, to("teams.0.name", "a-b_"+strings.Repeat("c", 124))},
		{"a fair-share identifier of 255 characters is accepted", fairshareDoc, to("teams.0.name", strings.Repeat("b", 255))},
		{"a weight of 0.0001 is accepted", fairshareDoc, to("teams.0.weight", 0.0001)},
		{"a weight of 999.9999 is accepted", fairshareDoc, to("teams.0.weight", 999.9999)},
		{"a share decay of 604800 s is accepted", fairshareDoc, to("scheduling.shareDecaySeconds", 604800)},
		{"a share decay of 0 s is accepted", fairshareDoc, to("scheduling.shareDecaySeconds", 0)},
		{"a compute reservation of 99 is accepted", fairshareDoc, to("scheduling.computeReservation", 99)},
		{"a compute reservation of 0 is accepted", fairshareDoc, to("scheduling.computeReservation", 0)},
		{"a queue priority of 0 is accepted", quotaDoc, to("scheduling.queuePriority", 0)},
		{"a queue priority of 1000 is accepted", quotaDoc, to("scheduling.queuePriority", 1000)},
		{"a borrow limit of -1 (unlimited) is accepted", quotaDoc, to("teams.0.borrowLimitPercent", -1)},
		{"a borrow limit of 0 is accepted", quotaDoc, to("teams.0.borrowLimitPercent", 0)},
		{"a borrow limit of 300 percent is accepted", quotaDoc, to("teams.0.borrowLimitPercent", 300)},
		{"a reserving share without a borrow limit is accepted", quotaDoc, to("teams.0.sharing", "reserve")},
		{"adjacent bands are accepted", quotaDoc, withClasses(to("classes.1.priority", doc{"min": 200, "max": 899}))},
		{"a band of one priority is accepted", quotaDoc, withClasses(to("classes.2.priority", doc{"min": 0, "max": 0}))},
		{"a band up to 9999 is accepted", quotaDoc, withClasses(to("classes.0.priority.max", 9999))},
		{"a max runtime of 28 days is accepted", quotaDoc, withClasses(to("classes.0.maxRuntimeSeconds", 2419200))},
		{"9 retries are accepted", quotaDoc, withClasses(to("classes.0.retries", 9))},
		{"9999 preemption retries are accepted", quotaDoc, withClasses(to("classes.0.preemptionRetries", 9999))},
		{"a platform name of 32 characters is accepted", quotaDoc, to("name", "t"+strings.Repeat("x", 31))},
		{"an idle alarm of one minute is accepted", quotaDoc, to("monitoring.idleAlarmSeconds", 60)},
		{"an idle alarm of one day is accepted", quotaDoc, to("monitoring.idleAlarmSeconds", 86400)},
		{"a utilization target of 100 percent is accepted", quotaDoc, to("monitoring.utilizationTargetPercent", 100)},
		{"a wait threshold of a week is accepted", quotaDoc, to("monitoring.maxWaitSeconds.sweep", 604800)},
		{"a role ARN in another partition is accepted", quotaDoc, to("submission.submitters", []any{doc{"roleArn": "arn:aws-us-gov:iam::123456789012:role/ml/pipeline", "classes": []any{"sweep"}}})},
		{"an S3 bucket without prefix is accepted", quotaDoc, to("training.s3Read", []any{"s3://datasets"})},
		{"a whole S3 bucket with a trailing slash is accepted", quotaDoc, to("training.s3Write", []any{"s3://checkpoints/"})},
		{"an S3 prefix with a trailing slash is accepted", quotaDoc, to("training.s3Read", []any{"s3://ml-datasets/search/"})},
		{"one S3 object is accepted", quotaDoc, to("training.s3Read", []any{"s3://ml-datasets/search/vocab.txt"})},
		{"the same S3 location may be read and written", quotaDoc, func(t testing.TB, d doc) {
			set(t, d, "training.s3Read", []any{"s3://ml-checkpoints/search/"})
			set(t, d, "training.s3Write", []any{"s3://ml-checkpoints/search/"})
		}},
		{"AWS's prebuilt images may be turned off", quotaDoc, to("training.awsManagedImages", false)},
		{"16 subnets and 5 security groups are accepted", quotaDoc, to("training.vpc", doc{"subnets": subnets(16), "securityGroups": securityGroups(5)})},
		{"one subnet and one security group of 8 hex digits are accepted", quotaDoc, to("training.vpc", doc{"subnets": []any{"subnet-0a1b2c3d"}, "securityGroups": []any{"sg-0a1b2c3d"}})},
		{"20 KMS keys are accepted", quotaDoc, to("training.kmsKeys", kmsKeys(20))},
		{"a multi-Region KMS key is accepted", quotaDoc, to("training.kmsKeys", []any{"arn:aws:kms:us-east-2:111122223333:key/mrk-1234abcd12ab34cd56ef1234567890ab"})},
		{"a KMS key in GovCloud is accepted", quotaDoc, to("training.kmsKeys", []any{"arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"})},
		{"a namespaced ECR repository is accepted", quotaDoc, to("training.ecrRepositories", []any{"ml/trainer-v2"})},
		{"failure alarms may be turned off with an empty list", quotaDoc, to("monitoring.failureAlarmClasses", []any{})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.base()
			tc.change(t, d)
			mustParse(t, render(t, d))
		})
	}
}

// TestManyMistakesAreListedAtOnce parses a file with fifteen mistakes, each
// marked by a comment in the file, and expects every one of them, in a fixed
// order: unknown keys first (keys in alphabetical order, depth first), then
// the checks in the order of the file's sections.
func TestManyMistakesAreListedAtOnce(t *testing.T) {
	data := readTestdata(t, "bad/many-mistakes.yaml")
	want := []string{
		"scheduling.preemption",
		"trainig",
		"name",
		"pools[0].instanceType",
		"scheduling.shareDecaySeconds",
		"scheduling.computeReservation",
		"classes[1].priority",
		"classes[2].retries",
		"teams[0].name",
		"teams[1].weight",
		"teams[2].capacity",
		"monitoring.alarmEmails[0]",
		"monitoring.logRetentionDays",
		"submission.submitters[0].roleArn",
		"submission.submitters[0].classes[1]",
	}
	_, err := Parse(data)
	ps := problemsOf(t, err)
	if diff := cmp.Diff(want, fields(ps)); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s\nerror:\n%v", diff, err)
	}
	for _, p := range ps {
		if p.Field == "" || p.Value == "" || p.Allowed == "" {
			t.Errorf("problem %+v lacks a field, value or allowed range", p)
		}
	}
	// 15 mistakes: a heading and one "  - field: got …, want …" line each.
	lines := strings.Split(err.Error(), "\n")
	if lines[0] != "invalid platform (15 problems):" || len(lines) != 16 {
		t.Errorf("error text has heading %q and %d lines, want \"invalid platform (15 problems):\" and 16:\n%v", lines[0], len(lines), err)
	}
	for i, p := range ps {
		if i+1 < len(lines) && lines[i+1] != "  - "+p.Field+": got "+p.Value+", want "+p.Allowed {
			t.Errorf("line %d = %q, want the field, value and allowed range of problem %d", i+1, lines[i+1], i)
		}
	}
	// The same file gives the same list every time.
	for range 20 {
		_, again := Parse(data)
		if diff := cmp.Diff(ps, problemsOf(t, again)); diff != "" {
			t.Fatalf("a second parse listed different problems (-first +again):\n%s", diff)
		}
	}
}

// TestProblemsInAMappingComeInKeyOrder: wrong values under
// monitoring.maxWaitSeconds must be listed in the same order on every run
// (alphabetical, like unknown keys), not in Go's random map order.
func TestProblemsInAMappingComeInKeyOrder(t *testing.T) {
	d := quotaDoc()
	set(t, d, "monitoring.maxWaitSeconds", doc{"sweep": "12h", "production": "15m", "research": "2h"})
	data := render(t, d)
	want := []string{
		"monitoring.maxWaitSeconds.production",
		"monitoring.maxWaitSeconds.research",
		"monitoring.maxWaitSeconds.sweep",
	}
	for i := range 50 {
		_, err := Parse(data)
		if diff := cmp.Diff(want, fields(problemsOf(t, err))); diff != "" {
			t.Fatalf("parse %d: problem order (-want +got):\n%s", i+1, diff)
		}
	}
}

// TestTypeErrorsDoNotHideOtherProblems: a value of the wrong type must not
// stop the other checks, or a user fixes one line only to be told of the
// next mistake.
func TestTypeErrorsDoNotHideOtherProblems(t *testing.T) {
	d := quotaDoc()
	set(t, d, "pools.0.instances", "forty")        // wrong type
	set(t, d, "scheduling.queuePriority", 5000)    // out of range: 0 to 1000
	set(t, d, "teams.1.sharing", "borrow")         // not a strategy
	set(t, d, "monitoring.logRetentionDays", 31)   // not a CloudWatch retention
	set(t, d, "training.s3Read", []any{"s3://x*"}) // wildcard
	_, err := Parse(render(t, d))
	want := []string{
		"pools[0].instances",
		"scheduling.queuePriority",
		"teams[1].sharing",
		"monitoring.logRetentionDays",
		"training.s3Read[0]",
	}
	if diff := cmp.Diff(want, fields(problemsOf(t, err))); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s\nerror:\n%v", diff, err)
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

// TestNotAMappingNamesTheDocument: a file that is a list or a scalar gets a
// problem whose field says where (the whole document), never an empty field.
func TestNotAMappingNamesTheDocument(t *testing.T) {
	for _, text := range []string{"- pools\n- teams\n", "just some words\n", "42\n"} {
		t.Run(strings.TrimSpace(text), func(t *testing.T) {
			_, err := Parse([]byte(text))
			ps := problemsOf(t, err)
			if len(ps) != 1 {
				t.Fatalf("got %d problems, want 1: %v", len(ps), err)
			}
			if ps[0].Field == "" || !strings.Contains(ps[0].Allowed, "mapping") {
				t.Errorf("problem %+v: want a named field and an allowed range mentioning a mapping", ps[0])
			}
		})
	}
}

// TestYAMLSyntaxErrorIsAParseError: text that is not YAML at all is a parse
// error, not a list of problems.
func TestYAMLSyntaxErrorIsAParseError(t *testing.T) {
	_, err := Parse([]byte("pools: [\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "parse platform:") {
		t.Errorf("got %v, want an error starting with \"parse platform:\"", err)
	}
}

// TestValidateAPlatformBuiltInGo: Validate works on a struct built in Go
// after ApplyDefaults, with the same problems as the file form.
func TestValidateAPlatformBuiltInGo(t *testing.T) {
	p := Platform{
		Pools:      []Pool{{InstanceType: "ml.p5.48xlarge", Instances: 8}},
		Scheduling: Scheduling{Mode: ModeFairShare, ComputeReservation: ptr(120)},
		Teams:      []Team{{Name: "ranking", Weight: 0.5}, {Name: "search-research", Weight: 1}},
	}
	p.ApplyDefaults()
	err := p.Validate()
	want := []string{"scheduling.computeReservation", "teams[1].name"}
	if diff := cmp.Diff(want, fields(problemsOf(t, err))); diff != "" {
		t.Errorf("problem fields (-want +got):\n%s", diff)
	}
	p.Scheduling.ComputeReservation = ptr(20)
	p.Teams[1].Name = "search_research"
	if err := p.Validate(); err != nil {
		t.Errorf("corrected platform: %v", err)
	}
}
