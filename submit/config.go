package submit

import (
	"errors"
	"fmt"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Settings is the function's configuration read from its environment.
type Settings struct {
	Platform         *platform.Platform
	PlatformFile     string
	JobQueue         string
	ExecutionRoleARN string
}

// LoadSettings reads the environment through getenv. The platform file is
// contract.PlatformFile's. Every missing or invalid setting is
// reported at once.
func LoadSettings(getenv func(string) string, executable string) (Settings, error) {
	s := Settings{
		JobQueue:         getenv(contract.EnvJobQueue),
		ExecutionRoleARN: getenv(contract.EnvExecutionRoleARN),
		PlatformFile:     contract.PlatformFile(getenv, executable),
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
	if !batchrules.ValidRoleARN(s.ExecutionRoleARN) {
		errs = append(errs, fmt.Errorf("%s: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker", contract.EnvExecutionRoleARN, s.ExecutionRoleARN))
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("submitter configuration: %w", errors.Join(errs...))
	}
	return s, nil
}
