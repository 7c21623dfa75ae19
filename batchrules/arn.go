package batchrules

import (
	"fmt"
	"math"
	"strings"
)

// ARNs follow the service authorization reference's resource types for AWS
// Batch and IAM
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsbatch.html#awsbatch-resources-for-iam-policies,
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsidentityandaccessmanagementiam.html).

// The classes of a Batch ARN's parts, [a-z-], [a-z0-9-] and [0-9], matched
// without the regexp package (see charPattern), of any length as in the
// expression; the callers bound the whole.
var (
	lowerDash   = charPattern{lower + "-", math.MaxInt}
	regionChars = charPattern{lower + digits + "-", math.MaxInt}
	accountID   = charPattern{digits, 12}
	// rolePathAndName is what follows "role/" in a role ARN.
	rolePathAndName = charPattern{letters + digits + "_+=,.@/-", MaxRolePathAndNameLength}
)

// arnParts is s split at its first five colons, when s is an ARN of
// PARTITION aws[a-z-]*, SERVICE and a 12-digit ACCOUNT:
// arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE.
func arnParts(s, service string) (partition, region, account, resource string, ok bool) {
	p := strings.SplitN(s, ":", 6)
	if len(p) != 6 || p[0] != "arn" || p[2] != service || !strings.HasPrefix(p[1], "aws") || p[1] != "aws" && !lowerDash.match(p[1][3:]) ||
		len(p[4]) != 12 || !accountID.match(p[4]) {
		return "", "", "", "", false
	}
	return p[1], p[3], p[4], p[5], true
}

// batchARNParts is s's parts when s is
// arn:PARTITION:batch:REGION:ACCOUNT:RESOURCE-TYPE/NAME, the regular
// expression ^arn:(aws[a-z-]*):batch:([a-z0-9-]+):([0-9]{12}):([a-z-]+)/(.+)$
// (the tests hold it to that expression): a REGION of [a-z0-9-], a
// RESOURCE-TYPE of [a-z-] and a NAME of anything but a newline.
func batchARNParts(s string) (partition, region, account, resource, name string, ok bool) {
	partition, region, account, rest, ok := arnParts(s, "batch")
	resource, name, slash := strings.Cut(rest, "/")
	if !ok || !regionChars.match(region) || !slash || !lowerDash.match(resource) ||
		name == "" || strings.IndexByte(name, '\n') >= 0 {
		return "", "", "", "", "", false
	}
	return partition, region, account, resource, name, true
}

// Resource types of the Batch ARNs trainq reads.
const (
	resourceJobQueue           = "job-queue"
	resourceServiceEnvironment = "service-environment"
	resourceSchedulingPolicy   = "scheduling-policy"
)

// batchARN is the partition, Region, account and name of s, a Batch ARN of
// resource type resource whose name is a ValidName; ok is false otherwise.
func batchARN(s, resource string) (partition, region, account, name string, ok bool) {
	partition, region, account, typ, name, ok := batchARNParts(s)
	if !ok || typ != resource || !ValidName(name) {
		return "", "", "", "", false
	}
	return partition, region, account, name, true
}

// ValidServiceEnvironmentARN reports whether s is a service environment's
// ARN, arn:PARTITION:batch:REGION:ACCOUNT:service-environment/NAME, with a
// ValidName.
func ValidServiceEnvironmentARN(s string) bool {
	_, _, _, _, ok := batchARN(s, resourceServiceEnvironment)
	return ok
}

// ValidSchedulingPolicyARN reports whether s is a scheduling policy's ARN,
// arn:PARTITION:batch:REGION:ACCOUNT:scheduling-policy/NAME, with a
// ValidName.
func ValidSchedulingPolicyARN(s string) bool {
	_, _, _, _, ok := batchARN(s, resourceSchedulingPolicy)
	return ok
}

// MaxRolePathAndNameLength bounds what follows "role/" in a role ARN: the
// role's path (at most 512 characters) and name (at most 64), checked
// together against 512 (https://docs.aws.amazon.com/IAM/latest/APIReference/API_Role.html).
const MaxRolePathAndNameLength = 512

// JobQueueARN is a job queue's ARN,
// arn:PARTITION:batch:REGION:ACCOUNT:job-queue/NAME.
type JobQueueARN struct {
	Partition, Region, Account, Name string
}

// ParseJobQueueARN parses a job queue ARN; the name must be a ValidName.
func ParseJobQueueARN(s string) (JobQueueARN, error) {
	partition, region, account, name, ok := batchARN(s, resourceJobQueue)
	if !ok {
		return JobQueueARN{}, fmt.Errorf("got %q, want a job queue ARN such as arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training", s)
	}
	return JobQueueARN{Partition: partition, Region: region, Account: account, Name: name}, nil
}

func (a JobQueueARN) String() string {
	return "arn:" + a.Partition + ":batch:" + a.Region + ":" + a.Account + ":job-queue/" + a.Name
}

// ServiceJobARN is the ARN of the service job id submitted in a's Region
// and account: arn:PARTITION:batch:REGION:ACCOUNT:service-job/ID.
func (a JobQueueARN) ServiceJobARN(id string) string {
	return "arn:" + a.Partition + ":batch:" + a.Region + ":" + a.Account + ":service-job/" + id
}

// ValidJobQueueARN reports whether ParseJobQueueARN accepts s.
func ValidJobQueueARN(s string) bool {
	_, err := ParseJobQueueARN(s)
	return err == nil
}

// JobQueueName is the name of a job queue given as an ARN (the part after
// "job-queue/") or as a name (returned as is). Batch's calls take either.
func JobQueueName(queue string) string {
	if !strings.HasPrefix(queue, "arn:") {
		return queue
	}
	if _, name, ok := strings.Cut(queue, ":job-queue/"); ok {
		return name
	}
	return queue
}

