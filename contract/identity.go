package contract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// A request to the submission function carries proof of who sends it: the
// caller's AWS Signature Version 4 over an STS GetCallerIdentity request
// that names the function and the request's SHA-256. The function sends
// that request to STS itself, and STS answers with the caller's ARN only if
// the signature is the caller's own (GetCallerIdentity needs no permission:
// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html).
// The function builds the request from its own settings (its STS endpoint,
// its name, the digest of the request it received); only the signature
// comes from the caller, so a proof made for another request, another
// function or another endpoint fails at STS. A plain invocation carries no
// identity and is refused, whichever qualifier it names.

// Signed is the payload of an invocation: the request and the proof of
// identity over it.
type Signed struct {
	// Request is the request (Request) as JSON text, carried as a string so
	// that its bytes are exactly those whose SHA-256 the proof names
	// (HeaderRequestSHA256, over the string's UTF-8). The payload may carry
	// it as a raw JSON object instead, whose bytes (between its braces,
	// included) are then the ones hashed.
	Request string `json:"request"`
	// Identity is the proof.
	Identity Identity `json:"identity"`
}

// Identity is the caller's signature over the function's GetCallerIdentity
// request (IdentityRequest): the three headers SigV4 adds.
type Identity struct {
	// Authorization is the Authorization header: AWS4-HMAC-SHA256
	// Credential=…/sts/aws4_request, SignedHeaders=…, Signature=….
	Authorization string `json:"authorization"`
	// AmzDate is the X-Amz-Date header (20261201T221500Z).
	AmzDate string `json:"amzDate"`
	// SecurityToken is the X-Amz-Security-Token header of temporary
	// credentials (a role's); empty for long-term keys.
	SecurityToken string `json:"securityToken,omitempty"`
}

// Headers of the GetCallerIdentity request that bind a proof.
const (
	// HeaderFunction names the submission function (its name, without
	// qualifier) the proof is for.
	HeaderFunction = "X-Trainq-Function"
	// HeaderRequestSHA256 is the lowercase hex SHA-256 of Signed.Request.
	HeaderRequestSHA256 = "X-Trainq-Request-Sha256"
	// IdentityBody is GetCallerIdentity's form body (STS Query API).
	IdentityBody = "Action=GetCallerIdentity&Version=2011-06-15"
	// IdentityContentType is the body's content type.
	IdentityContentType = "application/x-www-form-urlencoded; charset=utf-8"
	// IdentityService is the SigV4 service name of the signature.
	IdentityService = "sts"
	// EnvSTSEndpoint overrides the STS endpoint, for the function and the
	// CLI alike (the AWS SDKs' service-specific endpoint variable).
	EnvSTSEndpoint = "AWS_ENDPOINT_URL_STS"
	// MaxIdentityBytes bounds the proof (an STS session token is at most a
	// few KiB).
	MaxIdentityBytes = 16 * 1024
)

// SignedHeaders are the headers a proof may sign, lowercase and sorted:
// exactly those of IdentityRequest as sent (Content-Length of the fixed
// body, and X-Amz-Security-Token with temporary credentials). The signer
// must sign host, x-amz-date and both binding headers; it may leave out
// content-length and content-type (botocore's signer does not sign
// content-length; Go's does).
func SignedHeaders() []string {
	return []string{"content-length", "content-type", "host", "x-amz-date", "x-amz-security-token", strings.ToLower(HeaderFunction), strings.ToLower(HeaderRequestSHA256)}
}

// requiredSignedHeaders must be in every proof's SignedHeaders.
var requiredSignedHeaders = []string{"host", "x-amz-date", strings.ToLower(HeaderFunction), strings.ToLower(HeaderRequestSHA256)}

// STSEndpoint is the STS endpoint a proof is made for and sent to: the
// override when set, else the regional endpoint of region
// (https://docs.aws.amazon.com/general/latest/gr/sts.html).
func STSEndpoint(region, override string) string {
	if override != "" {
		return strings.TrimRight(override, "/")
	}
	suffix := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = "amazonaws.com.cn"
	}
	return "https://sts." + region + "." + suffix
}

// RequestSHA256 is the lowercase hex SHA-256 of a request's bytes.
func RequestSHA256(request []byte) string {
	sum := sha256.Sum256(request)
	return hex.EncodeToString(sum[:])
}

