// Package awsenv builds the functions' AWS configuration from the
// environment Lambda gives a function, the one rule all four functions
// (submitter, observer, poller, re-router) call.
//
// In Lambda the SDK's default chain (config.LoadDefaultConfig) always ends
// at the environment: Lambda sets the region (AWS_REGION) and the execution
// role's credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN) as reserved variables
// (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime).
// Linking that chain costs every cold start the package initialisation of
// the SSO, SSO OIDC, STS and sign-in clients and the shared-config parser
// (about 4,400 allocations), which a function never uses; this package reads
// the same variables the chain's environment step reads and nothing else.
//
// What it reads, in the SDK's order and meaning:
//   - region: AWS_REGION, else AWS_DEFAULT_REGION;
//   - credentials: AWS_ACCESS_KEY_ID (else AWS_ACCESS_KEY),
//     AWS_SECRET_ACCESS_KEY (else AWS_SECRET_KEY), AWS_SESSION_TOKEN,
//     AWS_ACCOUNT_ID;
//   - endpoints (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html):
//     AWS_ENDPOINT_URL for every service, AWS_ENDPOINT_URL_<SERVICE> (the
//     service's SDK id upper-cased, spaces as underscores: BATCH, DYNAMODB)
//     over it for one service, and AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true
//     to ignore both. The local Batch endpoint and the local DynamoDB of the
//     tests are given this way.
//
// Shared config and credentials files, profiles, web identity, container
// and instance credentials are not read: a region or credentials missing
// from the environment is an error that names the variable. Retries are not
// set here: each client sets its own (batchsdk's policies).
//
// It must never import aws-sdk-go-v2/config, the AWS CDK, jsii or
// constructs.
package awsenv

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"
)

// The variables read, as the SDKs name them.
const (
	Region                    = "AWS_REGION"
	DefaultRegion             = "AWS_DEFAULT_REGION"
	AccessKeyID               = "AWS_ACCESS_KEY_ID"
	accessKey                 = "AWS_ACCESS_KEY"
	SecretAccessKey           = "AWS_SECRET_ACCESS_KEY"
	secretKey                 = "AWS_SECRET_KEY"
	SessionToken              = "AWS_SESSION_TOKEN"
	AccountID                 = "AWS_ACCOUNT_ID"
	EndpointURL               = "AWS_ENDPOINT_URL"
	IgnoreConfiguredEndpoints = "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"
)

// Load is Config over the process's environment: what a function's main
// calls.
func Load() (aws.Config, error) { return Config(os.Environ()) }

// Config returns the AWS configuration that environ (KEY=value entries, as
// os.Environ gives them) describes: its region, its static credentials,
// AWS_ENDPOINT_URL as the base endpoint and AWS_ENDPOINT_URL_<SERVICE> for
// the service it names, and the SDK's standard logger on stderr. A missing
// region or key, a secret without a key (or the reverse), an endpoint that
// is no http(s) URL, or an AWS_IGNORE_CONFIGURED_ENDPOINT_URLS that is not
// true or false is an error naming the variable, the value and what is
// allowed, every problem at once.
func Config(environ []string) (aws.Config, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	var problems []string
	region := first(env, Region, DefaultRegion)
	if region == "" {
		problems = append(problems, fmt.Sprintf("%s: got nothing (nor %s), want the function's region, which Lambda sets", Region, DefaultRegion))
	}
	key, secret := first(env, AccessKeyID, accessKey), first(env, SecretAccessKey, secretKey)
	switch {
	case key == "" && secret == "":
		problems = append(problems, fmt.Sprintf("%s and %s: got nothing, want the execution role's credentials, which Lambda sets"+
			" (shared config files, profiles, container and instance credentials are not read)", AccessKeyID, SecretAccessKey))
	case key == "":
		problems = append(problems, fmt.Sprintf("%s: got nothing beside %s, want both", AccessKeyID, SecretAccessKey))
	case secret == "":
		problems = append(problems, fmt.Sprintf("%s: got nothing beside %s, want both", SecretAccessKey, AccessKeyID))
	}
	src := source{endpoints: map[string]string{}}
	switch v := env[IgnoreConfiguredEndpoints]; strings.ToLower(v) {
	case "", "false":
	case "true":
		src.ignore = true
	default:
		problems = append(problems, fmt.Sprintf("%s: got %q, want true or false", IgnoreConfiguredEndpoints, v))
	}
	var base string
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := env[k]
		if k != EndpointURL && !strings.HasPrefix(k, EndpointURL+"_") || v == "" {
			continue
		}
		if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("%s: got %q, want an http or https URL with a host", k, v))
			continue
		}
		if k == EndpointURL {
			base = v
		} else {
			src.endpoints[strings.TrimPrefix(k, EndpointURL+"_")] = v
		}
	}
	if len(problems) > 0 {
		return aws.Config{}, fmt.Errorf("AWS configuration from the environment: %s", strings.Join(problems, "; "))
	}
	cfg := aws.Config{
		Region: region,
		Credentials: credentials.StaticCredentialsProvider{
			Value: aws.Credentials{
				AccessKeyID: key, SecretAccessKey: secret,
				SessionToken: env[SessionToken], AccountID: env[AccountID],
				Source: "EnvConfigCredentials",
			},
			Source: []aws.CredentialSource{aws.CredentialSourceEnvVars},
		},
		// The default chain's logger: the SDK's rare warnings (clock skew,
		// a response's checksum) in the function's log.
		Logger:        logging.NewStandardLogger(os.Stderr),
		ConfigSources: []any{src},
	}
	if base != "" && !src.ignore {
		cfg.BaseEndpoint = aws.String(base)
	}
	return cfg, nil
}

// first is the value of the first of names that is set and not empty.
func first(env map[string]string, names ...string) string {
	for _, n := range names {
		if v := env[n]; v != "" {
			return v
		}
	}
	return ""
}

// source answers the service clients' questions about configured endpoints
// (the SDK's configsources.ServiceBaseEndpointProvider and
// IgnoreConfiguredEndpointsProvider, which each client asks of
// aws.Config.ConfigSources when it is built).
type source struct {
	// endpoints maps a service's key (BATCH, DYNAMODB) to its URL.
	endpoints map[string]string
	ignore    bool
}

// GetServiceBaseEndpoint is AWS_ENDPOINT_URL_<SERVICE> for the service
// whose SDK id is sdkID ("Batch", "DynamoDB"): upper-cased, spaces as
// underscores, as the SDK's environment step names it.
func (s source) GetServiceBaseEndpoint(_ context.Context, sdkID string) (string, bool, error) {
	if s.ignore {
		return "", false, nil
	}
	v, ok := s.endpoints[strings.ReplaceAll(strings.ToUpper(sdkID), " ", "_")]
	return v, ok, nil
}

// GetIgnoreConfiguredEndpoints is AWS_IGNORE_CONFIGURED_ENDPOINT_URLS.
func (s source) GetIgnoreConfiguredEndpoints(context.Context) (bool, bool, error) {
	return s.ignore, s.ignore, nil
}
