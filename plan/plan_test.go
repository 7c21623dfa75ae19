package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCreateOnlyMatchesTheSchemas: the embedded create-only properties are
// the vendored registry schemas', type for type.
func TestCreateOnlyMatchesTheSchemas(t *testing.T) {
	files, err := filepath.Glob("../test/testdata/cfn-schemas/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			TypeName             string   `json:"typeName"`
			CreateOnlyProperties []string `json:"createOnlyProperties"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, ok := createOnly[s.TypeName]
		if !ok || !slices.Equal(got, append([]string{}, s.CreateOnlyProperties...)) && !(len(got) == 0 && len(s.CreateOnlyProperties) == 0) {
			t.Errorf("%s: embedded %v, schema %v: regenerate plan/createonly.go", s.TypeName, got, s.CreateOnlyProperties)
		}
		seen++
	}
	if seen != len(createOnly) {
		t.Errorf("%d schemas, %d embedded types", seen, len(createOnly))
	}
}

// tmpl builds a template from "LogicalId": {Type, Properties} JSON.
func tmpl(t *testing.T, resources string) *Template {
	t.Helper()
	tp, err := ParseTemplate([]byte(`{"Resources": {` + resources + `}}`))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

const (
	pool   = `"Pool": {"Type": "AWS::Batch::ServiceEnvironment", "Properties": {"ServiceEnvironmentType": "SAGEMAKER_TRAINING", "CapacityLimits": [{"MaxCapacity": 40, "CapacityUnit": "ml.p5.48xlarge"}]}}`
	queue  = `"Queue": {"Type": "AWS::Batch::JobQueue", "Properties": {"JobQueueType": "SAGEMAKER_TRAINING", "Priority": 1, "SchedulingPolicyArn": {"Ref": "Policy"}, "ServiceEnvironmentOrder": [{"Order": 1, "ServiceEnvironment": {"Ref": "Pool"}}]}}`
	quota  = `"Policy": {"Type": "AWS::Batch::SchedulingPolicy", "Properties": {"QuotaSharePolicy": {"IdleResourceAssignmentStrategy": "FIFO"}}}`
	fair   = `"Policy": {"Type": "AWS::Batch::SchedulingPolicy", "Properties": {"FairsharePolicy": {"ShareDecaySeconds": 3600}}}`
	shareA = `"ShareA": {"Type": "AWS::Batch::QuotaShare", "Properties": {"QuotaShareName": "a", "JobQueue": {"Ref": "Queue"}, "CapacityLimits": [{"MaxCapacity": 24, "CapacityUnit": "ml.p5.48xlarge"}]}}`
)

func actions(p *Plan) map[string]Action {
	out := map[string]Action{}
	for _, c := range p.Changes {
		out[c.LogicalID] = c.Action
	}
	return out
}

func TestNothingChanges(t *testing.T) {
	p := Diff(tmpl(t, pool+","+queue+","+quota+","+shareA), tmpl(t, pool+","+queue+","+quota+","+shareA))
	if len(p.Changes) != 0 || p.Unchanged != 4 || p.Refuses() {
		t.Errorf("changes %+v, unchanged %d: want none of 4", p.Changes, p.Unchanged)
	}
}

func TestAShareAddedAndACapacityUpdated(t *testing.T) {
	shareB := `"ShareB": {"Type": "AWS::Batch::QuotaShare", "Properties": {"QuotaShareName": "b", "JobQueue": {"Ref": "Queue"}}}`
	bigger := strings.Replace(shareA, "24", "30", 1)
	p := Diff(tmpl(t, pool+","+queue+","+quota+","+shareA), tmpl(t, pool+","+queue+","+quota+","+bigger+","+shareB))
	want := map[string]Action{"ShareA": Update, "ShareB": Add}
	if got := actions(p); !maps(got, want) || p.Unchanged != 3 {
		t.Errorf("actions %v, unchanged %d: want %v and 3", got, p.Unchanged, want)
	}
	if p.Changes[0].LogicalID != "ShareA" || !slices.Equal(p.Changes[0].Properties, []string{"CapacityLimits"}) {
		t.Errorf("first change %+v: want ShareA's CapacityLimits updated in place, before the addition", p.Changes[0])
	}
}

// TestAReplacedQueueReplacesItsShares: JobQueueType is create-only, so the
// queue is replaced; a share's JobQueue (create-only) refers to it, so each
// share is replaced too, and both end their jobs (DeleteJobQueue,
// DeleteQuotaShare). The queue has no custom name: CloudFormation may
// replace it. The share has one ("a") which stays: refused.
func TestAReplacedQueueReplacesItsShares(t *testing.T) {
	other := strings.Replace(queue, `"JobQueueType": "SAGEMAKER_TRAINING"`, `"JobQueueType": "ECS"`, 1)
	p := Diff(tmpl(t, pool+","+queue+","+quota+","+shareA), tmpl(t, pool+","+other+","+quota+","+shareA))
	got := actions(p)
	if got["Queue"] != Replace || got["ShareA"] != Refused {
		t.Fatalf("actions %v: want Queue replaced, ShareA refused (replaced, keeping its name)", got)
	}
	if p.Changes[0].LogicalID != "ShareA" || !strings.Contains(p.Changes[0].Why, `QuotaShareName "a" stays`) {
		t.Errorf("first: %+v", p.Changes[0])
	}
	q := p.Changes[1]
	if q.LogicalID != "Queue" || !strings.Contains(q.Why, "JobQueueType") || !strings.Contains(q.Effect, "eventually terminated") {
		t.Errorf("second: %+v: want the queue, its create-only JobQueueType and what happens to its jobs", q)
	}
	// With a new name for the share, the replacement goes through.
	renamed := strings.Replace(shareA, `"QuotaShareName": "a"`, `"QuotaShareName": "a2"`, 1)
	p = Diff(tmpl(t, pool+","+queue+","+quota+","+shareA), tmpl(t, pool+","+other+","+quota+","+renamed))
	if got := actions(p); got["ShareA"] != Replace || p.Refuses() {
		t.Errorf("renamed share: %v", got)
	}
}

// TestASchedulingPolicysKindIsRefused: quota share to fair share on the
// same policy is refused by UpdateSchedulingPolicy.
func TestASchedulingPolicysKindIsRefused(t *testing.T) {
	p := Diff(tmpl(t, pool+","+queue+","+quota), tmpl(t, pool+","+queue+","+fair))
	if !p.Refuses() || p.Changes[0].LogicalID != "Policy" || !strings.Contains(p.Changes[0].Why, "from quota share to fair share") {
		t.Errorf("changes %+v: want the policy refused first", p.Changes)
	}
}

// TestARenamedShareIsReplaced: a share whose logical id changes (its team
// renamed) is one replacement, which ends its jobs.
func TestARenamedShareIsReplaced(t *testing.T) {
	renamed := strings.Replace(strings.Replace(shareA, `"ShareA"`, `"ShareLab"`, 1), `"a"`, `"lab"`, 1)
	p := Diff(tmpl(t, pool+","+queue+","+quota+","+shareA), tmpl(t, pool+","+queue+","+quota+","+renamed))
	if len(p.Changes) != 1 || p.Changes[0].LogicalID != "ShareLab" || p.Changes[0].Action != Replace ||
		!strings.Contains(p.Changes[0].Why, "from ShareA") || !strings.Contains(p.Changes[0].Effect, "eventually terminated") || p.Unchanged != 3 {
		t.Errorf("changes %+v, unchanged %d", p.Changes, p.Unchanged)
	}
}

func TestADeletedShareEndsItsJobs(t *testing.T) {
	p := Diff(tmpl(t, pool+","+queue+","+quota+","+shareA), tmpl(t, pool+","+queue+","+quota))
	if got := actions(p); got["ShareA"] != Delete || !strings.Contains(p.Changes[0].Effect, "All jobs in the share are eventually terminated") {
		t.Errorf("changes %+v", p.Changes)
	}
}

func maps(a, b map[string]Action) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