// IdentityRequest is the unsigned GetCallerIdentity request whose signature
// proves who sends request to function: POST endpoint/ with IdentityBody
// and the binding headers. The caller signs it (SigV4, service sts, the
// endpoint's region); the function builds the same request and sends it.
func IdentityRequest(endpoint, function string, request []byte) (*http.Request, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("STS endpoint %q: want a URL such as https://sts.us-east-1.amazonaws.com", Cut(endpoint, MaxShownChars))
	}
	u.Path, u.RawQuery = "/", ""
	r, err := http.NewRequest(http.MethodPost, u.String(), bytes.NewReader([]byte(IdentityBody)))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", IdentityContentType)
	r.Header.Set(HeaderFunction, function)
	r.Header.Set(HeaderRequestSHA256, RequestSHA256(request))
	return r, nil
}

// FunctionNameOf is the function name of a name, a partial or full ARN, with
// or without a qualifier: what HeaderFunction carries.
func FunctionNameOf(nameOrARN string) string {
	parts := strings.Split(nameOrARN, ":")
	for i, p := range parts {
		if p == "function" && i+1 < len(parts) {
			return parts[i+1]
		}
	}
	return parts[0] // a name, or name:qualifier
}

// CheckIdentity checks a proof's form before it is sent to STS: SigV4 over
// service sts, signing the binding headers and no header the function does
// not send. It returns what is wrong, "" when nothing.
func CheckIdentity(id Identity) string {
	a := id.Authorization
	rest, ok := strings.CutPrefix(a, "AWS4-HMAC-SHA256 ")
	if !ok {
		return "authorization: want an AWS4-HMAC-SHA256 signature (SigV4)"
	}
	var cred, signed string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "Credential":
			cred = v
		case "SignedHeaders":
			signed = v
		}
	}
	scope := strings.Split(cred, "/")
	if len(scope) != 5 || scope[3] != IdentityService || scope[4] != "aws4_request" {
		return "authorization: want a credential scope KEY/DATE/REGION/sts/aws4_request (a signature for STS)"
	}
	headers := strings.Split(signed, ";")
	for _, h := range requiredSignedHeaders {
		if !slices.Contains(headers, h) {
			return fmt.Sprintf("authorization: want %s among the signed headers (%s)", h, strings.Join(requiredSignedHeaders, ", "))
		}
	}
	for _, h := range headers {
		if !slices.Contains(SignedHeaders(), h) {
			return fmt.Sprintf("authorization: signed header %q is not one the function sends (%s)", Cut(h, MaxShownChars), strings.Join(SignedHeaders(), ", "))
		}
	}
	if id.AmzDate == "" {
		return "amzDate: want the X-Amz-Date of the signature"
	}
	return ""
}

// ErrNoIdentity is DecodeSigned's answer for a payload that carries no
// proof of identity (a plain request).
var ErrNoIdentity = fmt.Errorf("the request carries no caller identity")

// DecodeSigned splits an invocation's payload into the request's text and
// the proof. A payload that is not an object of exactly "request" (a
// string) and "identity" is ErrNoIdentity (a plain request, or nothing
// trainq sends); a proof of the wrong shape is a problem list.
func DecodeSigned(payload []byte) (Signed, Problems, error) {
	var s Signed
	if len(payload) > MaxRequestBytes+MaxIdentityBytes {
		var ps Problems
		ps.Addf("payload", fmt.Sprintf("%d bytes", len(payload)), "at most %d bytes", MaxRequestBytes+MaxIdentityBytes)
		return s, ps, nil
	}
	members, err := SplitObject(payload)
	if err != nil || !json.Valid(payload) {
		return s, nil, ErrNoIdentity
	}
	var req, id []byte
	for _, m := range members {
		switch m.Name {
		case "request":
			req = bytes.TrimSpace(m.Value)
		case "identity":
			id = bytes.TrimSpace(m.Value)
		default:
			return s, nil, ErrNoIdentity
		}
	}
	if req == nil || id == nil || len(members) != 2 {
		return s, nil, ErrNoIdentity
	}
	var ps Problems
	if len(id) > MaxIdentityBytes {
		ps.Addf("identity", fmt.Sprintf("%d bytes", len(id)), "at most %d bytes", MaxIdentityBytes)
		return s, ps, nil
	}
	dec := json.NewDecoder(bytes.NewReader(id))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Identity); err != nil {
		ps.Add("identity", Shown(DescribeJSON(id)), `an object {"authorization": ..., "amzDate": ..., "securityToken": ...}: the SigV4 headers of the caller's GetCallerIdentity request`)
		return s, ps, nil
	}
	switch {
	case bytes.HasPrefix(req, []byte("{")):
		// The request as a raw object, its bytes exactly as sent (what a
		// request that is not valid UTF-8 needs: a JSON string cannot
		// carry it).
		s.Request = string(req)
	case json.Unmarshal(req, &s.Request) != nil:
		return s, nil, ErrNoIdentity
	}
	return s, nil, nil
}
