package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/trainq/trainq/contract"
)

// Sign wraps request for function with the caller's proof of identity: the
// SigV4 signature (service sts, cfg's region) of the GetCallerIdentity
// request contract.IdentityRequest builds for function and request's bytes,
// made with cfg's credentials at now, for the STS endpoint stsEndpoint (""
// means contract.EnvSTSEndpoint's, else cfg's region's): the one the
// function verifies against. The payload is what the submission function is
// invoked with.
func Sign(ctx context.Context, cfg aws.Config, stsEndpoint, function string, request []byte, now time.Time) ([]byte, error) {
	if cfg.Credentials == nil {
		return nil, fmt.Errorf("sign the request: no AWS credentials (the SDK's standard configuration found none)")
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("sign the request: AWS credentials: %w", err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("sign the request: no AWS region (set --region or AWS_REGION)")
	}
	if stsEndpoint == "" {
		stsEndpoint = contract.STSEndpoint(cfg.Region, os.Getenv(contract.EnvSTSEndpoint))
	}
	r, err := contract.IdentityRequest(stsEndpoint, contract.FunctionNameOf(function), request)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(contract.IdentityBody))
	if err := v4.NewSigner().SignHTTP(ctx, creds, r, hex.EncodeToString(sum[:]), contract.IdentityService, cfg.Region, now); err != nil {
		return nil, fmt.Errorf("sign the request: %w", err)
	}
	id := contract.Identity{
		Authorization: r.Header.Get("Authorization"),
		AmzDate:       r.Header.Get("X-Amz-Date"),
		SecurityToken: r.Header.Get("X-Amz-Security-Token"),
	}
	if utf8.Valid(request) {
		return json.Marshal(contract.Signed{Request: string(request), Identity: id})
	}
	// A JSON string cannot carry bytes that are not UTF-8: the request goes
	// as it is, a raw object, so that the function sees (and refuses) it.
	trimmed := bytes.TrimSpace(request)
	if !bytes.HasPrefix(trimmed, []byte("{")) {
		return nil, fmt.Errorf("sign the request: it is neither valid UTF-8 nor a JSON object")
	}
	idJSON, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(trimmed, request) {
		return nil, fmt.Errorf("sign the request: a request that is not valid UTF-8 must have no surrounding white space")
	}
	return []byte(`{"request":` + string(request) + `,"identity":` + string(idJSON) + `}`), nil
}
