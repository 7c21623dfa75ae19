package observe

import (
	"path/filepath"
)

// Environment variables the observer and poller functions read.
const (
	// EnvPlatformFile is the path of the platform file (JSON or YAML).
	EnvPlatformFile = "TRAINQ_PLATFORM_FILE"
	// EnvJobQueue is the job queue's ARN (or name).
	EnvJobQueue = "TRAINQ_JOB_QUEUE"
	// envTaskRoot is where Lambda unpacks the function's code.
	envTaskRoot = "LAMBDA_TASK_ROOT"
)

// PlatformFileName is the platform file bundled next to each function's
// bootstrap.
const PlatformFileName = "platform.json"

// PlatformFile returns where a function reads its platform: $TRAINQ_PLATFORM_FILE,
// else platform.json in $LAMBDA_TASK_ROOT, else platform.json next to the
// executable.
func PlatformFile(getenv func(string) string, executable string) string {
	if f := getenv(EnvPlatformFile); f != "" {
		return f
	}
	if root := getenv(envTaskRoot); root != "" {
		return filepath.Join(root, PlatformFileName)
	}
	return filepath.Join(filepath.Dir(executable), PlatformFileName)
}
