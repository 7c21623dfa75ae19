// Package dynamo is the ledger's DynamoDB client: the three calls the
// functions make (GetItem, PutItem and Query), sent over DynamoDB's JSON
// protocol (awsJson1_0, X-Amz-Target DynamoDB_20120810.<operation>), signed
// with the AWS SDK's Signature Version 4 signer, retried by the SDK's
// standard retryer, with each answer's CRC32 checked as the SDK checks it.
//
// It exists for the functions' cold start. The SDK's DynamoDB client links
// its package of schemas, whose initialization (about 3,150 allocations,
// 0.6 MB) and endpoint table ran at every start of the submitter, the
// observer and the poller, used or not; this package's initialization
// allocates nothing. What it leaves out of the SDK's client is what the
// ledger does not use: other operations, endpoint discovery, account-based
// endpoints (the regional endpoint serves every account), FIPS and
// dual-stack endpoints (trainq's functions configure neither), compressed
// answers (the SDK's DynamoDB client asks for none either) and the SDK's
// correction of a skewed clock on retries (Lambda's clocks are synced; on a
// machine whose clock is off by more than five minutes every call fails
// with InvalidSignatureException instead).
//
// Tests and benchmarks may keep using the SDK's client; run-time code must
// use this one (the functions' dependency tests forbid the SDK's DynamoDB
// packages). It must never import the AWS CDK, jsii or constructs.
package dynamo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go"
)

const (
	// signingName is DynamoDB's name in Signature Version 4's scope.
	signingName = "dynamodb"
	// targetPrefix and contentType are the JSON protocol's headers of
	// DynamoDB's API version 2012-08-10.
	targetPrefix = "DynamoDB_20120810."
	contentType  = "application/x-amz-json-1.0"
	// sdkID is the service's name in AWS_ENDPOINT_URL_<SERVICE>
	// (AWS_ENDPOINT_URL_DYNAMODB), as the SDK looks it up.
	sdkID = "DynamoDB"
	// maxAnswerBytes bounds the answer read: a Query page is at most 1 MB
	// of items, written as JSON.
	maxAnswerBytes = 16 << 20
	// maxMessage bounds the service's message kept in an error.
	maxMessage = 512
)

// Options are a client's settings beyond the AWS configuration.
type Options struct {
	// Endpoint is the service's URL; empty means the one the
	// configuration gives (see New).
	Endpoint string
	// HTTPClient sends the requests; nil means the configuration's, else
	// a client of its own.
	HTTPClient aws.HTTPClient
	// Retryer decides retries and their delays; nil means the SDK's
	// standard retryer (3 attempts, exponential backoff with jitter).
	Retryer aws.RetryerV2
	// Now is the signing clock; nil means time.Now.
	Now func() time.Time
}

// Client sends the ledger's DynamoDB calls. It is safe for concurrent use.
type Client struct {
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	signer   *v4.Signer
	http     aws.HTTPClient
	retryer  aws.RetryerV2
	now      func() time.Time
}

