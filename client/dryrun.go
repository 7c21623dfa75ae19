package client

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/platform"
)

// EnvArtifactsBucket is where submit --dry-run reads the platform's
// artifacts bucket (the stack's ArtifactsBucketName output) when
// --artifacts-bucket is not given.
const EnvArtifactsBucket = "TRAINQ_ARTIFACTS_BUCKET"

// dryRunHints name the CLI's flag for each missing field.
var dryRunHints = map[string]string{
	"jobName": "--job-name", "team": "--team", "class": "--class", "trainingJob": "--training-job FILE",
}

// checkSubmit runs the door on req, the check the submission function runs
// (door.Check, the same function), so that --dry-run refuses what the
// function would refuse, with the same errorType and problems, and says
// what it could not check for want of a deployment fact (the artifacts
// bucket, the account, the region, the team's execution role). A refusal
// is a *contract.FunctionError, as the function's answer would be.
func (c *cmd) checkSubmit(ctx context.Context, p *platform.Platform, req contract.Request) (*door.Verdict, error) {
	env := door.Env{ArtifactsBucket: c.artifactsBucket, Account: c.account, Region: c.region}
	if env.ArtifactsBucket == "" {
		env.ArtifactsBucket = os.Getenv(EnvArtifactsBucket)
	}
	if env.Region == "" {
		// The SDK's configuration (AWS_REGION, the profile): read from the
		// environment and files only, no call.
		if cfg, err := config.LoadDefaultConfig(ctx); err == nil {
			env.Region = cfg.Region
		}
	}
	v := door.Check(p, env, req, door.Options{Hints: dryRunHints, Placeholders: true})
	if v.Refused() {
		return v, &contract.FunctionError{Type: string(v.Kind()),
			Message: v.Report() + fmt.Sprintf("\n(checked against platform %q, %s)", p.Name, c.defaults.PlatformSource(c.platform))}
	}
	return v, nil
}
