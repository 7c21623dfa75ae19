package batchrules

import (
	"regexp"
	"strings"
	"sync"
)

// charPattern is the shape of a name: 1 to max characters of chars (a set
// of ASCII characters). It is matched without the regexp package, whose
// first compilation costs a function's cold start about 0.2 ms.
type charPattern struct {
	chars string
	max   int
}

func (p charPattern) match(s string) bool {
	if len(s) == 0 || len(s) > p.max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(p.chars, s[i]) < 0 {
			return false
		}
	}
	return true
}

// Limits of AWS Batch's names and requests.
const (
	// MaxNameLength bounds job, job queue and quota share names.
	MaxNameLength = 128
	// MaxShareIdentifierLength bounds fair-share identifiers.
	MaxShareIdentifierLength = 255
	// MaxServiceRequestPayloadBytes bounds SubmitServiceJob's
	// serviceRequestPayload: 10 KiB.
	MaxServiceRequestPayloadBytes = 10 * 1024
	// MaxClientTokenLength bounds SubmitServiceJob's clientToken.
	MaxClientTokenLength = 64
	// MaxTags is the most tags a Batch resource may have, with keys of 1 to
	// MaxTagKeyLength and values of at most MaxTagValueLength characters
	// (https://docs.aws.amazon.com/batch/latest/APIReference/API_TagResource.html).
	MaxTags           = 50
	MaxTagKeyLength   = 128
	MaxTagValueLength = 256
	// MaxJobRefLength bounds what trainq accepts as a job id or job ARN.
	MaxJobRefLength = 1000
	// MaxJobIDLength bounds a service job's id (Batch's are UUIDs, 36
	// characters).
	MaxJobIDLength = 128
)

// Character sets of charPattern.
const (
	lower   = "abcdefghijklmnopqrstuvwxyz"
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + lower
	digits  = "0123456789"
)

// maxInstanceType bounds an instance type.
const maxInstanceType = 64

var (
	namePattern    = charPattern{letters + digits + "_-", MaxNameLength}
	shareIDPattern = charPattern{letters + digits + "_", MaxShareIdentifierLength}
	// instancePart is an instance type's family or size.
	instancePart  = charPattern{lower + digits, maxInstanceType}
	jobRefPattern = charPattern{letters + digits + ":/_.-", MaxJobRefLength}
	jobIDPattern  = charPattern{letters + digits + "_.-", MaxJobIDLength}
)

// ValidName reports whether s is a name AWS Batch accepts for a service
// job, a job queue or a quota share: 1 to 128 letters, digits, '-' and '_'
// ("It can be up to 128 characters long. It can contain uppercase and
// lowercase letters, numbers, hyphens (-), and underscores (_)",
// https://docs.aws.amazon.com/batch/latest/APIReference/API_SubmitServiceJob.html).
func ValidName(s string) bool { return namePattern.match(s) }

// ValidShareIdentifier reports whether s is a fair-share identifier trainq
// may use: 1 to 255 letters, digits and '_' (Batch also allows a trailing
// '*' to make a prefix, which trainq does not use;
// https://docs.aws.amazon.com/batch/latest/APIReference/API_ShareAttributes.html).
func ValidShareIdentifier(s string) bool { return shareIDPattern.match(s) }

// ValidInstanceType reports whether s has the shape of a SageMaker training
// instance type, ml.FAMILY.SIZE, such as ml.p5.48xlarge
// (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_ResourceConfig.html).
// It has at most 64 characters (trainq's bound; SageMaker's are far
// shorter).
func ValidInstanceType(s string) bool {
	rest, ml := strings.CutPrefix(s, "ml.")
	family, size, dot := strings.Cut(rest, ".")
	return ml && dot && len(s) <= maxInstanceType && instancePart.match(family) && instancePart.match(size)
}

// ValidJobRef reports whether s may be a service job's id or ARN, as
// DescribeServiceJob, TerminateServiceJob and UpdateServiceJob take it:
// letters, digits, ':', '/', '_', '.' and '-', at most 1000 characters.
func ValidJobRef(s string) bool { return jobRefPattern.match(s) }

// ValidJobID reports whether s may be a service job's id: 1 to
// MaxJobIDLength letters, digits, '-', '_' and '.' (Batch's ids are UUIDs).
func ValidJobID(s string) bool { return jobIDPattern.match(s) }

// compiled is pattern p, compiled at its first use rather than at the
// program's start: a function's cold start pays only for the expressions
// it uses.
func compiled(p string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p) })
}
