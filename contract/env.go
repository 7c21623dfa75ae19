package contract

import "path/filepath"

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
