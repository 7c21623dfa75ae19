package platform

import (
	"slices"
	"strings"
)

// Limits that AWS Batch and SageMaker place on a platform.
const (
	MaxQuotaSharesPerQueue    = 20
	MaxCapacityLimitsPerShare = 5
	MinWeight                 = 0.0001
	MaxWeight                 = 999.9999
	MaxShareDecaySeconds      = 604800
	MaxComputeReservation     = 99
	MaxSchedulingPriority     = 9999
	MaxQueuePriority          = 1000
	MaxRetries                = 9
	MaxPreemptionRetries      = 9999
	MaxRuntimeSecondsLimit    = 28 * 24 * 3600
)

// trainq's own bounds on re-routing and checkpoints.
const (
	MinRerouteAfterSeconds = 60
	MaxRerouteAfterSeconds = 86400
	MaxRerouteMoves        = 10
	MinCheckpointSeconds   = 60
	MaxCheckpointSeconds   = 86400
	// MaxMovesPerMinuteLimit keeps the re-router at 2 submissions a second,
	// under half of AWS Batch's about 5 a second per account, which it
	// shares with the submission function.
	MaxMovesPerMinuteLimit = 120
)

// charPattern is the shape of a name: 1 to max characters, the first one
// of first and the others of rest (sets of ASCII characters). It is
// matched without the regexp package, as are the IDs and ARNs of
// shapes.go: the first expression a program compiles costs it about 0.2
// ms, which every function's cold start paid in Validate.
type charPattern struct {
	first, rest string
	max         int
}

func (p charPattern) MatchString(s string) bool {
	if len(s) == 0 || len(s) > p.max || strings.IndexByte(p.first, s[0]) < 0 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if strings.IndexByte(p.rest, s[i]) < 0 {
			return false
		}
	}
	return true
}

// Character sets of charPattern.
const (
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
)

// trainq's own names. The names and ARNs AWS Batch and IAM accept (quota
// share names, fair-share identifiers, instance types, role ARNs) are
// package batchrules' rules, which validation calls; the IDs and ARNs of
// other services are in shapes.go.
var (
	// namePattern: platform names prefix function names (≤64 chars with a
	// suffix) and other resource names: a letter, then letters, digits and
	// '-', at most 32 characters.
	namePattern = charPattern{letters, letters + digits + "-", 32}
	// classPattern: class names are Lambda alias names and metric dimension
	// values: a letter, then letters, digits, '_' and '-', at most 64
	// characters.
	classPattern = charPattern{letters, letters + digits + "_-", 64}
)

// Limits of the training section. SageMaker's VpcConfig takes 1 to 16
// subnets and 1 to 5 security groups
// (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_VpcConfig.html).
// The number of KMS keys is trainq's own cap, which keeps the execution
// role's policy small.
const (
	maxTrainingSubnets        = 16
	maxTrainingSecurityGroups = 5
	maxTrainingKMSKeys        = 20
)

// ValidSubnetID reports whether s is an EC2 subnet ID: subnet- and 8
// (older) or 17 lowercase hex digits.
func ValidSubnetID(s string) bool { return ec2ID(s, "subnet-") }

// ValidSecurityGroupID reports whether s is an EC2 security group ID: sg-
// and 8 (older) or 17 lowercase hex digits.
func ValidSecurityGroupID(s string) bool { return ec2ID(s, "sg-") }

// LogRetentionDays are the log retentions CloudWatch Logs accepts, in days,
// ascending (PutRetentionPolicy, retentionInDays). The constructs translate
// each to the CDK's name for it.
func LogRetentionDays() []int { return slices.Clone(logRetentionDays[:]) }

// logRetentionDays are the log retentions CloudWatch Logs accepts, in days,
// ascending: an array rather than a map, which every function's start
// would build.
var logRetentionDays = [...]int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827,
	2192, 2557, 2922, 3288, 3653}

// validRetention reports whether d is one of logRetentionDays.
func validRetention(d int) bool {
	_, found := slices.BinarySearch(logRetentionDays[:], d)
	return found
}
