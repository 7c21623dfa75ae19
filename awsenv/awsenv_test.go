package awsenv_test

import (
	"context"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/trainq/trainq/awsenv"
	"github.com/trainq/trainq/internal/deptest"
	"github.com/trainq/trainq/ledger/dynamo"
)

// server records the requests it is sent, by the name given to it, and
// answers each with an empty JSON object.
type server struct {
	name string
	mu   sync.Mutex
	got  []*http.Request
	*httptest.Server
}

func newServer(t *testing.T, name string) *server {
	s := &server{name: name}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.got = append(s.got, r)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		// DynamoDB's answers carry their CRC32, which its client checks.
		w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(`{}`))), 10))
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// calls is what one Batch call and one DynamoDB call made with cfg reached,
// the latter by the SDK's client and by the ledger's (package dynamo):
// for each, the server's name and the request's Authorization and
// X-Amz-Security-Token headers (the credential scope names the access key,
// date, region and service: AWS Signature Version 4,
// https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
func calls(t *testing.T, cfg aws.Config, servers ...*server) []string {
	t.Helper()
	for _, s := range servers {
		s.mu.Lock()
		s.got = nil
		s.mu.Unlock()
	}
	ctx := context.Background()
	var out []string
	call := func(service string, do func() error) {
		err := do()
		reached := "nowhere"
		var r *http.Request
		for _, s := range servers {
			s.mu.Lock()
			if len(s.got) > 0 {
				reached, r = s.name, s.got[0]
			}
			s.mu.Unlock()
		}
		if r == nil {
			out = append(out, service+" reached nowhere: "+errString(err))
			return
		}
		auth := r.Header.Get("Authorization")
		if i := strings.Index(auth, "Credential="); i >= 0 {
			auth = auth[i:]
			if j := strings.Index(auth, ","); j >= 0 {
				auth = auth[:j]
			}
			// Credential=KEY/DATE/REGION/SERVICE/aws4_request: the date is today's.
			parts := strings.Split(auth, "/")
			if len(parts) == 5 {
				parts[1] = "DATE"
			}
			auth = strings.Join(parts, "/")
		}
		out = append(out, service+" reached "+reached+" "+auth+" token="+r.Header.Get("X-Amz-Security-Token"))
		for _, s := range servers {
			s.mu.Lock()
			s.got = nil
			s.mu.Unlock()
		}
	}
	call("batch", func() error {
		_, err := batch.NewFromConfig(cfg, func(o *batch.Options) { o.RetryMaxAttempts = 1 }).DescribeJobQueues(ctx, &batch.DescribeJobQueuesInput{})
		return err
	})
	call("dynamodb", func() error {
		_, err := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }).ListTables(ctx, &dynamodb.ListTablesInput{})
		return err
	})
	// The functions' DynamoDB client (the ledger's), which must reach what
	// the SDK's reaches.
	call("ledger", func() error {
		c, err := dynamo.New(cfg)
		if err != nil {
			return err
		}
		_, err = c.GetItem(ctx, &dynamo.GetItemInput{TableName: "t", Key: dynamo.Item{"k": dynamo.S("v")}})
		return err
	})
	return out
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// setenv sets exactly env among the variables either loader reads, with no
// shared config or credentials file, and returns os.Environ().
func setenv(t *testing.T, env map[string]string) []string {
	t.Helper()
	for _, k := range []string{awsenv.Region, awsenv.DefaultRegion, awsenv.AccessKeyID, "AWS_ACCESS_KEY", awsenv.SecretAccessKey,
		"AWS_SECRET_KEY", awsenv.SessionToken, awsenv.AccountID, awsenv.EndpointURL, awsenv.IgnoreConfiguredEndpoints,
		"AWS_ENDPOINT_URL_BATCH", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_PROFILE", "AWS_CA_BUNDLE", "AWS_WEB_IDENTITY_TOKEN_FILE",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for k, v := range env {
		t.Setenv(k, v)
	}
	return os.Environ()
}

// TestTheFunctionsConfigAgreesWithTheDefaultChain: in Lambda's environment
// (region, the role's session credentials) and with the tests' endpoints,
// a Batch call and a DynamoDB call made with awsenv's configuration reach
// the same endpoint, signed with the same key, region and session token,
// as with config.LoadDefaultConfig's.
func TestTheFunctionsConfigAgreesWithTheDefaultChain(t *testing.T) {
	all, batchOnly, dynamoOnly := newServer(t, "AWS_ENDPOINT_URL"), newServer(t, "AWS_ENDPOINT_URL_BATCH"), newServer(t, "AWS_ENDPOINT_URL_DYNAMODB")
	lambda := map[string]string{awsenv.Region: "eu-west-1", awsenv.AccessKeyID: "ASIAEXAMPLE", awsenv.SecretAccessKey: "secret", awsenv.SessionToken: "session"}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for k, v := range lambda {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		// want: each call's endpoint, credential scope and session token.
		want []string
	}{
		{"one endpoint for every service", with(map[string]string{awsenv.EndpointURL: all.URL}), []string{
			"batch reached AWS_ENDPOINT_URL Credential=ASIAEXAMPLE/DATE/eu-west-1/batch/aws4_request token=session",
			"dynamodb reached AWS_ENDPOINT_URL Credential=ASIAEXAMPLE/DATE/eu-west-1/dynamodb/aws4_request token=session",
			"ledger reached AWS_ENDPOINT_URL Credential=ASIAEXAMPLE/DATE/eu-west-1/dynamodb/aws4_request token=session"}},
		{"a service's endpoint over the one for every service", with(map[string]string{awsenv.EndpointURL: all.URL, "AWS_ENDPOINT_URL_BATCH": batchOnly.URL}), []string{
			"batch reached AWS_ENDPOINT_URL_BATCH Credential=ASIAEXAMPLE/DATE/eu-west-1/batch/aws4_request token=session",
			"dynamodb reached AWS_ENDPOINT_URL Credential=ASIAEXAMPLE/DATE/eu-west-1/dynamodb/aws4_request token=session",
			"ledger reached AWS_ENDPOINT_URL Credential=ASIAEXAMPLE/DATE/eu-west-1/dynamodb/aws4_request token=session"}},
		{"each service its own, AWS_DEFAULT_REGION when AWS_REGION is unset, no session token",
			with(map[string]string{awsenv.Region: "", awsenv.DefaultRegion: "us-west-2", awsenv.SessionToken: "",
				"AWS_ENDPOINT_URL_BATCH": batchOnly.URL, "AWS_ENDPOINT_URL_DYNAMODB": dynamoOnly.URL}), []string{
				"batch reached AWS_ENDPOINT_URL_BATCH Credential=ASIAEXAMPLE/DATE/us-west-2/batch/aws4_request token=",
				"dynamodb reached AWS_ENDPOINT_URL_DYNAMODB Credential=ASIAEXAMPLE/DATE/us-west-2/dynamodb/aws4_request token=",
				"ledger reached AWS_ENDPOINT_URL_DYNAMODB Credential=ASIAEXAMPLE/DATE/us-west-2/dynamodb/aws4_request token="}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			environ := setenv(t, tc.env)
			cfg, err := awsenv.Config(environ)
			if err != nil {
				t.Fatal(err)
			}
			got := calls(t, cfg, all, batchOnly, dynamoOnly)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("awsenv:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.want, "\n     "))
			}
			def, err := config.LoadDefaultConfig(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if chain := calls(t, def, all, batchOnly, dynamoOnly); strings.Join(chain, "\n") != strings.Join(got, "\n") {
				t.Errorf("the default chain and awsenv differ:\nchain  %s\nawsenv %s", strings.Join(chain, "\n       "), strings.Join(got, "\n       "))
			}
		})
	}
}