// SameJobQueue reports whether a and b, each an ARN or a name, name the
// same job queue: two ARNs must be equal; otherwise the names are compared
// (a name says nothing of the Region or account).
func SameJobQueue(a, b string) bool {
	if strings.HasPrefix(a, "arn:") && strings.HasPrefix(b, "arn:") {
		return a == b
	}
	return JobQueueName(a) == JobQueueName(b)
}

// ValidRoleARN reports whether s is an IAM role ARN,
// arn:PARTITION:iam::ACCOUNT:role/PATH/NAME, whose path and name have at
// most MaxRolePathAndNameLength characters of IAM's [\w+=,.@/-].
// It is checked without the regexp package (which would cost every
// function's cold start about 0.2 ms to compile its first expression)
// and is ^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]+$
// (TestNamesAreTheirExpressions).
func ValidRoleARN(s string) bool {
	rest, arn := strings.CutPrefix(s, "arn:aws")
	partition, rest, c1 := strings.Cut(rest, ":")
	rest, iam := strings.CutPrefix(rest, "iam::")
	account, rest, c2 := strings.Cut(rest, ":")
	name, role := strings.CutPrefix(rest, "role/")
	return arn && c1 && iam && c2 && role && strings.Trim(partition, lower+"-") == "" &&
		len(account) == 12 && strings.Trim(account, digits) == "" && rolePathAndName.match(name)
}

// resourceServiceJob is the resource type of a service job's ARN.
const resourceServiceJob = "service-job"

// ServiceJobRef is what a caller may name a service job by: its id, or its
// ARN, arn:PARTITION:batch:REGION:ACCOUNT:service-job/ID. Batch's
// DescribeServiceJob, TerminateServiceJob and UpdateServiceJob take the
// job's id ("The job ID",
// https://docs.aws.amazon.com/batch/latest/APIReference/API_DescribeServiceJob.html).
type ServiceJobRef struct {
	// ID is the job's id.
	ID string
	// ARN is the ARN given, "" when the reference was an id; Partition,
	// Region and Account are its parts.
	ARN, Partition, Region, Account string
}

// ParseServiceJobRef reads s as a service job's id (ValidJobID) or ARN
// (whose last part is a ValidJobID).
func ParseServiceJobRef(s string) (ServiceJobRef, error) {
	if !strings.HasPrefix(s, "arn:") {
		if !ValidJobID(s) {
			return ServiceJobRef{}, fmt.Errorf("got %q, want a job id (1 to %d letters, digits, '-', '_' and '.') or a service job ARN", s, MaxJobIDLength)
		}
		return ServiceJobRef{ID: s}, nil
	}
	partition, region, account, typ, id, ok := batchARNParts(s)
	if !ok || typ != resourceServiceJob || !ValidJobID(id) {
		return ServiceJobRef{}, fmt.Errorf("got %q, want a service job ARN such as arn:aws:batch:us-east-1:123456789012:service-job/4c7599ae-0a82-49aa-ba5a-4727fcce14a8, or a job id", s)
	}
	return ServiceJobRef{ID: id, ARN: s, Partition: partition, Region: region, Account: account}, nil
}

// SameAccountAndRegion reports whether the reference can name a job of the
// queue q: an id always can (Batch looks it up in the caller's account and
// Region); an ARN only in q's partition, Region and account.
func (r ServiceJobRef) SameAccountAndRegion(q JobQueueARN) bool {
	return r.ARN == "" || r.Partition == q.Partition && r.Region == q.Region && r.Account == q.Account
}

// RoleKey names an IAM role for authorization: its partition, account and
// name. IAM role names are unique within an account whatever their path
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html#identifiers-friendly-names),
// and an assumed-role session ARN carries the name without the path, so the
// key leaves the path out.
type RoleKey struct{ Partition, Account, Name string }

func (k RoleKey) String() string {
	return "arn:" + k.Partition + ":iam::" + k.Account + ":role/" + k.Name
}

// RoleKeyOf is the key of a role ARN, arn:PARTITION:iam::ACCOUNT:role/PATH/NAME;
// false when s is not a role ARN (ValidRoleARN).
func RoleKeyOf(s string) (RoleKey, bool) {
	if !ValidRoleARN(s) {
		return RoleKey{}, false
	}
	parts := strings.SplitN(s, ":", 6)
	_, rest, _ := strings.Cut(parts[5], "role/")
	return RoleKey{Partition: parts[1], Account: parts[4], Name: rest[strings.LastIndex(rest, "/")+1:]}, true
}

// assumedRolePattern is an STS assumed-role session ARN,
// arn:PARTITION:sts::ACCOUNT:assumed-role/NAME/SESSION (STS's
// GetCallerIdentity answers it for a role's credentials; the role's path is
// not in it).
var assumedRolePattern = compiled(`^arn:(aws[a-z-]*):sts::([0-9]{12}):assumed-role/([\w+=,.@-]+)/([\w+=,.@-]+)$`)

// CallerRoleKey is the role of a caller ARN as STS's GetCallerIdentity
// answers it: an assumed-role session ARN gives its role; an IAM user, the
// account root, a federated user or anything else gives false (only roles
// are granted).
func CallerRoleKey(callerARN string) (RoleKey, bool) {
	m := assumedRolePattern().FindStringSubmatch(callerARN)
	// A role name has 1 to 64 characters, a session name 2 to 64 (IAM's
	// and STS's limits), checked here rather than as counted repetitions,
	// which Go compiles into that many states.
	if m == nil || len(m[3]) > 64 || len(m[4]) < 2 || len(m[4]) > 64 {
		return RoleKey{}, false
	}
	return RoleKey{Partition: m[1], Account: m[2], Name: m[3]}, true
}
