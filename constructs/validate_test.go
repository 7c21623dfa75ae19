package constructs

// These tests call the constructs' pure validators only: no jsii call, no
// node kernel, so they are safe and fast. Never t.Parallel() here anyway:
// the package calls jsii elsewhere.

import (
	"errors"
	"strings"
	"testing"

	"github.com/trainq/trainq/platform"
)

func intp(v int) *int { return &v }

func TestPoolPropsValidation(t *testing.T) {
	p5 := InstanceCapacity{InstanceType: "ml.p5.48xlarge", Instances: 4}
	cases := []struct {
		name  string
		props CapacityPoolProps
		want  []string // substrings of the error; nil when valid
	}{
		{"per-type limits alone are valid", CapacityPoolProps{InstanceTypes: []InstanceCapacity{p5}}, nil},
		{"a total alone is valid", CapacityPoolProps{TotalInstances: 8}, nil},
		{"both a total and per-type limits are refused", CapacityPoolProps{InstanceTypes: []InstanceCapacity{p5}, TotalInstances: 8},
			[]string{"InstanceTypes (1 types)", "TotalInstances (8)", "exactly one"}},
		{"neither is refused", CapacityPoolProps{}, []string{"TotalInstances is 0", "≥ 1"}},
		{"a type listed twice is refused", CapacityPoolProps{InstanceTypes: []InstanceCapacity{p5, p5}}, []string{"InstanceTypes[1]", "listed twice"}},
		{"zero instances of a type are refused", CapacityPoolProps{InstanceTypes: []InstanceCapacity{{InstanceType: "ml.p5.48xlarge"}}},
			[]string{"InstanceTypes[0].Instances is 0", "at least 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, validatePoolProps(&c.props), c.want)
		})
	}
}

func TestQuotaSharePropsValidation(t *testing.T) {
	one := []InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 2}}
	six := make([]InstanceCapacity, 6)
	for i := range six {
		six[i] = InstanceCapacity{InstanceType: "ml.p" + string(rune('1'+i)) + ".large", Instances: 1}
	}
	cases := []struct {
		name  string
		props QuotaShareProps
		want  []string
	}{
		{"a lend-and-borrow share with a limit is valid", QuotaShareProps{QuotaShareName: "a", Capacity: one, Strategy: platform.StrategyLendAndBorrow, BorrowLimitPercent: intp(100)}, nil},
		{"an unlimited borrow limit is valid", QuotaShareProps{QuotaShareName: "a", Capacity: one, BorrowLimitPercent: intp(-1)}, nil},
		{"a name Batch refuses is refused", QuotaShareProps{QuotaShareName: "team a", Capacity: one}, []string{`QuotaShareName is "team a"`, "letters, digits"}},
		{"six capacity limits are refused", QuotaShareProps{QuotaShareName: "a", Capacity: six}, []string{"Capacity has 6", "1 to 5"}},
		{"no capacity is refused", QuotaShareProps{QuotaShareName: "a"}, []string{"Capacity has 0"}},
		{"an unknown strategy is refused", QuotaShareProps{QuotaShareName: "a", Capacity: one, Strategy: "borrow"}, []string{`Strategy is "borrow"`, "reserve, lend or lend-and-borrow"}},
		{"a borrow limit with lend is refused", QuotaShareProps{QuotaShareName: "a", Capacity: one, Strategy: platform.StrategyLend, BorrowLimitPercent: intp(10)},
			[]string{"BorrowLimitPercent is 10", `"lend"`, "lend-and-borrow"}},
		{"a borrow limit below -1 is refused", QuotaShareProps{QuotaShareName: "a", Capacity: one, BorrowLimitPercent: intp(-2)}, []string{"BorrowLimitPercent is -2", "-1 (unlimited)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, validateQuotaShareProps(&c.props), c.want)
		})
	}
}

type fakeRole struct{ IExecutionRole }

func TestQueuePropsValidation(t *testing.T) {
	cases := []struct {
		name  string
		props *TrainingQueueProps
		want  []string
	}{
		{"a role alone is valid (pools may be added later)", &TrainingQueueProps{ExecutionRole: fakeRole{}}, nil},
		{"no execution role is refused", &TrainingQueueProps{}, []string{"ExecutionRole is nil"}},
		{"a queue priority above 1000 is refused", &TrainingQueueProps{ExecutionRole: fakeRole{}, Priority: intp(1001)}, []string{"Priority is 1001", "0 to 1000"}},
		{"a queue name with a space is refused", &TrainingQueueProps{ExecutionRole: fakeRole{}, JobQueueName: "my queue"}, []string{`JobQueueName is "my queue"`, "letters, digits"}},
		{"a nil pool is refused", &TrainingQueueProps{ExecutionRole: fakeRole{}, ServiceEnvironments: []OrderedServiceEnvironment{{Order: 1}}},
			[]string{"ServiceEnvironments[0].Pool is nil"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, errors.Join(validateQueueProps(c.props)...), c.want)
		})
	}
}

