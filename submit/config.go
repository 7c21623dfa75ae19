package submit

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/trainq/trainq/platform"
)

// Environment variables the function reads at init.
const (
	EnvPlatformFile     = "TRAINQ_PLATFORM_FILE"
	EnvJobQueue         = "TRAINQ_JOB_QUEUE"
	EnvExecutionRoleARN = "TRAINQ_EXECUTION_ROLE_ARN"
	// PlatformFileName is the platform file bundled next to bootstrap.
	PlatformFileName = "platform.json"
)

// Settings is the function's configuration read from its environment.
type Settings struct {
	Platform         *platform.Platform
	PlatformFile     string
	JobQueue         string
	ExecutionRoleARN string
}

// LoadSettings reads the environment through getenv. The platform file is
// TRAINQ_PLATFORM_FILE, else platform.json in $LAMBDA_TASK_ROOT, else
// platform.json next to executable. Every missing or invalid setting is
// reported at once.
func LoadSettings(getenv func(string) string, executable string) (Settings, error) {
	s := Settings{JobQueue: getenv(EnvJobQueue), ExecutionRoleARN: getenv(EnvExecutionRoleARN)}
	var errs []error
	s.PlatformFile = getenv(EnvPlatformFile)
	if s.PlatformFile == "" {
		if root := getenv("LAMBDA_TASK_ROOT"); root != "" {
			s.PlatformFile = filepath.Join(root, PlatformFileName)
		} else {
			s.PlatformFile = filepath.Join(filepath.Dir(executable), PlatformFileName)
		}
	}
	p, err := platform.LoadFile(s.PlatformFile)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s (set %s or bundle %s): %w", s.PlatformFile, EnvPlatformFile, PlatformFileName, err))
	}
	s.Platform = p
	if !validQueueARN(s.JobQueue) {
		errs = append(errs, fmt.Errorf("%s: got %q, want a job queue ARN such as arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training", EnvJobQueue, s.JobQueue))
	}
	if !validRoleARN(s.ExecutionRoleARN) {
		errs = append(errs, fmt.Errorf("%s: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker", EnvExecutionRoleARN, s.ExecutionRoleARN))
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("submitter configuration: %w", errors.Join(errs...))
	}
	return s, nil
}
