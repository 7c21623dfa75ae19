package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/ssocreds"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
)

// awsConfig loads the SDK's standard configuration (environment, shared
// files, SSO, the instance's role) with --region and --aws-profile, and
// checks the region and the credentials before anything is sent, so that a
// missing one is told as such, with what to do, rather than as the SDK's
// chain of errors. The SDK's own log (its "falling back to IMDSv1" warning
// when no credentials are found off EC2) is silenced: the error says it.
func (c *cmd) awsConfig(ctx context.Context) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{config.WithLogger(logging.Nop{})}
	if c.region != "" {
		opts = append(opts, config.WithRegion(c.region))
	}
	if c.awsProfile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.awsProfile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		var missing config.SharedConfigProfileNotExistError
		if errors.As(err, &missing) {
			return cfg, fmt.Errorf("AWS profile %q (from %s) is not in your AWS config or credentials file; `aws configure list-profiles` lists them", missing.Profile, c.awsProfileFrom())
		}
		return cfg, fmt.Errorf("load AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return cfg, errors.New("no AWS region: give --region, set TRAINQ_REGION or AWS_REGION, or a region in your trainq profile or AWS profile (the platform's region, e.g. us-east-1)")
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		return cfg, c.credentialsError(err)
	}
	return cfg, nil
}

func (c *cmd) awsProfileFrom() string {
	if from := c.defaults.From("aws-profile"); from != "" {
		return from
	}
	return "AWS_PROFILE"
}

// credentialsError says why no credentials could be had, and what to do.
func (c *cmd) credentialsError(err error) error {
	profile := "your AWS profile"
	login := "aws sso login"
	if c.awsProfile != "" {
		profile = "AWS profile " + c.awsProfile
		login += " --profile " + c.awsProfile
	}
	var sso *ssocreds.InvalidTokenError
	if errors.As(err, &sso) || strings.Contains(err.Error(), "SSO") && strings.Contains(strings.ToLower(err.Error()), "expired") {
		return fmt.Errorf("the AWS SSO session of %s has expired or was never started: run `%s`, then try again", profile, login)
	}
	if strings.Contains(err.Error(), "IMDS") || strings.Contains(err.Error(), "no valid providers") {
		return errors.New("no AWS credentials found (none in the environment, the AWS config and credentials files, nor an instance role): " +
			"run `aws configure` or `aws sso login`, set AWS_PROFILE (or --aws-profile, TRAINQ_AWS_PROFILE, a trainq profile's awsProfile), " +
			"or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	return fmt.Errorf("cannot load the AWS credentials of %s: %v", profile, rootCause(err))
}

// authError turns the answers AWS gives to credentials it will not take
// (expired, unknown, badly signed), and Lambda's throttling, into what to
// do about them; other errors are returned as they are.
func (c *cmd) authError(err error) error {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return err
	}
	switch api.ErrorCode() {
	case "ExpiredTokenException", "ExpiredToken", "RequestExpired", "TokenRefreshRequired":
		return errors.New("your AWS credentials have expired: refresh them (`aws sso login`, or new temporary keys for AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN) and try again")
	case "TooManyRequestsException":
		return errors.New("the submission function is throttled (the account's Lambda concurrency in the region is in use; the SDK retried): try again shortly with the same --idempotency-key, which never creates a second job")
	case "UnrecognizedClientException", "InvalidClientTokenId", "InvalidSignatureException", "SignatureDoesNotMatch":
		return fmt.Errorf("AWS does not accept your credentials (%s): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or your AWS profile, and that the keys are not deleted or inactive", api.ErrorCode())
	}
	return err
}

// rootCause is the innermost error of a chain: the SDK wraps its causes
// several times over ("operation error …, get identity: get credentials:
// failed to refresh cached credentials, …").
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
