package dynamo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/internal/awsmodel"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/ledger/dynamo"
)

var local *dynamotest.Server

func TestMain(m *testing.M) { os.Exit(dynamotest.Main(m, &local)) }

// sent is one request as it left the client, signed.
type sent struct {
	method, url string
	header      http.Header
	length      int64
	body        []byte
}

// recorder is an HTTP client that keeps every request it sends.
type recorder struct {
	mu   sync.Mutex
	reqs []sent
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.reqs = append(r.reqs, sent{req.Method, req.URL.String(), req.Header.Clone(), req.ContentLength, body})
	r.mu.Unlock()
	return http.DefaultClient.Do(req)
}

func (r *recorder) requests() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sent(nil), r.reqs...)
}

var testCreds = credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token")

// newClient is a client of the local DynamoDB that records its requests.
func newClient(t *testing.T, rec *recorder, opts ...func(*dynamo.Options)) *dynamo.Client {
	t.Helper()
	all := append([]func(*dynamo.Options){func(o *dynamo.Options) {
		o.Endpoint = local.Endpoint
		if rec != nil {
			o.HTTPClient = rec
		}
	}}, opts...)
	c, err := dynamo.New(aws.Config{Region: "us-east-1", Credentials: testCreds}, all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newTable(t *testing.T) string {
	t.Helper()
	name := strings.ReplaceAll(t.Name(), "/", "-")
	if err := local.CreateTable(context.Background(), dynamotest.LedgerTable(name)); err != nil {
		t.Fatal(err)
	}
	return name
}

// every is an item with every kind of value the client writes, the empty
// list and map included, and strings that JSON must escape.
func every(id string) dynamo.Item {
	return dynamo.Item{
		ledger.KeyJobID: dynamo.S(id),
		"s":             dynamo.S("héllo \"quoted\" back\\slash\ttab \u2028 <&>"),
		"n":             dynamo.N(-42),
		"big":           dynamo.N(9007199254740993), // 2^53+1: not a float64
		"t":             dynamo.Bool(true),
		"f":             dynamo.Bool(false),
		"emptyList":     dynamo.L(),
		"emptyMap":      dynamo.M(nil),
		"list":          dynamo.L(dynamo.N(1), dynamo.S("x"), dynamo.M(map[string]dynamo.Value{"k": dynamo.Bool(true)})),
		"map":           dynamo.M(map[string]dynamo.Value{"inner": dynamo.L(dynamo.S("y"))}),
	}
}

// sdkEvery is every(id) as the SDK's types write it, by hand.
func sdkEvery(id string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		ledger.KeyJobID: &types.AttributeValueMemberS{Value: id},
		"s":             &types.AttributeValueMemberS{Value: "héllo \"quoted\" back\\slash\ttab \u2028 <&>"},
		"n":             &types.AttributeValueMemberN{Value: "-42"},
		"big":           &types.AttributeValueMemberN{Value: "9007199254740993"},
		"t":             &types.AttributeValueMemberBOOL{Value: true},
		"f":             &types.AttributeValueMemberBOOL{Value: false},
		"emptyList":     &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"emptyMap":      &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "1"}, &types.AttributeValueMemberS{Value: "x"},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberBOOL{Value: true}}},
		}},
		"map": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "y"}}},
		}},
	}
}

// sdkTypes lets cmp read the SDK types' unexported (empty) members.
var sdkTypes = cmp.Exporter(func(reflect.Type) bool { return true })