func TestFairSharePolicyValidation(t *testing.T) {
	cases := []struct {
		name   string
		props  FairSharePolicyProps
		shares []FairShare
		want   []string
	}{
		{"weights and a decay within range are valid", FairSharePolicyProps{ShareDecaySeconds: intp(3600)}, []FairShare{{"a", 0.5}, {"b", 2}}, nil},
		{"a share decay above a week is refused", FairSharePolicyProps{ShareDecaySeconds: intp(604801)}, nil, []string{"ShareDecaySeconds is 604801", "0 to 604800"}},
		{"a reservation of 100 is refused", FairSharePolicyProps{ComputeReservation: 100}, nil, []string{"ComputeReservation is 100", "0 to 99"}},
		{"a weight of 1000 is refused", FairSharePolicyProps{}, []FairShare{{"a", 1000}}, []string{"Shares[0].WeightFactor is 1000", "0.0001 to 999.9999"}},
		{"a share identifier with a dash is refused", FairSharePolicyProps{}, []FairShare{{"team-a", 1}}, []string{`Shares[0].ShareIdentifier is "team-a"`, "letters, digits or '_'"}},
		{"a share listed twice is refused", FairSharePolicyProps{}, []FairShare{{"a", 1}, {"a", 2}}, []string{`Shares[1].ShareIdentifier "a" is listed twice`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkErr(t, errors.Join(validateFairShare(&c.props, c.shares)...), c.want)
		})
	}
}

func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("refused: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("accepted, want an error mentioning %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func TestEveryLogRetentionThePlatformAcceptsHasACDKName(t *testing.T) {
	// One rule (which retentions CloudWatch Logs accepts) lives in
	// platform; the constructs only translate it.
	days := platform.LogRetentionDays()
	if len(days) != len(retentions) {
		t.Errorf("platform accepts %d retentions, the constructs translate %d", len(days), len(retentions))
	}
	for _, d := range days {
		if _, ok := retentions[d]; !ok {
			t.Errorf("platform accepts a %d-day retention that the constructs cannot translate", d)
		}
	}
}

func TestQueueAlarmThresholdsDefaultsAndChecks(t *testing.T) {
	classes := []string{"production", "research", "sweep", "batch-inference"}
	got, problems := (*QueueAlarmThresholds)(nil).resolve(classes)
	if len(problems) != 0 {
		t.Errorf("the defaults are refused: %v", problems)
	}
	want := map[string]int{"production": 900, "research": 7200, "sweep": 43200, "batch-inference": 3600}
	for c, w := range want {
		if got.MaxWaitSeconds[c] != w {
			t.Errorf("default MaxWaitSeconds[%s] = %d, want %d", c, got.MaxWaitSeconds[c], w)
		}
	}
	if len(got.FailedJobClasses) != 1 || got.FailedJobClasses[0] != "production" || got.UtilizationTargetPercent != 80 || got.IdleAlarmSeconds != 1800 {
		t.Errorf("defaults %+v, want failed-job alarms for production, 80%%, 1800 s", got)
	}
	none, _ := (&QueueAlarmThresholds{FailedJobClasses: []string{}}).resolve(classes)
	if len(none.FailedJobClasses) != 0 {
		t.Errorf("an empty FailedJobClasses became %v, want none", none.FailedJobClasses)
	}
	_, problems = (&QueueAlarmThresholds{IdleAlarmSeconds: 90, UtilizationTargetPercent: 101, FailedJobClasses: []string{"gold"}}).resolve(classes)
	for _, w := range []string{"IdleAlarmSeconds is 90", "UtilizationTargetPercent is 101", `FailedJobClasses[0] is "gold"`} {
		found := false
		for _, p := range problems {
			found = found || strings.Contains(p, w)
		}
		if !found {
			t.Errorf("problems %q do not mention %q", problems, w)
		}
	}
}

func TestRerouterTimeoutEndsBeforeTheNextRun(t *testing.T) {
	// every minutes → period − 10 s, at most Lambda's 900 s.
	for every, want := range map[int]int{1: 50, 2: 110, 15: 890, 16: 900, 60: 900} {
		if got := rerouterTimeoutSeconds(every); got != want {
			t.Errorf("every %d minutes: timeout %d s, want %d", every, got, want)
		}
		if got := rerouterTimeoutSeconds(every); got >= every*60 {
			t.Errorf("every %d minutes: timeout %d s is not shorter than the period", every, got)
		}
	}
}

func TestRerouterAlarmThresholdsValidation(t *testing.T) {
	cases := []struct {
		name  string
		in    *RerouterAlarmThresholds
		want  RerouterAlarmThresholds
		error string // substring of the one problem; "" when valid
	}{
		{"nil means every default", nil, RerouterAlarmThresholds{RefusedMoves: 3, RefusedWindowSeconds: 900}, ""},
		{"a window of whole minutes is kept", &RerouterAlarmThresholds{RefusedMoves: 1, RefusedWindowSeconds: 3600}, RerouterAlarmThresholds{RefusedMoves: 1, RefusedWindowSeconds: 3600}, ""},
		{"a negative count is refused", &RerouterAlarmThresholds{RefusedMoves: -1}, RerouterAlarmThresholds{RefusedMoves: -1, RefusedWindowSeconds: 900}, "RefusedMoves is -1; want at least 1"},
		{"a window of seconds is refused", &RerouterAlarmThresholds{RefusedWindowSeconds: 330}, RerouterAlarmThresholds{RefusedMoves: 3, RefusedWindowSeconds: 330}, "RefusedWindowSeconds is 330; want whole minutes from 300 to 86400"},
		{"a window over a day is refused", &RerouterAlarmThresholds{RefusedWindowSeconds: 86460}, RerouterAlarmThresholds{RefusedMoves: 3, RefusedWindowSeconds: 86460}, "RefusedWindowSeconds is 86460"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, problems := c.in.resolve()
			if got != c.want {
				t.Errorf("resolved %+v, want %+v", got, c.want)
			}
			switch {
			case c.error == "" && len(problems) > 0:
				t.Errorf("problems %v, want none", problems)
			case c.error != "" && (len(problems) != 1 || !strings.Contains(problems[0], c.error)):
				t.Errorf("problems %v, want one mentioning %q", problems, c.error)
			}
		})
	}
}
