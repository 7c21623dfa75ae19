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
		PlatformFile:     contract.PlatformFile(getenv, executable),
		CheckpointBucket: getenv(contract.EnvCheckpointBucket),
	}
	var errs []error
	p, err := platform.LoadJSONFile(s.PlatformFile)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s (set %s or bundle %s): %w", s.PlatformFile, contract.EnvPlatformFile, contract.PlatformFileName, err))
	}
	s.Platform = p
	if !batchrules.ValidJobQueueARN(s.JobQueue) {
		errs = append(errs, fmt.Errorf("%s: got %q, want a job queue ARN such as arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training", contract.EnvJobQueue, s.JobQueue))
	}
	var teams []string
	if p != nil {
		teams = p.TeamNames()
	}
	var roleErrs []error
	s.ExecutionRoleARN, s.ExecutionRoleARNs, roleErrs = contract.ExecutionRoles(getenv, teams)
	errs = append(errs, roleErrs...)
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
	if _, err := contract.ArtifactsBucket(getenv); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("submitter configuration: %w", errors.Join(errs...))
	}
	return s, nil
}