// TestItemsReadTheSameThroughTheSDK writes an item of every kind of value
// with this client and reads it with the AWS SDK's client, and the other
// way round: the two agree on DynamoDB's wire format, in both directions.
func TestItemsReadTheSameThroughTheSDK(t *testing.T) {
	ctx := context.Background()
	table := newTable(t)
	c := newClient(t, nil)
	sdk := local.SDK()

	if _, err := c.PutItem(ctx, &dynamo.PutItemInput{TableName: table, Item: every("ours")}); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetItem(ctx, &dynamo.GetItemInput{TableName: table, Key: dynamo.Item{ledger.KeyJobID: dynamo.S("ours")}, ConsistentRead: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(every("ours"), got.Item); diff != "" {
		t.Errorf("this client's item read back by this client (-want +got):\n%s", diff)
	}
	sdkGot, err := sdk.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table),
		Key: map[string]types.AttributeValue{ledger.KeyJobID: &types.AttributeValueMemberS{Value: "ours"}}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sdkEvery("ours"), sdkGot.Item, sdkTypes); diff != "" {
		t.Errorf("this client's item read by the SDK (-want +got):\n%s", diff)
	}

	if _, err := sdk.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: sdkEvery("sdk's")}); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetItem(ctx, &dynamo.GetItemInput{TableName: table, Key: dynamo.Item{ledger.KeyJobID: dynamo.S("sdk's")}, ConsistentRead: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(every("sdk's"), got.Item); diff != "" {
		t.Errorf("the SDK's item read by this client (-want +got):\n%s", diff)
	}

	// A type the client does not model (a string set) reads as a value
	// with no member set, which the ledger's codec reports as unreadable.
	if _, err := sdk.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		ledger.KeyJobID: &types.AttributeValueMemberS{Value: "set"}, "ss": &types.AttributeValueMemberSS{Value: []string{"a", "b"}}}}); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetItem(ctx, &dynamo.GetItemInput{TableName: table, Key: dynamo.Item{ledger.KeyJobID: dynamo.S("set")}, ConsistentRead: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got.Item["ss"]; !ok || v.S != nil || v.N != nil || v.BOOL != nil || v.L != nil || v.M != nil {
		t.Errorf("a string set read as %+v (present %v), want a value with no member set", v, ok)
	}

	// No item: an empty Item, not an error.
	got, err = c.GetItem(ctx, &dynamo.GetItemInput{TableName: table, Key: dynamo.Item{ledger.KeyJobID: dynamo.S("none")}})
	if err != nil || len(got.Item) != 0 {
		t.Errorf("an absent item: got %v, %v; want no item and no error", got.Item, err)
	}
}

// TestAValueMustHaveOneType refuses to send a value with no member or two:
// DynamoDB would refuse it, and the error says what is allowed.
func TestAValueMustHaveOneType(t *testing.T) {
	s := "x"
	for _, v := range []dynamo.Value{{}, {S: &s, N: &s}} {
		_, err := json.Marshal(v)
		if err == nil || !strings.Contains(err.Error(), "exactly one of S, N, BOOL, L and M") {
			t.Errorf("%+v: got %v, want an error naming the allowed members", v, err)
		}
	}
}

// TestAConditionThatFailsIsNamedAndWritesNothing writes an item twice on
// attribute_not_exists: the second write fails with DynamoDB's
// ConditionalCheckFailedException (HTTP 400, PutItem API reference) and the
// item keeps its first value.
func TestAConditionThatFailsIsNamedAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	table := newTable(t)
	c := newClient(t, nil)
	put := func(v string) error {
		_, err := c.PutItem(ctx, &dynamo.PutItemInput{TableName: table,
			Item:                     dynamo.Item{ledger.KeyJobID: dynamo.S("j"), "v": dynamo.S(v)},
			ConditionExpression:      "attribute_not_exists(#k)",
			ExpressionAttributeNames: map[string]string{"#k": ledger.KeyJobID}})
		return err
	}
	if err := put("first"); err != nil {
		t.Fatal(err)
	}
	err := put("second")
	if !dynamo.IsConditionFailed(err) {
		t.Fatalf("second write: got %v, want ConditionalCheckFailedException", err)
	}
	var e *dynamo.Error
	var api smithy.APIError
	if !errors.As(err, &e) || e.StatusCode != 400 || e.Operation != "PutItem" || !errors.As(err, &api) || api.ErrorFault() != smithy.FaultClient {
		t.Errorf("second write: got %#v, want a client-fault *dynamo.Error of PutItem with HTTP 400", err)
	}
	got, err := c.GetItem(ctx, &dynamo.GetItemInput{TableName: table, Key: dynamo.Item{ledger.KeyJobID: dynamo.S("j")}, ConsistentRead: true})
	if err != nil || got.Item["v"].S == nil || *got.Item["v"].S != "first" {
		t.Errorf("after the failed write: got %v, %v; want v = first", got.Item, err)
	}
}

