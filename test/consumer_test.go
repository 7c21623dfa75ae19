package test

import (
	"debug/elf"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
)

// consumerModule is a copy of examples/consumer, another team's module,
// pointed at this checkout and tidied: exactly what that team does, and
// nothing else.
type consumerModule struct {
	dir      string
	checkout string
}

// copyConsumer copies examples/consumer into a temporary folder, replaces
// github.com/trainq/trainq by this checkout and runs go mod tidy.
func copyConsumer(t *testing.T) consumerModule {
	t.Helper()
	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(checkout, "examples", "consumer")
	dir := filepath.Join(t.TempDir(), "vision-infra")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			if d.Name() == "cdk.out" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if rel == "go.sum" {
			return nil // the team's go.sum comes from go mod tidy
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	m := consumerModule{dir: dir, checkout: checkout}
	m.goCmd(t, "mod", "edit", "-replace", "github.com/trainq/trainq="+checkout)
	m.goCmd(t, "mod", "tidy")
	return m
}

func (m consumerModule) goCmd(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s in the consumer module: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// synthIn runs the app binary with working directory wd and returns its
// output directory.
func synthIn(t *testing.T, app, wd string, env ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cdk.out")
	cmd := exec.Command(app)
	cmd.Dir = wd
	cmd.Env = append(append(os.Environ(), "CDK_OUTDIR="+out, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20"), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("synthesize the consumer app: %v\n%s", err, b)
	}
	return out
}

// TestConsumerModuleSynthesizesWithTrainqsFunctions builds another team's
// module — whose go.sum lacks every dependency of trainq's functions — and
// runs its app binary from a folder outside any module: the functions must
// come from trainq's own module, whatever the app's module graph and
// working directory.
func TestConsumerModuleSynthesizesWithTrainqsFunctions(t *testing.T) {
	m := copyConsumer(t)
	sum, err := os.ReadFile(filepath.Join(m.dir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sum), "github.com/aws/aws-lambda-go ") {
		t.Fatalf("the consumer's go.sum lists aws-lambda-go: the test would not show that the functions build without it")
	}
	bin := t.TempDir()
	cases := []struct {
		name  string
		flags []string
	}{
		// The binary records where trainq's source is.
		{"a prebuilt app binary run from another folder", nil},
		// No recorded source: the replace directive of the build
		// information says where.
		{"an app binary built with -trimpath run from another folder", []string{"-trimpath"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app := filepath.Join(bin, "vision-infra-"+string(rune('a'+i)))
			m.goCmd(t, append(append([]string{"build"}, c.flags...), "-o", app, ".")...)
			out := synthIn(t, app, t.TempDir())
			checkConsumerAssembly(t, out)
			if i == 0 {
				checkConsumerGrants(t, filepath.Join(out, "VisionTraining.template.json"))
			}
		})
	}
}

// TestConsumerModuleSynthesizesThroughTheCDKCLI runs `cdk synth` in the
// consumer module with its cdk.json ("go run ."), when the CDK CLI is
// installed under .tools (as CI installs it).
func TestConsumerModuleSynthesizesThroughTheCDKCLI(t *testing.T) {
	checkout, _ := filepath.Abs("..")
	cdk := filepath.Join(checkout, ".tools", "cdk", "node_modules", ".bin", "cdk")
	if _, err := os.Stat(cdk); err != nil {
		t.Skipf("no CDK CLI at %s (tools/cdk/cdk installs the pinned one)", cdk)
	}
	m := copyConsumer(t)
	out := filepath.Join(t.TempDir(), "cdk.out")
	cmd := exec.Command(cdk, "synth", "--quiet", "--output", out)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cdk synth in the consumer module: %v\n%s", err, b)
	}
	checkConsumerAssembly(t, out)
}

// checkConsumerAssembly checks what the vision team's stack must hold.
func checkConsumerAssembly(t *testing.T, out string) {
	t.Helper()
	path := filepath.Join(out, "VisionTraining.template.json")
	tpl := readTemplate(t, path)
	_, queue := tpl.one(t, "AWS::Batch::JobQueue")
	if got := get(queue.Properties, "ServiceEnvironmentOrder.0.ServiceEnvironment"); got != "arn:aws:batch:us-east-1:123456789012:service-environment/vision-gpu-pool" {
		t.Errorf("the queue runs on %v, want the imported pool", got)
	}
	if n := len(tpl.ofType("AWS::Batch::ServiceEnvironment")); n != 0 {
		t.Errorf("the team's stack creates %d service environments; it must use the imported pool", n)
	}
	if n := len(tpl.ofType("AWS::Batch::QuotaShare")); n != 2 {
		t.Errorf("%d quota shares, want the team's 2", n)
	}
	// Every function's asset holds an arm64 bootstrap and the platform file.
	fns := tpl.ofType("AWS::Lambda::Function")
	if len(fns) != 4 {
		t.Errorf("%d functions, want the submitter, the observer, the poller and the re-router", len(fns))
	}
	for _, id := range fns {
		key, _ := get(tpl.Resources[id].Properties, "Code.S3Key").(string)
		asset := filepath.Join(out, "asset."+strings.TrimSuffix(key, ".zip"))
		f, err := elf.Open(filepath.Join(asset, "bootstrap"))
		if err != nil {
			t.Errorf("%s: no bootstrap binary in %s: %v", id, asset, err)
			continue
		}
		if f.Machine != elf.EM_AARCH64 {
			t.Errorf("%s: bootstrap built for %v, want arm64", id, f.Machine)
		}
		f.Close()
		var p struct{ Name string }
		data, err := os.ReadFile(filepath.Join(asset, contract.PlatformFileName))
		if err == nil {
			err = json.Unmarshal(data, &p)
		}
		if err != nil || p.Name != "vision" {
			t.Errorf("%s: platform file %s: %v (name %q), want the vision platform", id, contract.PlatformFileName, err, p.Name)
		}
	}
	// Alarms notify the team's own topic, and there is no topic of trainq's.
	topics := tpl.ofType("AWS::SNS::Topic")
	if len(topics) != 1 {
		t.Fatalf("%d topics, want the team's on-call topic only", len(topics))
	}
	alarms := tpl.ofType("AWS::CloudWatch::Alarm")
	if len(alarms) == 0 {
		t.Errorf("no alarms")
	}
	for _, id := range alarms {
		if got := tpl.Resources[id].Properties["AlarmActions"]; !jsonEqual(got, []any{ref(topics[0])}) {
			t.Errorf("alarm %s notifies %v, want the team's topic", id, got)
		}
	}
	if n := len(tpl.ofType("AWS::CloudWatch::Dashboard")); n != 1 {
		t.Errorf("%d dashboards, want 1", n)
	}
	cfnLint(t, "vision-infra", mustRead(t, path))
}

// checkConsumerGrants asks the IAM evaluator what the team's pipeline role
// may do: submit research jobs for detection through that pair's alias,
// nothing else.
func checkConsumerGrants(t *testing.T, path string) {
	t.Helper()
	d := deploy(t, path)
	pipeline := d.roleARN(t, "Pipeline")
	fn := arn("lambda", "function:vision-submit")
	d.decide(t, []iamRequest{
		{name: "the vision pipeline submits research jobs for detection", principal: pipeline, action: "lambda:InvokeFunction", resource: fn + ":research-detection", want: allowed, cite: citeLambdaInvoke},
		{name: "the vision pipeline cannot submit research jobs for segmentation", principal: pipeline, action: "lambda:InvokeFunction", resource: fn + ":research-segmentation", want: denied, cite: citeLambdaInvoke},
		{name: "the vision pipeline cannot submit production jobs", principal: pipeline, action: "lambda:InvokeFunction", resource: fn + ":production-detection", want: denied, cite: citeLambdaInvoke},
		{name: "the vision pipeline cannot invoke the function unqualified", principal: pipeline, action: "lambda:InvokeFunction", resource: fn, want: denied, cite: citeLambdaInvoke},
		{name: "the vision pipeline cannot invoke the re-router", principal: pipeline, action: "lambda:InvokeFunction", resource: arn("lambda", "function:vision-rerouter"), want: denied, cite: citeLambdaInvoke},
		{name: "the vision pipeline cannot submit to Batch directly", principal: pipeline, action: "batch:SubmitServiceJob", resource: arn("batch", "job-queue/vision-training"), want: denied, cite: citeBatchActions},
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
