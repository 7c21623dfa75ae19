package reroute_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/reroute"
)

// TestInvokeThroughTheLambdaLibrary runs a scheduled event (testdata) and
// payloads that are no event at all through the Lambda library's decode
// and encode path: the payload is ignored, the answer is the summary.
func TestInvokeThroughTheLambdaLibrary(t *testing.T) {
	event, err := os.ReadFile("testdata/scheduled-event.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, payload := range [][]byte{event, []byte(`null`), []byte(`"not an event"`), []byte(`[1,2,3]`)} {
		e := newEnv(t, nil)
		e.use(saturatedP5)
		e.add(spec{class: "research", team: "alpha", priority: 550, it: p5, waited: time.Hour})
		out, err := lambda.NewHandler(e.r.Handle).Invoke(context.Background(), payload)
		if err != nil {
			t.Fatalf("payload %s: %v", payload, err)
		}
		var got reroute.Summary
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(reroute.Summary{Moved: 1}, got); diff != "" {
			t.Errorf("payload %s (-want +got):\n%s", payload, diff)
		}
	}
}

// TestFairShareMode: on a fair-share queue the room of a type is the
// pool's free instances (p5 8 − 8 = 0, p4d 8 − 0 = 8), and the
// replacement keeps its shareIdentifier.
func TestFairShareMode(t *testing.T) {
	p := testPlatform(t)
	p.Scheduling.Mode = "fairshare"
	e := newEnv(t, p)
	e.fake.SetUsed(map[string]float64{p5: 8})
	team := "alpha"
	old := e.fake.Add(jobWithShareIdentifier(team))
	if got := e.run(t); got.Moved != 1 {
		t.Fatalf("summary %+v, want 1 moved", got)
	}
	s := e.submitted(t)[0]
	if s.ShareIdentifier == nil || *s.ShareIdentifier != team || s.QuotaShareName != nil || s.Tags[contract.TagReroutedFrom] != old.ID {
		t.Errorf("replacement share %v / quota share %v, want shareIdentifier %s only", s.ShareIdentifier, s.QuotaShareName, team)
	}
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "platform.json")
	if err := os.WriteFile(bad, []byte(`{"pools": "many"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{contract.EnvPlatformFile: bad, contract.EnvJobQueue: "not-an-arn"}
	_, err := reroute.LoadSettings(func(k string) string { return env[k] }, filepath.Join(dir, "bootstrap"))
	if err == nil {
		t.Fatal("a bad platform file and queue were accepted")
	}
	for _, want := range []string{bad, contract.EnvJobQueue, "not-an-arn"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	env = map[string]string{contract.EnvPlatformFile: "testdata/platform.yaml", contract.EnvJobQueue: testQueue}
	s, err := reroute.LoadSettings(func(k string) string { return env[k] }, filepath.Join(dir, "bootstrap"))
	if err != nil || s.Platform.Name != "trainq" || s.JobQueue != testQueue {
		t.Errorf("settings %+v, %v", s, err)
	}
}
