package submitter_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/lambdatest"
	"github.com/trainq/trainq/internal/ststest"
)

// powerUser is a same-account role whose own policy allows lambda:* on *
// (PowerUserAccess): IAM lets it invoke the function through any qualifier.
// The platform grants it nothing.
var powerUser = ststest.Session("arn:aws:iam::"+ststest.Account+":role/power-user", "mallory")

// TestIdentityUnderTheEmulator runs the real bootstrap as the unqualified
// function, $LATEST, a version and an alias, and checks that only a request
// signed by a granted role creates a job: a plain invocation, a forged
// function-URL event, a badly signed request and a role granted nothing
// reach no Batch call.
func TestIdentityUnderTheEmulator(t *testing.T) {
	sts.Add(powerUser)
	request := fixture(t, "submit-minimal.json") // research, search-ranking
	for _, name := range []string{"trainq-submit", "trainq-submit:$LATEST", "trainq-submit:1", "trainq-submit:research-search-ranking"} {
		t.Run(name, func(t *testing.T) {
			fake := batchtest.New(0)
			defer fake.Close()
			e := start(t, fake, name)
			granted := invoke(t, e, request)
			if granted.ErrorType != "" {
				t.Fatalf("the granted caller: %s %s", granted.ErrorType, granted.ErrorMessage)
			}
			jobs := len(fake.Jobs())
			badly := sts.Sign(t, ststest.Principal{AccessKey: powerUser.AccessKey, Secret: "not-the-secret", SessionToken: powerUser.SessionToken}, name, request)
			forged := `{"version":"2.0","requestContext":{"authorizer":{"iam":{"userArn":"arn:aws:sts::123456789012:assumed-role/trainq-operator/x"}}},"body":` + quote(string(request)) + `}`
			for what, payload := range map[string][]byte{
				"a plain invocation":            request,
				"a forged function URL event":   []byte(forged),
				"a badly signed request":        badly,
				"a role granted nothing":        sts.Sign(t, powerUser, name, request),
				"a granted proof over an other": replace(t, sts.Sign(t, sts.CallerOf(qualifier(name)), name, request), "search-ranking", "search-research"),
			} {
				a := invokeRaw(t, e, payload)
				if a.ErrorType != "Forbidden" {
					t.Errorf("%s: %s %s, want Forbidden", what, a.ErrorType, a.ErrorMessage)
				}
			}
			if n := len(fake.Jobs()); n != jobs {
				t.Errorf("%d jobs created without a granted identity", n-jobs)
			}
		})
	}
	t.Run("operators act platform-wide only when declared", func(t *testing.T) {
		fake := batchtest.New(0)
		defer fake.Close()
		grants, _ := json.Marshal(contract.Grants{}) // nobody
		e := start(t, fake, "trainq-submit", contract.EnvGrants+"="+string(grants))
		if a := invoke(t, e, request); a.ErrorType != "Forbidden" {
			t.Errorf("an undeclared operator: %s %s, want Forbidden", a.ErrorType, a.ErrorMessage)
		}
		if n := len(fake.Jobs()); n != 0 {
			t.Errorf("%d jobs created by an undeclared operator", n)
		}
	})
}

// TestPythonPipelineSignsWithBotocore runs examples/signed_invoke.py (the
// pipelines' migration path) with botocore's own SigV4 signer against the
// function under the emulator: the loopback STS checks botocore's signature
// exactly as it checks the CLI's.
func TestPythonPipelineSignsWithBotocore(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 with botocore is needed (preinstalled on trainq's CI images)")
	}
	fake := batchtest.New(0)
	defer fake.Close()
	// The emulator's path names the function "function": it runs as that.
	e := start(t, fake, "function")
	file := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(file, fixture(t, "submit-minimal.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(keys ststest.Principal) (string, error) {
		cmd := exec.Command("python3", filepath.Join("..", "..", "examples", "signed_invoke.py"), "function", file)
		cmd.Env = lambdatest.Env("AWS_ENDPOINT_URL_LAMBDA="+e.URL, "AWS_ENDPOINT_URL_STS="+sts.URL,
			"AWS_ACCESS_KEY_ID="+keys.AccessKey, "AWS_SECRET_ACCESS_KEY="+keys.Secret, "AWS_SESSION_TOKEN="+keys.SessionToken,
			"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(sts.CallerOf(""))
	if err != nil {
		t.Fatalf("signed_invoke.py as the operator: %v\n%s", err, out)
	}
	var resp contract.Response
	if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.JobID == "" || len(fake.Jobs()) != 1 {
		t.Fatalf("answer %s (%v), %d jobs: want the job created", out, err, len(fake.Jobs()))
	}
	out, err = run(powerUser)
	if err == nil || !strings.Contains(out, "Forbidden") || len(fake.Jobs()) != 1 {
		t.Errorf("signed_invoke.py as a role granted nothing: %v %s, %d jobs; want Forbidden and no new job", err, out, len(fake.Jobs()))
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func qualifier(name string) string { _, q, _ := strings.Cut(name, ":"); return q }

// replace changes the signed request's text, keeping its proof.
func replace(t *testing.T, payload []byte, old, new string) []byte {
	t.Helper()
	var s contract.Signed
	if err := json.Unmarshal(payload, &s); err != nil {
		t.Fatal(err)
	}
	s.Request = strings.Replace(s.Request, old, new, 1)
	b, _ := json.Marshal(s)
	return b
}
