// Package ststest is a loopback stand-in for STS's GetCallerIdentity that
// checks AWS Signature Version 4 as STS does: it knows a set of test
// credentials (access key → secret, session token and the caller ARN STS
// would answer), recomputes the signature of each request over the headers
// it names with the aws-sdk-go-v2 signer, and answers the caller's ARN only
// when the signatures match, the credential scope is sts in the server's
// region, the session token is the key's and the date is within 15 minutes
// of the server's clock (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html).
// Anything else gets STS's ErrorResponse with HTTP 403.
//
// It is test support: only tests import it. It must never import the AWS
// CDK, jsii or constructs.
package ststest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/client"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Principal is a set of test credentials and who STS says they are.
type Principal struct {
	AccessKey, Secret, SessionToken string
	// ARN is what GetCallerIdentity answers, e.g.
	// arn:aws:sts::123456789012:assumed-role/pipeline/session-1.
	ARN string
}

// Credentials are the principal's credentials for a signer.
func (p Principal) Credentials() aws.Credentials {
	return aws.Credentials{AccessKeyID: p.AccessKey, SecretAccessKey: p.Secret, SessionToken: p.SessionToken, Source: "ststest"}
}

// Session is a Principal of role roleARN's session, with fresh test keys
// derived from name.
func Session(roleARN, name string) Principal {
	parts := strings.SplitN(roleARN, ":", 6)
	role := parts[5][strings.LastIndex(parts[5], "/")+1:]
	sum := sha256.Sum256([]byte(roleARN + "|" + name))
	key := "ASIA" + strings.ToUpper(hex.EncodeToString(sum[:8]))
	return Principal{AccessKey: key, Secret: hex.EncodeToString(sum[8:28]), SessionToken: "token-" + hex.EncodeToString(sum[28:]),
		ARN: "arn:" + parts[1] + ":sts::" + parts[4] + ":assumed-role/" + role + "/" + name}
}

// Server is the loopback STS.
type Server struct {
	*httptest.Server
	Region string
	mu     sync.Mutex
	keys   map[string]Principal
	now    func() time.Time
	calls  int
}

// New starts a Server for region knowing principals. Close it when done.
func New(region string, principals ...Principal) *Server {
	s := &Server{Region: region, keys: map[string]Principal{}, now: time.Now}
	for _, p := range principals {
		s.keys[p.AccessKey] = p
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Add makes p known.
func (s *Server) Add(p Principal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[p.AccessKey] = p
}

// SetClock sets the server's clock.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// Calls is how many requests the server answered.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	now := s.now()
	s.mu.Unlock()
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		refuse(w, "InvalidRequest", err.Error())
		return
	}
	arn, code, msg := s.verify(r, body, now)
	if code != "" {
		refuse(w, code, msg)
		return
	}
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>%s</Arn><UserId>AROATEST:%s</UserId><Account>%s</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
		html.EscapeString(arn), html.EscapeString(arn[strings.LastIndex(arn, "/")+1:]), strings.Split(arn, ":")[4])
}

