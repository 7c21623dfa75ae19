package contract

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// Environment variables the functions read at init (the constructs set
// them).
const (
	// EnvJobQueue is the job queue ARN, for every function.
	EnvJobQueue = "TRAINQ_JOB_QUEUE"
	// EnvExecutionRoleARN is the submitter's SageMaker execution role ARN
	// for every team that EnvExecutionRoleARNs does not name.
	EnvExecutionRoleARN = "TRAINQ_EXECUTION_ROLE_ARN"
	// EnvExecutionRoleARNs is a JSON object of team name to the SageMaker
	// execution role ARN that team's jobs run as ({"nlp":"arn:aws:iam::…"}).
	EnvExecutionRoleARNs = "TRAINQ_EXECUTION_ROLE_ARNS"
	// EnvGrants is a JSON object (Grants) of the grants the constructs
	// record (GrantSubmit, GrantOperate) beyond the platform file's
	// submission.submitters and submission.operators. Default: none.
	EnvGrants = "TRAINQ_GRANTS"
	// EnvPlatformFile is the optional path of the platform file (JSON or
	// YAML). Default: PlatformFileName in $LAMBDA_TASK_ROOT, else next to
	// the executable (see PlatformFile).
	EnvPlatformFile = "TRAINQ_PLATFORM_FILE"
	// PlatformFileName is the platform file bundled next to each function's
	// bootstrap.
	PlatformFileName = "platform.json"
	// EnvLedgerTable is the name of the job ledger's DynamoDB table, for
	// the observer (which writes it) and the submission function (which
	// reads it for history, usage and trace export). Unset: no ledger.
	EnvLedgerTable = "TRAINQ_LEDGER_TABLE"
	// EnvLambdaTaskRoot is where Lambda unpacks a function's code (set by
	// Lambda, not by trainq).
	EnvLambdaTaskRoot = "LAMBDA_TASK_ROOT"
)

// PlatformFile returns where a function reads its platform:
// $TRAINQ_PLATFORM_FILE, else platform.json in $LAMBDA_TASK_ROOT, else
// platform.json next to executable.
func PlatformFile(getenv func(string) string, executable string) string {
	if f := getenv(EnvPlatformFile); f != "" {
		return f
	}
	if root := getenv(EnvLambdaTaskRoot); root != "" {
		return filepath.Join(root, PlatformFileName)
	}
	return filepath.Join(filepath.Dir(executable), PlatformFileName)
}

// Grants is EnvGrants' value.
type Grants struct {
	// Submitters are roles granted (class, team) pairs, as in the platform
	// file's submission.submitters.
	Submitters []GrantedSubmitter `json:"submitters,omitempty"`
	// Operators are role ARNs that act platform-wide.
	Operators []string `json:"operators,omitempty"`
}

// GrantedSubmitter is one GrantSubmit: a role, a class and a team.
type GrantedSubmitter struct {
	RoleARN string `json:"roleArn"`
	Class   string `json:"class"`
	Team    string `json:"team"`
}

// ExecutionRoles reads, from a function's environment, the SageMaker
// execution role of each of teams: its own in EnvExecutionRoleARNs, else
// EnvExecutionRoleARN. It returns both as set and every problem, each
// naming the variable, the value and what is allowed. The submission
// function pins these roles; the re-router's door checks a moved job's
// against them.
func ExecutionRoles(getenv func(string) string, teams []string) (fallback string, byTeam map[string]string, errs []error) {
	fallback = getenv(EnvExecutionRoleARN)
	if v := getenv(EnvExecutionRoleARNs); v != "" {
		if err := json.Unmarshal([]byte(v), &byTeam); err != nil {
			errs = append(errs, fmt.Errorf("%s: got %q, want a JSON object of team name to execution role ARN: %w", EnvExecutionRoleARNs, Cut(v, MaxShownChars), err))
		}
		for team, arn := range byTeam {
			if !batchrules.ValidRoleARN(arn) {
				errs = append(errs, fmt.Errorf("%s: team %q got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker", EnvExecutionRoleARNs, team, arn))
			}
		}
	}
	if byTeam == nil && !batchrules.ValidRoleARN(fallback) {
		errs = append(errs, fmt.Errorf("%s: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker (or set %s)", EnvExecutionRoleARN, fallback, EnvExecutionRoleARNs))
		return fallback, byTeam, errs
	}
	for _, team := range teams {
		if _, own := byTeam[team]; !own && !batchrules.ValidRoleARN(fallback) {
			errs = append(errs, fmt.Errorf("%s: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker (team %s has none in %s)", EnvExecutionRoleARN, fallback, team, EnvExecutionRoleARNs))
			break
		}
	}
	return fallback, byTeam, errs
}

// ArtifactsBucket reads EnvCheckpointBucket, the platform's artifacts
// bucket: "" when unset, an error naming the variable when it is no
// bucket name.
func ArtifactsBucket(getenv func(string) string) (string, error) {
	b := getenv(EnvCheckpointBucket)
	if b == "" {
		return "", nil
	}
	if loc, err := platform.ParseS3URI("s3://" + b + "/"); err != nil || loc.Bucket != b {
		return b, fmt.Errorf("%s: got %q, want an S3 bucket name such as trainq-artifacts-123456789012 (3 to 63 lowercase letters, digits, '-' and '.'), or unset", EnvCheckpointBucket, Cut(b, MaxShownChars))
	}
	return b, nil
}