// TestQueryPagesThroughAPartitionOfTheIndex queries 25 jobs of one day of
// the byEnd index 10 at a time: 3 pages of 10, 10 and 5 (25 = 10+10+5), in
// job id order (the index's sort key), none of the 3 jobs of another day,
// and the last page has no LastEvaluatedKey.
func TestQueryPagesThroughAPartitionOfTheIndex(t *testing.T) {
	ctx := context.Background()
	table := newTable(t)
	c := newClient(t, nil)
	var want []string
	for i := range 28 {
		day := "2026-12-01"
		if i >= 25 {
			day = "2026-12-02"
		}
		id := fmt.Sprintf("job-%02d", i)
		if i < 25 {
			want = append(want, id)
		}
		if _, err := c.PutItem(ctx, &dynamo.PutItemInput{TableName: table,
			Item: dynamo.Item{ledger.KeyJobID: dynamo.S(id), ledger.KeyEndDay: dynamo.S(day)}}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	var pages []int
	var start dynamo.Item
	for {
		out, err := c.Query(ctx, &dynamo.QueryInput{TableName: table, IndexName: ledger.IndexByEnd,
			KeyConditionExpression:    "#d = :d",
			ExpressionAttributeNames:  map[string]string{"#d": ledger.KeyEndDay},
			ExpressionAttributeValues: dynamo.Item{":d": dynamo.S("2026-12-01")},
			ExclusiveStartKey:         start, Limit: 10, ReturnConsumedCapacity: dynamo.ReturnTotal})
		if err != nil {
			t.Fatal(err)
		}
		if out.ConsumedCapacity == nil || out.ConsumedCapacity.CapacityUnits == nil || *out.ConsumedCapacity.CapacityUnits <= 0 {
			t.Errorf("page %d: consumed capacity %+v, want some", len(pages)+1, out.ConsumedCapacity)
		}
		pages = append(pages, len(out.Items))
		for _, it := range out.Items {
			got = append(got, *it[ledger.KeyJobID].S)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		start = out.LastEvaluatedKey
	}
	if diff := cmp.Diff([]int{10, 10, 5}, pages); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
}

// TestTheLedgersRequestsFollowBotocoresModel runs the ledger's writes and
// reads (a job recorded, recorded again with a later event, read back,
// listed) through a recording client and checks every request against
// botocore's DynamoDB model: operation (by X-Amz-Target), members, types,
// required members and patterns.
func TestTheLedgersRequestsFollowBotocoresModel(t *testing.T) {
	ctx := context.Background()
	table := newTable(t)
	rec := &recorder{}
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	store, err := ledger.NewStore(newClient(t, rec), table, 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	submitted := now.Add(-time.Hour).UnixMilli()
	for _, o := range []ledger.Observation{
		{JobID: "j1", Status: "RUNNABLE", CreatedAt: submitted, Team: "search", Class: "sweep", Instances: 2, InstanceType: "ml.p4d.24xlarge"},
		{JobID: "j1", Status: "SUCCEEDED", CreatedAt: submitted, StartedAt: submitted + 60_000, StoppedAt: now.UnixMilli(),
			Attempts: []ledger.ObservedAttempt{{StartedAt: submitted + 60_000, StoppedAt: now.UnixMilli(), TrainingJob: "AWSBatchj1"}}},
	} {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := store.Get(ctx, "j1"); err != nil || !ok {
		t.Fatalf("get j1: found %v, %v", ok, err)
	}
	n := 0
	if err := store.Jobs(ctx, now.Add(-48*time.Hour), now, func(*ledger.Job) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("jobs: %d, %v; want 1", n, err)
	}
	var reqs []awsmodel.Request
	ops := map[string]bool{}
	for _, r := range rec.requests() {
		target := r.header.Get("X-Amz-Target")
		ops[strings.TrimPrefix(target, "DynamoDB_20120810.")] = true
		reqs = append(reqs, awsmodel.Request{Service: "dynamodb", Operation: strings.TrimPrefix(target, "DynamoDB_20120810."),
			Target: target, Method: r.method, Path: "/", Body: r.body, Label: t.Name()})
		if ct := r.header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
			t.Errorf("%s: Content-Type %q, want application/x-amz-json-1.0 (botocore's model: jsonVersion 1.0)", target, ct)
		}
	}
	for _, op := range []string{"GetItem", "PutItem", "Query"} {
		if !ops[op] {
			t.Errorf("no %s request was recorded; the check would not cover it", op)
		}
	}
	awsmodel.Validate(t, reqs)
}

// TestTheSignatureIsTheOneBotocoreComputes gives a signed request of the
// client to botocore's SigV4Auth (the AWS CLI's signer) with the same
// credentials, region, service and time, and requires the same signature:
// the client signs the headers, body hash and scope DynamoDB verifies.
func TestTheSignatureIsTheOneBotocoreComputes(t *testing.T) {
	ctx := context.Background()
	table := newTable(t)
	rec := &recorder{}
	c := newClient(t, rec)
	if _, err := c.PutItem(ctx, &dynamo.PutItemInput{TableName: table, Item: every("signed")}); err != nil {
		t.Fatal(err)
	}
	r := rec.requests()[0]
	auth := r.header.Get("Authorization")
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	headers := map[string]string{}
	for _, h := range strings.Split(signed, ";") {
		switch h {
		case "host":
			// botocore takes it from the URL.
		case "content-length":
			headers[h] = strconv.FormatInt(r.length, 10)
		default:
			headers[h] = r.header.Get(h)
		}
	}
	in, _ := json.Marshal(map[string]any{"method": r.method, "url": r.url, "headers": headers, "body": string(r.body),
		"key": "AKIDEXAMPLE", "secret": "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "token": "session-token",
		"region": "us-east-1", "amzdate": r.header.Get("X-Amz-Date")})
	python := os.Getenv(awsmodel.EnvPython)
	if python == "" {
		python = "python3"
	}
	cmd := exec.Command(python, "-c", botocoreSign)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 && !awsmodel.Required() || errors.Is(err, exec.ErrNotFound) && !awsmodel.Required() {
		t.Skipf("botocore is not available (%v %s); in CI, with CI=true, this fails", err, stderr.String())
	}
	if err != nil {
		t.Fatalf("botocore: %v: %s", err, stderr.String())
	}
	want := strings.TrimSpace(string(out))
	_, got, _ := strings.Cut(auth, "Signature=")
	if got == "" || got != want {
		t.Errorf("signature %q, botocore's %q (Authorization: %s)", got, want, auth)
	}
	if !strings.Contains(auth, "/us-east-1/dynamodb/aws4_request") || r.header.Get("X-Amz-Security-Token") != "session-token" {
		t.Errorf("Authorization %q and token %q: want the us-east-1 dynamodb scope and the session token", auth, r.header.Get("X-Amz-Security-Token"))
	}
}

// botocoreSign reads a request and prints botocore's SigV4 signature of
// it at its X-Amz-Date, with the steps of SigV4Auth.add_auth after its
// reading of the clock.
const botocoreSign = `
import json, sys
try:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
except ImportError as e:
    print(e, file=sys.stderr); sys.exit(3)
d = json.load(sys.stdin)
req = AWSRequest(method=d["method"], url=d["url"], data=d["body"].encode(), headers=d["headers"])
auth = SigV4Auth(Credentials(d["key"], d["secret"], d["token"]), "dynamodb", d["region"])
req.context["timestamp"] = d["amzdate"]
auth._modify_request_before_signing(req)
canonical = auth.canonical_request(req)
print(auth.signature(auth.string_to_sign(req, canonical), req))
`

// script is an HTTP server that answers each request with the next of its
// answers, and keeps the requests.
type script struct {
	mu      sync.Mutex
	answers []answer
	bodies  []string
	targets []string
}

type answer struct {
	status  int
	body    string
	badCRC  bool
	headers map[string]string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.targets = append(s.targets, r.Header.Get("X-Amz-Target"))
	a := s.answers[min(len(s.bodies), len(s.answers))-1]
	s.mu.Unlock()
	sum := crc32.ChecksumIEEE([]byte(a.body))
	if a.badCRC {
		sum++
	}
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(sum), 10))
	w.Header().Set("X-Amzn-Requestid", "req-"+strconv.Itoa(len(s.bodies)))
	for k, v := range a.headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

// noWait is the SDK's standard retryer without its backoff's sleep.
func noWait() func(*dynamo.Options) {
	return func(o *dynamo.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		})
	}
}

// TestRetriesSendTheSameRequestAndStopWhereTheSDKWould scripts DynamoDB's
// answers. The SDK's standard retryer makes at most 3 attempts
// (retry.DefaultMaxAttempts) and retries throttling
// (ProvisionedThroughputExceededException, among
// retry.DefaultThrottleErrorCodes), 5xx answers and answers whose CRC32 is
// not the X-Amz-Crc32 header's; it does not retry a ValidationException.
// Every retry sends the same body.
func TestRetriesSendTheSameRequestAndStopWhereTheSDKWould(t *testing.T) {
	ok := `{"Item":{"jobId":{"S":"j"}}}`
	throttled := answer{status: 400, body: `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"Rate exceeded"}`}
	internal := answer{status: 500, body: `{"__type":"com.amazon.coral.service#InternalServerError","message":"Internal server error"}`}
	long := strings.Repeat("x", 2000)
	cases := []struct {
		name     string
		answers  []answer
		attempts int
		code     string // "" for success
		status   int
	}{
		{"throttled, then a damaged answer, then the item", []answer{throttled, {status: 200, body: ok, badCRC: true}, {status: 200, body: ok}}, 3, "", 200},
		{"throttled three times", []answer{throttled}, 3, "ProvisionedThroughputExceededException", 400},
		{"a server error three times", []answer{internal}, 3, "InternalServerError", 500},
		{"a validation error, not retried", []answer{{status: 400, body: `{"__type":"com.amazon.coral.validate#ValidationException","message":"One or more parameter values were invalid"}`}}, 1, "ValidationException", 400},
		{"a type only in the header, message capitalized", []answer{{status: 400, body: `{"Message":"` + long + `"}`, headers: map[string]string{"X-Amzn-Errortype": "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/"}}}, 1, "AccessDeniedException", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{answers: tc.answers}
			srv := httptest.NewServer(s)
			defer srv.Close()
			c, err := dynamo.New(aws.Config{Region: "eu-west-1", Credentials: testCreds}, noWait(), func(o *dynamo.Options) { o.Endpoint = srv.URL })
			if err != nil {
				t.Fatal(err)
			}
			out, err := c.GetItem(context.Background(), &dynamo.GetItemInput{TableName: "t", Key: dynamo.Item{"jobId": dynamo.S("j")}})
			if len(s.bodies) != tc.attempts {
				t.Errorf("%d attempts, want %d", len(s.bodies), tc.attempts)
			}
			for i, b := range s.bodies {
				if b != s.bodies[0] || s.targets[i] != "DynamoDB_20120810.GetItem" {
					t.Errorf("attempt %d sent %s %s, the first %s", i+1, s.targets[i], b, s.bodies[0])
				}
			}
			if tc.code == "" {
				if err != nil || out.Item["jobId"].S == nil || *out.Item["jobId"].S != "j" {
					t.Errorf("got %v, %v; want the item", out, err)
				}
				return
			}
			var e *dynamo.Error
			if !errors.As(err, &e) || e.Code != tc.code || e.StatusCode != tc.status || e.Operation != "GetItem" ||
				e.RequestID != "req-"+strconv.Itoa(tc.attempts) {
				t.Fatalf("got %v, want a %s error of GetItem, HTTP %d, from the last attempt's request id", err, tc.code, tc.status)
			}
			if len(e.Message) > 512+len("…") {
				t.Errorf("message of %d bytes, want at most 512 and an ellipsis", len(e.Message))
			}
			if wantFault := map[bool]smithy.ErrorFault{true: smithy.FaultServer, false: smithy.FaultClient}[tc.status >= 500]; e.ErrorFault() != wantFault {
				t.Errorf("fault %v, want %v", e.ErrorFault(), wantFault)
			}
		})
	}
}

