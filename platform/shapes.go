package platform

import (
	"math"
	"strings"
)

// The shapes of the AWS IDs and ARNs that validation checks, written as
// code rather than regular expressions: the first expression a program
// compiles costs it about 0.2 ms, which every function's cold start paid
// in Validate. Each function is the expression in its comment, and
// TestShapesAreTheirExpressions holds it equal to that expression.

const (
	lower     = "abcdefghijklmnopqrstuvwxyz"
	hexDigits = "0123456789abcdef"
)

// only reports whether every byte of s is one of set (ASCII characters).
func only(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// ec2ID reports whether s is prefix then 8 or 17 lowercase hex digits:
// ^PREFIX[0-9a-f]{8}([0-9a-f]{9})?$.
func ec2ID(s, prefix string) bool {
	id, ok := strings.CutPrefix(s, prefix)
	return ok && (len(id) == 8 || len(id) == 17) && only(id, hexDigits)
}

// arnOf returns what follows arn:PARTITION:SERVICE: in s, the partition
// being aws and lowercase letters or '-' (aws, aws-cn, aws-us-gov):
// ^arn:aws[a-z-]*:SERVICE:.
func arnOf(s, service string) (string, bool) {
	rest, arn := strings.CutPrefix(s, "arn:aws")
	partition, rest, colon := strings.Cut(rest, ":")
	rest, svc := strings.CutPrefix(rest, service+":")
	return rest, arn && colon && svc && only(partition, lower+"-")
}

// regionShape reports whether r is from minWords to maxWords lowercase
// words, then a number, joined by '-' (us-east-1: 2 words).
func regionShape(r string, minWords, maxWords int) bool {
	words := 0
	for {
		w, rest, more := strings.Cut(r, "-")
		if !more {
			return words >= minWords && words <= maxWords && r != "" && only(r, digits)
		}
		if w == "" || !only(w, lower) {
			return false
		}
		words++
		r = rest
	}
}

// accountID reports whether s is an AWS account ID: [0-9]{12}.
func accountID(s string) bool { return len(s) == 12 && only(s, digits) }

// validKMSKeyARN reports whether s is a KMS key's ARN: one in any
// partition, with KMS's Region pattern
// (https://docs.aws.amazon.com/kms/latest/APIReference/API_MultiRegionKey.html)
// and a key ID that is a UUID (1234abcd-12ab-34cd-56ef-1234567890ab) or,
// for a multi-Region key, mrk- and 32 hex digits
// (mrk-1234abcd12ab34cd56ef1234567890ab, as in the KMS API reference):
// ^arn:aws[a-z-]*:kms:([a-z]+-){2,3}[0-9]+:[0-9]{12}:key/(UUID|mrk-[0-9a-f]{32})$,
// a UUID being [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}.
func validKMSKeyARN(s string) bool {
	rest, arn := arnOf(s, "kms")
	region, rest, c1 := strings.Cut(rest, ":")
	account, rest, c2 := strings.Cut(rest, ":")
	id, key := strings.CutPrefix(rest, "key/")
	if !arn || !c1 || !c2 || !key || !regionShape(region, 2, 3) || !accountID(account) {
		return false
	}
	if mrk, ok := strings.CutPrefix(id, "mrk-"); ok {
		return len(mrk) == 32 && only(mrk, hexDigits)
	}
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if dash := i == 8 || i == 13 || i == 18 || i == 23; dash != (id[i] == '-') || !dash && !only(id[i:i+1], hexDigits) {
			return false
		}
	}
	return true
}

// kmsAliasARN reports whether s is the ARN of a KMS alias, which
// validation refuses: "To specify a KMS key in an IAM policy statement,
// you must use its key ARN"
// (https://docs.aws.amazon.com/kms/latest/developerguide/cmks-in-iam-policies.html):
// ^arn:aws[a-z-]*:kms:[^:]*:[^:]*:alias/ (and whatever follows).
func kmsAliasARN(s string) bool {
	rest, arn := arnOf(s, "kms")
	_, rest, c1 := strings.Cut(rest, ":")
	_, rest, c2 := strings.Cut(rest, ":")
	return arn && c1 && c2 && strings.HasPrefix(rest, "alias/")
}

// validTopicARN is a standard SNS topic's ARN, whose topic name is 1 to 256
// letters, digits, hyphens and underscores (SNS CreateTopic):
// ^arn:aws[a-z-]*:sns:[a-z]+(-[a-z]+)+-[0-9]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}$.
func validTopicARN(s string) bool {
	rest, arn := arnOf(s, "sns")
	region, rest, c1 := strings.Cut(rest, ":")
	account, name, c2 := strings.Cut(rest, ":")
	return arn && c1 && c2 && regionShape(region, 2, math.MaxInt) && accountID(account) &&
		len(name) >= 1 && len(name) <= 256 && only(name, letters+digits+"_-")
}

// ecrRepositoryShape: ^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$,
// components joined by '/', each of lowercase letters and digits, with
// single '.', '_' or '-' between them.
func ecrRepositoryShape(r string) bool {
	for c := range strings.SplitSeq(r, "/") {
		if c == "" || !alnum(c[0]) || !alnum(c[len(c)-1]) {
			return false
		}
		for i := 1; i < len(c); i++ {
			if !alnum(c[i]) && (!only(c[i:i+1], "._-") || !alnum(c[i-1])) {
				return false
			}
		}
	}
	return true
}

// ipAddressShape: ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$.
func ipAddressShape(s string) bool {
	parts := 0
	for p := range strings.SplitSeq(s, ".") {
		if p == "" || !only(p, digits) {
			return false
		}
		parts++
	}
	return parts == 4
}
