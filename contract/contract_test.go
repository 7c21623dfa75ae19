package contract_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
)

func TestPlatformFile(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"an explicit file wins", map[string]string{"TRAINQ_PLATFORM_FILE": "/etc/trainq.yaml", "LAMBDA_TASK_ROOT": "/var/task"}, "/etc/trainq.yaml"},
		{"in Lambda the file sits in the task root", map[string]string{"LAMBDA_TASK_ROOT": "/var/task"}, "/var/task/platform.json"},
		{"elsewhere the file sits next to the executable", map[string]string{}, "/opt/trainq/platform.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := contract.PlatformFile(func(k string) string { return tt.env[k] }, "/opt/trainq/bootstrap")
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCancelReasonSaysWho: the status reason names the alias that
// cancelled the job.
func TestCancelReasonSaysWho(t *testing.T) {
	if got, want := contract.CancelReason(contract.ChangedBy("research-alpha"), ""), "trainq: cancelled by alias research-alpha: through trainq"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := contract.CancelReason(contract.ChangedBy(""), "oops"), "trainq: cancelled by operator: oops"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCancelReason(t *testing.T) {
	tests := []struct {
		name, reason, want string
	}{
		{"a given reason follows the prefix", "wrong dataset", "trainq: cancelled: wrong dataset"},
		{"no reason gives the default", "", "trainq: cancelled: through trainq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contract.CancelReason("", tt.reason); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKindsListsEveryKindOnce(t *testing.T) {
	want := []contract.Kind{"ValidationError", "Forbidden", "Throttled", "UpstreamError", "OverBudget"}
	if diff := cmp.Diff(want, contract.Kinds()); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	var mistakes []contract.Kind
	for _, k := range contract.Kinds() {
		if k.CallersMistake() {
			mistakes = append(mistakes, k)
		}
	}
	// A budget's refusal is the team's to plan for (or its lead's to raise
	// the budget), not on-call's.
	if diff := cmp.Diff([]contract.Kind{contract.KindValidation, contract.KindForbidden, contract.KindOverBudget}, mistakes); diff != "" {
		t.Errorf("callers' mistakes (-want +got):\n%s", diff)
	}
}

// TestTrainqTagsAreReserved: every tag trainq sets starts with the prefix
// callers may not use. (MaxCallerTags and MaxJobNameLength are derived from
// Batch's limits in package batchrules; submit's tests check the sums.)
func TestTrainqTagsAreReserved(t *testing.T) {
	for _, tag := range contract.Tags() {
		if !strings.HasPrefix(tag, contract.TagPrefix) {
			t.Errorf("tag %q does not start with %q", tag, contract.TagPrefix)
		}
	}
}

func TestDecodeRequestNamesEveryMistake(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"a well-formed request has no problem", `{"jobName":"a","team":"t","priority":3,"trainingJob":{}}`, nil},
		{"an unknown field is named", `{"jobname":"a"}`, []string{"jobname"}},
		{"a value of the wrong type is named", `{"priority":"high","tags":[1]}`, []string{"priority", "tags"}},
		{"a training job that is no object is named", `{"trainingJob":"x"}`, []string{"trainingJob"}},
		{"null means no value", `{"priority":null}`, nil},
		{"a list is no request", `[1]`, []string{"request"}},
		{"member names are case-sensitive", `{"JobName":"a"}`, []string{"JobName"}},
		{"a repeated member is refused", `{"jobName":"a","jobName":"b"}`, []string{"jobName"}},
		{"a repeated member of the training job is refused", `{"trainingJob":{"RoleArn":"a","RoleArn":"b"}}`, []string{"trainingJob.RoleArn"}},
		{"deep nesting is named, not called not JSON", `{"trainingJob":{"HyperParameters":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`, []string{"trainingJob.HyperParameters" + strings.Repeat("[0]", 30)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := contract.DecodeRequest([]byte(tt.data))
			for _, p := range ps {
				if strings.Contains(p.Value, "not JSON") {
					t.Errorf("%s: got %s, want %s: well-formed JSON called not JSON", p.Field, p.Value, p.Allowed)
				}
			}
			var got []string
			for _, p := range ps {
				got = append(got, p.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields with problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContractImportsNoAWSLibrary keeps contract importable from the CLI,
// the constructs and the functions alike.
func TestContractImportsNoAWSLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/trainq/trainq/contract").Output()
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{"github.com/trainq/trainq/platform": true, "github.com/trainq/trainq/batchrules": true}
	for _, imp := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(imp, "github.com/trainq/trainq/") && !ours[imp]:
			t.Errorf("contract imports %s; it may import platform and batchrules only of trainq", imp)
		case strings.Contains(imp, "."):
			if !strings.HasPrefix(imp, "github.com/trainq/trainq/") {
				t.Errorf("contract imports %s; it imports the standard library, platform and batchrules only", imp)
			}
		}
	}
}

// TestReroutedReasonReadsBack: the reason the re-router gives an old job
// names its replacement and type, and reads back to both; other reasons
// (a cancel, an abandoned replacement, Batch's own) give nothing.
func TestReroutedReasonReadsBack(t *testing.T) {
	const id, it = "00000009-0000-4000-8000-000000000009", "ml.p4d.24xlarge"
	r := contract.ReroutedReason(id, it)
	if want := "trainq: rerouted to 00000009-0000-4000-8000-000000000009 on ml.p4d.24xlarge"; r != want {
		t.Errorf("ReroutedReason = %q, want %q", r, want)
	}
	if gotID, gotType, ok := contract.ParseReroutedReason(r); !ok || gotID != id || gotType != it {
		t.Errorf("ParseReroutedReason(%q) = %q, %q, %v", r, gotID, gotType, ok)
	}
	for _, other := range []string{contract.CancelReason("alice", "done"), contract.RerouteAbandonedReason(id, "RUNNING"), "Essential container in task exited", contract.ReroutedReasonPrefix} {
		if _, _, ok := contract.ParseReroutedReason(other); ok {
			t.Errorf("ParseReroutedReason(%q) read a move", other)
		}
	}
}