func refuse(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>0</RequestId></ErrorResponse>`,
		html.EscapeString(code), html.EscapeString(msg))
}

// verify returns the caller's ARN, or STS's error code and message.
func (s *Server) verify(r *http.Request, body []byte, now time.Time) (arn, code, msg string) {
	if r.Method != http.MethodPost || r.URL.Path != "/" || string(body) != contract.IdentityBody {
		return "", "InvalidAction", "only POST / " + contract.IdentityBody
	}
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return "", "MissingAuthenticationToken", "Request is missing Authentication Token"
	}
	fields := map[string]string{}
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		fields[k] = v
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[2] != s.Region || scope[3] != "sts" || scope[4] != "aws4_request" {
		return "", "SignatureDoesNotMatch", "Credential should be scoped to a valid region and service sts"
	}
	s.mu.Lock()
	p, known := s.keys[scope[0]]
	s.mu.Unlock()
	if !known {
		return "", "InvalidClientTokenId", "The security token included in the request is invalid."
	}
	if r.Header.Get("X-Amz-Security-Token") != p.SessionToken {
		return "", "InvalidClientTokenId", "The security token included in the request is invalid."
	}
	t, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || scope[1] != t.Format("20060102") {
		return "", "IncompleteSignature", "X-Amz-Date missing or not the credential's date"
	}
	if d := now.Sub(t); d > 15*time.Minute || d < -15*time.Minute {
		return "", "SignatureDoesNotMatch", "Signature expired: " + t.Format(time.RFC3339) + " is not within 15 minutes of " + now.UTC().Format(time.RFC3339)
	}
	// Recompute the signature over exactly the headers the request names.
	again, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	again.Host = r.Host
	for _, h := range strings.Split(fields["SignedHeaders"], ";") {
		if h == "host" {
			continue
		}
		for _, v := range r.Header.Values(h) {
			again.Header.Add(h, v)
		}
	}
	again.Header.Del("X-Amz-Date")
	again.Header.Del("X-Amz-Security-Token")
	// The signer signs Content-Length whenever the request has one: only
	// when the caller signed it (Go's signer does, botocore's does not).
	again.ContentLength = 0
	if slices.Contains(strings.Split(fields["SignedHeaders"], ";"), "content-length") {
		again.ContentLength = int64(len(body))
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), p.Credentials(), again, hex.EncodeToString(sum[:]), "sts", s.Region, t); err != nil {
		return "", "InternalFailure", err.Error()
	}
	_, want, _ := strings.Cut(again.Header.Get("Authorization"), "Signature=")
	if fields["Signature"] == "" || subtle.ConstantTimeCompare([]byte(want), []byte(fields["Signature"])) != 1 {
		return "", "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided."
	}
	return p.ARN, "", ""
}

// The tests' callers: an operator, and for each (class, team) alias a
// pipeline role granted exactly that pair, as GrantSubmit records it.
const (
	Account      = "123456789012"
	OperatorRole = "arn:aws:iam::" + Account + ":role/trainq-operator"
)

// AliasRole is the pipeline role granted alias's pair.
func AliasRole(alias string) string { return "arn:aws:iam::" + Account + ":role/pipeline-" + alias }

// Grants are the tests' grants on p: OperatorRole operates, each alias's
// AliasRole is granted the alias's pair.
func Grants(p *platform.Platform) contract.Grants {
	g := contract.Grants{Operators: []string{OperatorRole}}
	for _, a := range p.SubmitAliases() {
		g.Submitters = append(g.Submitters, contract.GrantedSubmitter{RoleARN: AliasRole(a.Name), Class: a.Class, Team: a.Team})
	}
	return g
}

// Env is the environment that points a function at s and grants Grants(p)
// (contract.EnvGrants).
func (s *Server) Env(p *platform.Platform) []string {
	b, _ := json.Marshal(Grants(p))
	return []string{contract.EnvSTSEndpoint + "=" + s.URL, contract.EnvGrants + "=" + string(b)}
}

// CallerOf is who the tests invoke as through qualifier: the alias's
// pipeline role through an alias, the operator unqualified, through $LATEST
// or a version. The server learns its keys.
func (s *Server) CallerOf(qualifier string) Principal {
	role := OperatorRole
	if qualifier != "" && qualifier != "$LATEST" && strings.Trim(qualifier, "0123456789") != "" {
		role = AliasRole(qualifier)
	}
	p := Session(role, "test-session")
	s.Add(p)
	return p
}

// Sign is request as p sends it to function (a name or ARN), verified by s:
// the CLI's own signer (client.Sign).
func (s *Server) Sign(t testing.TB, p Principal, function string, request []byte) []byte {
	t.Helper()
	out, err := s.SignedPayload(p, function, request)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SignedPayload is Sign for benchmarks, which have no testing.TB.
func (s *Server) SignedPayload(p Principal, function string, request []byte) ([]byte, error) {
	return client.Sign(context.Background(), aws.Config{Region: s.Region, Credentials: credentials.StaticCredentialsProvider{Value: p.Credentials()}},
		s.URL, function, request, time.Now())
}