// New is a client of cfg's region and credentials. Its endpoint is, in this
// order: opts' Endpoint; the DynamoDB endpoint of cfg's configuration
// sources (AWS_ENDPOINT_URL_DYNAMODB, through package awsenv); cfg's
// BaseEndpoint (AWS_ENDPOINT_URL); else https://dynamodb.<region>.<the
// region's partition's domain>, as the SDK's endpoint rules give it.
func New(cfg aws.Config, opts ...func(*Options)) (*Client, error) {
	var o Options
	for _, f := range opts {
		f(&o)
	}
	if cfg.Region == "" {
		return nil, errors.New("dynamo: the configuration has no region")
	}
	if cfg.Credentials == nil {
		return nil, errors.New("dynamo: the configuration has no credentials")
	}
	if o.Endpoint == "" {
		o.Endpoint = Endpoint(cfg)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = cfg.HTTPClient
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	if o.Retryer == nil {
		o.Retryer = retry.NewStandard()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Client{endpoint: strings.TrimRight(o.Endpoint, "/") + "/", region: cfg.Region, creds: cfg.Credentials,
		signer: v4.NewSigner(), http: o.HTTPClient, retryer: o.Retryer, now: o.Now}, nil
}

// serviceEndpoints and ignoreEndpoints are the SDK's interfaces of a
// configuration source (package awsenv's, or the SDK's environment) for
// AWS_ENDPOINT_URL_<SERVICE> and AWS_IGNORE_CONFIGURED_ENDPOINT_URLS.
type (
	serviceEndpoints interface {
		GetServiceBaseEndpoint(ctx context.Context, sdkID string) (string, bool, error)
	}
	ignoreEndpoints interface {
		GetIgnoreConfiguredEndpoints(ctx context.Context) (bool, bool, error)
	}
)

// Endpoint is the DynamoDB endpoint cfg gives (see New), resolved in the
// SDK's order (its DynamoDB client's resolveBaseEndpoint and
// internal/configsources' ResolveServiceBaseEndpoint): the service's own
// endpoint unless configured endpoints are ignored, then BaseEndpoint, then
// the regional endpoint.
func Endpoint(cfg aws.Config) string {
	ctx := context.Background()
	ignore := false
	for _, src := range cfg.ConfigSources {
		if s, ok := src.(ignoreEndpoints); ok {
			v, found, err := s.GetIgnoreConfiguredEndpoints(ctx)
			if err != nil || found {
				ignore = found && v
				break
			}
		}
	}
	for _, src := range cfg.ConfigSources {
		if s, ok := src.(serviceEndpoints); ok && !ignore {
			v, found, err := s.GetServiceBaseEndpoint(ctx, sdkID)
			if err != nil {
				break
			}
			if found {
				return v
			}
		}
	}
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		return *cfg.BaseEndpoint
	}
	return "https://dynamodb." + cfg.Region + "." + dnsSuffix(cfg.Region)
}

// dnsSuffix is the domain of region's partition, from the region patterns
// of the SDK's partitions.json (internal/endpoints/awsrulesfn); a region of
// no known partition is in the aws partition, as the SDK resolves it.
func dnsSuffix(region string) string {
	for _, p := range []struct{ prefix, suffix string }{
		{"cn-", "amazonaws.com.cn"},
		{"eusc-", "amazonaws.eu"},
		{"us-iso-", "c2s.ic.gov"},
		{"us-isob-", "sc2s.sgov.gov"},
		{"eu-isoe-", "cloud.adc-e.uk"},
		{"us-isof-", "csp.hci.ic.gov"},
	} {
		if strings.HasPrefix(region, p.prefix) {
			return p.suffix
		}
	}
	return "amazonaws.com"
}

// Error is an error answer of DynamoDB. It is a smithy.APIError, as the
// SDK's errors are, and says its HTTP status to the SDK's retryer.
type Error struct {
	// Operation is the call: GetItem, PutItem or Query.
	Operation string
	// Code is the error's type without its namespace, such as
	// ConditionalCheckFailedException or ValidationException.
	Code string
	// Message is the service's message, cut to 512 bytes.
	Message string
	// StatusCode is the answer's HTTP status.
	StatusCode int
	// RequestID is the answer's x-amzn-RequestId.
	RequestID string
}

func (e *Error) Error() string {
	return fmt.Sprintf("DynamoDB %s: %s: %s (HTTP %d, request id %s)", e.Operation, e.Code, e.Message, e.StatusCode, e.RequestID)
}

// ErrorCode is the error's type (smithy.APIError).
func (e *Error) ErrorCode() string { return e.Code }

// ErrorMessage is the service's message (smithy.APIError).
func (e *Error) ErrorMessage() string { return e.Message }

// ErrorFault says whose fault it was: the server's for a 5xx status
// (smithy.APIError).
func (e *Error) ErrorFault() smithy.ErrorFault {
	if e.StatusCode >= 500 {
		return smithy.FaultServer
	}
	return smithy.FaultClient
}

// HTTPStatusCode is the answer's status, which the SDK's retryer reads.
func (e *Error) HTTPStatusCode() int { return e.StatusCode }

// ConditionFailed is the Code of a write whose condition did not hold.
const ConditionFailed = "ConditionalCheckFailedException"

// IsConditionFailed reports whether err is a write whose condition did not
// hold.
func IsConditionFailed(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == ConditionFailed
}

// checksumError is an answer whose body does not have the CRC32 its
// X-Amz-Crc32 header gives: damaged on the way, so worth another try.
type checksumError struct {
	op        string
	want, got uint32
}

func (e *checksumError) Error() string {
	return fmt.Sprintf("DynamoDB %s: the answer's CRC32 is %d, its X-Amz-Crc32 header says %d", e.op, e.got, e.want)
}

// RetryableError tells the SDK's retryer to try again.
func (e *checksumError) RetryableError() bool { return true }

// call sends op with body in, retrying as the retryer decides, and decodes
// the answer into out.
func (c *Client) call(ctx context.Context, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("DynamoDB %s: encode the request: %w", op, err)
	}
	// release gives back the retry quota a retry took, when it succeeds
	// (the SDK's retry middleware does the same).
	var release func(error) error
	for attempt := 1; ; attempt++ {
		answer, err := c.send(ctx, op, body)
		if release != nil {
			_ = release(err)
			release = nil
		}
		if err == nil {
			if err := json.Unmarshal(answer, out); err != nil {
				return fmt.Errorf("DynamoDB %s: decode the answer: %w", op, err)
			}
			return nil
		}
		if ctx.Err() != nil || attempt >= c.retryer.MaxAttempts() || !c.retryer.IsErrorRetryable(err) {
			return err
		}
		delay, derr := c.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return err
		}
		r, terr := c.retryer.GetRetryToken(ctx, err)
		if terr != nil {
			return err
		}
		release = r
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// send makes one signed attempt and returns the answer's body, or the
// attempt's error.
func (c *Client) send(ctx context.Context, op string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("DynamoDB %s: %w", op, err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	// No compressed answers: the CRC32 is of the body as sent.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", "trainq-ledger")
	creds, err := c.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("DynamoDB %s: credentials: %w", op, err)
	}
	sum := sha256.Sum256(body)
	if err := c.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), signingName, c.region, c.now()); err != nil {
		return nil, fmt.Errorf("DynamoDB %s: sign: %w", op, err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("DynamoDB %s: %w", op, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return nil, fmt.Errorf("DynamoDB %s: read the answer: %w", op, err)
	}
	if len(answer) > maxAnswerBytes {
		return nil, fmt.Errorf("DynamoDB %s: the answer is over %d bytes", op, maxAnswerBytes)
	}
	if h := resp.Header.Get("X-Amz-Crc32"); h != "" {
		want, perr := strconv.ParseUint(h, 10, 32)
		if got := crc32.ChecksumIEEE(answer); perr != nil || uint32(want) != got {
			return nil, &checksumError{op: op, want: uint32(want), got: got}
		}
	}
	if resp.StatusCode == http.StatusOK {
		return answer, nil
	}
	return nil, answerError(op, resp, answer)
}

// answerError is the *Error of an answer that is not 200: its type from
// the body's __type (namespace#Code) or the x-amzn-ErrorType header
// (Code:namespace), else the HTTP status.
func answerError(op string, resp *http.Response, answer []byte) *Error {
	var b struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
		Upper   string `json:"Message"`
	}
	_ = json.Unmarshal(answer, &b)
	code := b.Type
	if code == "" {
		code, _, _ = strings.Cut(resp.Header.Get("X-Amzn-Errortype"), ":")
	}
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	if code == "" {
		code = "HTTP" + strconv.Itoa(resp.StatusCode)
	}
	msg := b.Message
	if msg == "" {
		msg = b.Upper
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "…"
	}
	return &Error{Operation: op, Code: code, Message: msg, StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Amzn-Requestid")}
}