// TestIgnoredEndpointsReachAWS: AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true
// ignores every configured endpoint, as the SDKs' reference says: the
// client resolves the service's regional endpoint, not the local servers.
func TestIgnoredEndpointsReachAWS(t *testing.T) {
	s := newServer(t, "AWS_ENDPOINT_URL_BATCH")
	setenv(t, map[string]string{awsenv.Region: "us-east-1", awsenv.AccessKeyID: "k", awsenv.SecretAccessKey: "s",
		awsenv.EndpointURL: s.URL, "AWS_ENDPOINT_URL_BATCH": s.URL, awsenv.IgnoreConfiguredEndpoints: "true"})
	cfg, err := awsenv.Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BaseEndpoint != nil {
		t.Errorf("BaseEndpoint = %q, want none", *cfg.BaseEndpoint)
	}
	// The regional endpoint of Batch in us-east-1
	// (https://docs.aws.amazon.com/general/latest/gr/batch.html).
	c := batch.NewFromConfig(cfg)
	var endpoint string
	_, err = c.DescribeJobQueues(context.Background(), &batch.DescribeJobQueuesInput{}, func(o *batch.Options) {
		o.HTTPClient = doer(func(r *http.Request) (*http.Response, error) {
			endpoint = r.URL.Scheme + "://" + r.URL.Host
			return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "https://batch.us-east-1.amazonaws.com"; endpoint != want {
		t.Errorf("endpoint = %q, want %q", endpoint, want)
	}
	// And the ledger's DynamoDB client, DynamoDB's regional endpoint in
	// us-east-1 (https://docs.aws.amazon.com/general/latest/gr/ddb.html).
	if got, want := dynamo.Endpoint(cfg), "https://dynamodb.us-east-1.amazonaws.com"; got != want {
		t.Errorf("ledger endpoint = %q, want %q", got, want)
	}
}

type doer func(*http.Request) (*http.Response, error)

func (d doer) Do(r *http.Request) (*http.Response, error) { return d(r) }

func TestMissingOrBadVariablesNameTheVariable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		environ []string
		want    []string
	}{
		{"nothing", nil, []string{"AWS_REGION: got nothing (nor AWS_DEFAULT_REGION)", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: got nothing"}},
		{"a key without its secret", []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=k"}, []string{"AWS_SECRET_ACCESS_KEY: got nothing beside AWS_ACCESS_KEY_ID"}},
		{"a secret without its key", []string{"AWS_REGION=us-east-1", "AWS_SECRET_ACCESS_KEY=s"}, []string{"AWS_ACCESS_KEY_ID: got nothing beside AWS_SECRET_ACCESS_KEY"}},
		{"an endpoint that is no URL", []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s", "AWS_ENDPOINT_URL_BATCH=localhost:4566"},
			[]string{`AWS_ENDPOINT_URL_BATCH: got "localhost:4566", want an http or https URL with a host`}},
		{"ignore that is no boolean", []string{"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=yes"},
			[]string{`AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: got "yes", want true or false`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := awsenv.Config(tc.environ)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// The older names the SDK's environment step also reads.
	cfg, err := awsenv.Config([]string{"AWS_DEFAULT_REGION=ap-south-1", "AWS_ACCESS_KEY=k", "AWS_SECRET_KEY=s", "AWS_ACCOUNT_ID=123456789012"})
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(context.Background())
	if err != nil || cfg.Region != "ap-south-1" || creds.AccessKeyID != "k" || creds.SecretAccessKey != "s" || creds.AccountID != "123456789012" {
		t.Errorf("got region %q, credentials %+v, %v", cfg.Region, creds, err)
	}
}

// TestFunctionsLinkNeitherTheDefaultChainNorYAML keeps the functions' cold
// start small: none links the SDK's config package (and with it the SSO,
// SSO OIDC, STS and sign-in clients), nor the SDK's DynamoDB client, nor a
// YAML parser (they read the
// bundled platform.json with platform.LoadJSONFile).
func TestFunctionsLinkNeitherTheDefaultChainNorYAML(t *testing.T) {
	for _, fn := range []string{"submitter", "observer", "poller", "rerouter"} {
		deptest.Forbid(t, "github.com/trainq/trainq/bin/"+fn, "github.com/trainq/trainq/awsenv",
			"github.com/aws/aws-sdk-go-v2/config",
			"github.com/aws/aws-sdk-go-v2/service/sts",
			"github.com/aws/aws-sdk-go-v2/service/sso",
			"github.com/aws/aws-sdk-go-v2/service/ssooidc",
			"github.com/aws/aws-sdk-go-v2/service/signin",
			"github.com/aws/aws-sdk-go-v2/feature/ec2/imds",
			// The SDK's DynamoDB client: its schemas alone cost about
			// 3,150 allocations at every start (the ledger uses package
			// dynamo).
			"github.com/aws/aws-sdk-go-v2/service/dynamodb",
			"github.com/aws/aws-sdk-go-v2/service/dynamodb/types",
			"github.com/trainq/trainq/platform/platformfile",
			"sigs.k8s.io/yaml",
			"go.yaml.in/yaml/v2",
			"go.yaml.in/yaml/v3",
		)
	}
}
