package submit

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
)

// Verifier tells who signed a proof of identity (contract.Identity) for
// function and the request whose SHA-256 is digest: the caller's ARN as
// STS's GetCallerIdentity answers it.
type Verifier interface {
	Verify(ctx context.Context, id contract.Identity, function string, request []byte) (string, error)
}

// ErrNotVerified wraps every refusal of a proof: the caller's mistake
// (Forbidden), unlike an STS that cannot be reached (UpstreamError).
var ErrNotVerified = errors.New("identity not verified")

// STSVerifier verifies proofs by sending the GetCallerIdentity request they
// sign to STS: STS answers with the signer's ARN only if the signature is
// valid, current (15 minutes) and the signer's own.
type STSVerifier struct {
	// Endpoint is the STS endpoint (contract.STSEndpoint of the function's
	// region). Required.
	Endpoint string
	// Client sends the request. Default: a client with a 10 s timeout.
	Client *http.Client
}

// maxSTSAnswerBytes bounds what is read of STS's answer.
const maxSTSAnswerBytes = 64 * 1024

type callerIdentityAnswer struct {
	Arn     string `xml:"GetCallerIdentityResult>Arn"`
	Account string `xml:"GetCallerIdentityResult>Account"`
}

type stsError struct {
	Code    string `xml:"Error>Code"`
	Message string `xml:"Error>Message"`
}

// Verify implements Verifier.
func (v *STSVerifier) Verify(ctx context.Context, id contract.Identity, function string, request []byte) (string, error) {
	if msg := contract.CheckIdentity(id); msg != "" {
		return "", fmt.Errorf("%w: %s", ErrNotVerified, msg)
	}
	r, err := contract.IdentityRequest(v.Endpoint, function, request)
	if err != nil {
		return "", err
	}
	r = r.WithContext(ctx)
	r.Header.Set("Authorization", id.Authorization)
	r.Header.Set("X-Amz-Date", id.AmzDate)
	if id.SecurityToken != "" {
		r.Header.Set("X-Amz-Security-Token", id.SecurityToken)
	}
	client := v.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(r)
	if err != nil {
		return "", fmt.Errorf("STS GetCallerIdentity: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSTSAnswerBytes))
	if err != nil {
		return "", fmt.Errorf("STS GetCallerIdentity: read answer: %w", err)
	}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		var e stsError
		_ = xml.Unmarshal(body, &e)
		return "", fmt.Errorf("%w: STS refused the signature (HTTP %d %s: %s)", ErrNotVerified, resp.StatusCode,
			contract.Cut(e.Code, contract.MaxShownChars), contract.Cut(e.Message, contract.MaxShownChars))
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("STS GetCallerIdentity: HTTP %d", resp.StatusCode)
	}
	var a callerIdentityAnswer
	if err := xml.Unmarshal(body, &a); err != nil || a.Arn == "" {
		return "", fmt.Errorf("STS GetCallerIdentity: an answer without an ARN (%s)", contract.Cut(string(body), contract.MaxShownChars))
	}
	return a.Arn, nil
}

// howToCall says how to reach the function with an identity.
const howToCall = "the submission function acts only on requests that carry the caller's signed identity " +
	"({\"request\": \"<the request as JSON text>\", \"identity\": ...}: a SigV4 signature over STS GetCallerIdentity naming the function and the request's SHA-256); " +
	"call it with the trainq CLI, or sign as docs/submission.md shows (Python: examples/signed_invoke.py). " +
	"A plain invocation of the function, of $LATEST, of a version or of an alias carries no identity and is refused"

// identify verifies the proof of payload and returns the request's bytes
// and the caller: its role and grant. Every failure is Forbidden but an
// STS that cannot be reached (UpstreamError).
func (h *Handler) identify(ctx context.Context, caller Caller, payload []byte) ([]byte, Caller, error) {
	signed, ps, err := contract.DecodeSigned(payload)
	if errors.Is(err, contract.ErrNoIdentity) {
		return nil, caller, &Error{Kind: contract.KindForbidden, Message: "no caller identity: " + howToCall}
	}
	if len(ps) > 0 {
		return nil, caller, forbidden(ps)
	}
	function := contract.FunctionNameOf(caller.FunctionARN)
	arn, err := h.cfg.Identity.Verify(ctx, signed.Identity, function, []byte(signed.Request))
	if errors.Is(err, ErrNotVerified) {
		return nil, caller, &Error{Kind: contract.KindForbidden, Message: "caller identity not verified", Err: err}
	}
	if err != nil {
		return nil, caller, &Error{Kind: contract.KindUpstream, Message: "verify the caller's identity; retry", Err: err}
	}
	caller.Principal = arn
	key, ok := batchrules.CallerRoleKey(arn)
	if !ok {
		var ps problems
		ps.Add("caller", arn, "an IAM role's session (arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION): only roles are granted (submission.submitters, submission.operators)")
		return nil, caller, forbidden(ps)
	}
	caller.Role = key.String()
	caller.grant = h.access.Of(key)
	if caller.grant == nil {
		var ps problems
		ps.Add("caller", caller.Role, "a role granted a class and team (submission.submitters, or GrantSubmit) or an operator (submission.operators, or GrantOperate)")
		return nil, caller, forbidden(ps)
	}
	return []byte(signed.Request), caller, nil
}

// grantedPairs describes what the caller is granted, for messages.
func (c Caller) grantedPairs() string {
	if c.grant == nil {
		return "nothing"
	}
	if c.grant.Operator {
		return "every class and team (operator)"
	}
	return strings.Join(c.grant.Pairs(), ", ")
}

// changedBy names the caller on the jobs it changes (status reason, tag).
func (c Caller) changedBy() string {
	name := c.Role[strings.LastIndex(c.Role, "/")+1:]
	return contract.ChangedByRole(name, c.operator())
}
