package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanSaysWhatADeploymentWouldDo synthesizes the default platform and
// three changes of it with the CDK app (built once here, run as trainq plan
// runs it, in its own process) and plans each against the default:
//   - a new class adds its aliases and alarms and replaces nothing;
//   - a renamed team replaces its quota share (its logical id changes),
//     which ends the share's jobs (DeleteQuotaShare);
//   - fair share in place of quota shares is refused (a scheduling
//     policy's kind is permanent: UpdateSchedulingPolicy);
//   - the same platform again changes nothing.
func TestPlanSaysWhatADeploymentWouldDo(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes four platforms")
	}
	dir := t.TempDir()
	cdk := filepath.Join(dir, "cdk")
	build := exec.Command("go", "build", "-o", cdk, "./bin/cdk")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./bin/cdk: %v\n%s", err, out)
	}
	b, err := os.ReadFile("../../platform/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := string(b)
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	added := write("added.yaml", strings.Replace(def, "teams:\n", "  - name: inference\n    priority: {min: 300, max: 399}\n    maxRuntimeSeconds: 86400\nteams:\n", 1))
	renamed := write("renamed.yaml", strings.ReplaceAll(def, "search-research", "search-lab"))
	fair := write("fairshare.yaml", strings.Replace(def[:strings.Index(def, "teams:\n")], "mode: quota", "mode: fairshare", 1)+
		"teams:\n  - {name: search_ranking, weight: 1}\n  - {name: search_research, weight: 1}\n")
	same := write("same.yaml", def)

	// The default's template, synthesized once here and read by trainq
	// plan as a template; the other side is a platform file, which trainq
	// plan synthesizes with --app.
	old := filepath.Join(dir, "old.template.json")
	synth := exec.Command(cdk)
	synth.Dir = filepath.Join("..", "..")
	synth.Env = append(os.Environ(), "CDK_OUTDIR="+filepath.Join(dir, "out"))
	if out, err := synth.CombinedOutput(); err != nil {
		t.Fatalf("synthesize the default: %v\n%s", err, out)
	}
	if err := os.Rename(filepath.Join(dir, "out", "Trainq-trainq.template.json"), old); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Unchanged int
		Changes   []struct{ LogicalID, Type, Action, Why, Effect string }
	}
	plan := func(next string) (result, []struct{ LogicalID, Type, Action, Why, Effect string }) {
		t.Helper()
		r, _ := trainqIn(t, nil, nil, "plan", "--app", cdk, "--output", "json", old, next)
		rep.Changes = nil
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("plan %s: exit %d: %v\n%s", next, r.code, err, r.stderr)
		}
		return r, rep.Changes
	}

	r, changes := plan(same)
	if r.code != 0 || len(changes) != 0 || rep.Unchanged < 50 || !strings.Contains(r.stdout, `"unchanged"`) {
		t.Errorf("the same platform: exit %d, changes %+v, %d unchanged: want none of all", r.code, changes, rep.Unchanged)
	}

	r, changes = plan(added)
	byType := map[string]int{}
	for _, c := range changes {
		// The submission function bundles the platform file: a new
		// version of it is published (a replacement of no consequence).
		if c.Action != "add" && c.Action != "update" && !(c.Action == "replace" && c.Type == "AWS::Lambda::Version") {
			t.Errorf("a new class: %s %s (%s): want only additions and updates", c.Action, c.LogicalID, c.Why)
		}
		if c.Action == "add" {
			byType[c.Type]++
		}
	}
	// One alias per (class, team): inference × 2 teams.
	if r.code != 0 || byType["AWS::Lambda::Alias"] != 2 {
		t.Errorf("a new class: exit %d, additions by type %v: want 2 aliases", r.code, byType)
	}

	r, changes = plan(renamed)
	if r.code != 0 || len(changes) == 0 || changes[0].Type != "AWS::Batch::QuotaShare" || changes[0].Action != "replace" ||
		!strings.Contains(changes[0].Effect, "All jobs in the share are eventually terminated") {
		t.Errorf("a renamed team: exit %d, first change %+v: want its quota share replaced first, with what it does to its jobs", r.code, changes)
	}

	// Refused, riskiest first, in the table form.
	r, _ = trainqIn(t, nil, nil, "plan", "--app", cdk, old, fair)
	if r.code != 1 || !strings.Contains(r.stdout, "refused by AWS") || !strings.Contains(r.stderr, "AWS would refuse") ||
		!strings.HasPrefix(strings.SplitN(r.stdout, "\n\n", 3)[1], "REFUSED  QueueSchedulingPolicy") ||
		!strings.Contains(r.stdout, "from quota share to fair share") {
		t.Errorf("fair share in place of quota shares: exit %d, stderr %q, stdout:\n%s\nwant the scheduling policy refused first", r.code, r.stderr, r.stdout)
	}
}
