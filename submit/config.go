package submit

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Settings is the function's configuration read from its environment.
type Settings struct {
	Platform          *platform.Platform
	PlatformFile      string
	JobQueue          string
	ExecutionRoleARN  string
	ExecutionRoleARNs map[string]string
	// CheckpointBucket is contract.EnvCheckpointBucket ("" when unset).
	CheckpointBucket string
	// Submitters and Operators are contract.EnvGrants' grants.
	Submitters []platform.Submitter
	Operators  []string
	// STSEndpoint is where callers' identities are verified:
	// contract.EnvSTSEndpoint, else the regional endpoint of AWS_REGION.
	STSEndpoint string
}

// LoadSettings reads the environment through getenv. The platform file is
// contract.PlatformFile's. Every missing or invalid setting is
// reported at once.
func LoadSettings(getenv func(string) string, executable string) (Settings, error) {
	s := Settings{
		JobQueue:         getenv(contract.EnvJobQueue),
		ExecutionRoleARN: getenv(contract.EnvExecutionRoleARN),
		PlatformFile:     contract.PlatformFile(getenv, executable),
		CheckpointBucket: getenv(contract.EnvCheckpointBucket),
	}
	var errs []error
	p, err := platform.LoadFile(s.PlatformFile)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s (set %s or bundle %s): %w", s.PlatformFile, contract.EnvPlatformFile, contract.PlatformFileName, err))
	}
	s.Platform = p
	if !batchrules.ValidJobQueueARN(s.JobQueue) {
		errs = append(errs, fmt.Errorf("%s: got %q, want a job queue ARN such as arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training", contract.EnvJobQueue, s.JobQueue))
	}
	if v := getenv(contract.EnvExecutionRoleARNs); v != "" {
		if err := json.Unmarshal([]byte(v), &s.ExecutionRoleARNs); err != nil {
			errs = append(errs, fmt.Errorf("%s: got %q, want a JSON object of team name to execution role ARN: %w", contract.EnvExecutionRoleARNs, contract.Cut(v, contract.MaxShownChars), err))
		}
		for team, arn := range s.ExecutionRoleARNs {
			if !batchrules.ValidRoleARN(arn) {
				errs = append(errs, fmt.Errorf("%s: team %q got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker", contract.EnvExecutionRoleARNs, team, arn))
			}
		}
	}
	if s.ExecutionRoleARNs == nil && !batchrules.ValidRoleARN(s.ExecutionRoleARN) {
		errs = append(errs, fmt.Errorf("%s: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker (or set %s)", contract.EnvExecutionRoleARN, s.ExecutionRoleARN, contract.EnvExecutionRoleARNs))
	} else if p != nil {
		for _, team := range p.TeamNames() {
			if _, own := s.ExecutionRoleARNs[team]; !own && !batchrules.ValidRoleARN(s.ExecutionRoleARN) {
				errs = append(errs, fmt.Errorf("%s: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker (team %s has none in %s)", contract.EnvExecutionRoleARN, s.ExecutionRoleARN, team, contract.EnvExecutionRoleARNs))
				break
			}
		}
	}
	if v := getenv(contract.EnvGrants); v != "" {
		var g contract.Grants
		if err := json.Unmarshal([]byte(v), &g); err != nil {
			errs = append(errs, fmt.Errorf("%s: got %q, want a JSON object {\"submitters\": [{\"roleArn\", \"class\", \"team\"}...], \"operators\": [ROLE ARN...]}: %w", contract.EnvGrants, contract.Cut(v, contract.MaxShownChars), err))
		}
		for _, sub := range g.Submitters {
			s.Submitters = append(s.Submitters, platform.Submitter{RoleARN: sub.RoleARN, Classes: []string{sub.Class}, Teams: []string{sub.Team}})
		}
		s.Operators = g.Operators
	}
	region := getenv("AWS_REGION")
	if region == "" && getenv(contract.EnvSTSEndpoint) == "" {
		errs = append(errs, fmt.Errorf("AWS_REGION: got nothing, want the function's region (Lambda sets it), or set %s", contract.EnvSTSEndpoint))
	}
	s.STSEndpoint = contract.STSEndpoint(region, getenv(contract.EnvSTSEndpoint))
	if b := s.CheckpointBucket; b != "" {
		if loc, err := platform.ParseS3URI("s3://" + b + "/"); err != nil || loc.Bucket != b {
			errs = append(errs, fmt.Errorf("%s: got %q, want an S3 bucket name such as trainq-artifacts-123456789012 (3 to 63 lowercase letters, digits, '-' and '.'), or unset", contract.EnvCheckpointBucket, contract.Cut(b, contract.MaxShownChars)))
		}
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("submitter configuration: %w", errors.Join(errs...))
	}
	return s, nil
}