// TestACanceledCallStopsRetrying cancels the call while the retryer waits:
// the call ends with the attempt's error, and no further attempt is made.
func TestACanceledCallStopsRetrying(t *testing.T) {
	s := &script{answers: []answer{{status: 500, body: `{"__type":"InternalServerError"}`}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	slow := func(o *dynamo.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { cancel(); return time.Hour, nil })
		})
	}
	c, err := dynamo.New(aws.Config{Region: "eu-west-1", Credentials: testCreds}, slow, func(o *dynamo.Options) { o.Endpoint = srv.URL })
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.GetItem(ctx, &dynamo.GetItemInput{TableName: "t", Key: dynamo.Item{"jobId": dynamo.S("j")}})
	var e *dynamo.Error
	if !errors.As(err, &e) || e.Code != "InternalServerError" || len(s.bodies) != 1 {
		t.Errorf("got %v after %d attempts, want the first attempt's InternalServerError and no other attempt", err, len(s.bodies))
	}
}

// TestTheEndpointIsTheOneTheSDKResolves compares Endpoint with the SDK's
// own DynamoDB client's resolution for regions of each partition (its
// endpoint rules: https://dynamodb.{Region}.{dnsSuffix}) and for the
// endpoint settings package awsenv reads.
func TestTheEndpointIsTheOneTheSDKResolves(t *testing.T) {
	for _, region := range []string{"us-east-1", "eu-west-1", "cn-north-1", "us-gov-west-1", "us-iso-east-1", "us-isob-east-1", "eu-isoe-west-1", "us-isof-south-1", "eusc-de-east-1", "xx-new-1"} {
		cfg := aws.Config{Region: region, Credentials: testCreds}
		var seen string
		sdk := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
			o.RetryMaxAttempts = 1
			o.HTTPClient = httpFunc(func(r *http.Request) (*http.Response, error) {
				seen = "https://" + r.URL.Host
				return nil, errors.New("stop")
			})
		})
		_, _ = sdk.ListTables(context.Background(), &dynamodb.ListTablesInput{})
		if got := dynamo.Endpoint(cfg); got != seen {
			t.Errorf("%s: %s, the SDK's client %s", region, got, seen)
		}
	}
}

type httpFunc func(*http.Request) (*http.Response, error)

func (f httpFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }
