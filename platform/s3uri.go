package platform

import (
	"fmt"
	"strings"
)

// S3Location is one parsed s3:// URI of the training section.
type S3Location struct {
	Bucket string // the bucket name
	// Key is the key prefix, ending in "/" ("" for the whole bucket), or an exact object key
	// when Object is true.
	Key    string
	Object bool
}

// maxS3KeyBytes is S3's limit on the length of an object key, prefix and
// delimiters included.
const maxS3KeyBytes = 1024

// s3Forms is what a training S3 URI may look like.
const s3Forms = `s3://bucket/ (the whole bucket), s3://bucket/prefix/ (a prefix: ends in "/") or s3://bucket/path/file.ext (one object)`

// s3KeyCharacters names the characters a key may use.
const s3KeyCharacters = `letters, digits, ! - _ . ' ( ) and /`

// ParseS3URI parses a training S3 URI. Allowed: "s3://bucket/", "s3://bucket" (whole bucket),
// "s3://bucket/prefix/…/" (a prefix: must end in "/"), or "s3://bucket/path/to/object.ext" (exactly
// one object — any URI whose path does not end in "/" is an exact object key). The error says what is allowed.
//
// The URI is taken literally: it is never percent-decoded, and it has no
// query or fragment. The rules, which validation applies to
// training.s3Read and training.s3Write:
//
//   - The bucket follows S3's general purpose bucket naming rules
//     (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html):
//     3 to 63 characters; lowercase letters, digits, '.' and '-'; starts and
//     ends with a letter or digit; no two adjacent periods; not formatted as
//     an IP address; none of the reserved prefixes xn--, sthree-,
//     amzn-s3-demo- and suffixes -s3alias, --ol-s3, .mrap, --x-s3,
//     --table-s3.
//   - The key is at most 1024 bytes (S3's limit) and uses only S3's safe
//     characters (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html):
//     ASCII letters and digits, ! - _ . ' ( ) and the delimiter /, every one
//     of which IAM reads literally in a resource ARN. The safe '*' is refused
//     because IAM reads it (and '?') as a wildcard. Everything else is
//     refused, spaces and non-ASCII letters included: '$' would start an IAM
//     policy variable (${aws:username}), '%' an escape, '#' a fragment, and
//     the rest are characters S3 says need special handling or should be
//     avoided. A location whose keys need them is granted through a parent
//     prefix.
//   - No empty segment ("//") and no "." or ".." segment.
//   - A URI without a trailing "/" is one object, and its last segment must
//     look like a file name: it contains a ".". So s3://ml-datasets/search is
//     refused (it used to mean every key starting with "search", including
//     "search-private/"), with s3://ml-datasets/search/ suggested for the
//     prefix.
func ParseS3URI(uri string) (S3Location, error) {
	loc, allowed := parseS3URI(uri)
	if allowed != "" {
		return S3Location{}, fmt.Errorf("S3 URI %q: want %s", uri, allowed)
	}
	return loc, nil
}

// parseS3URI parses uri, or returns what is allowed instead, phrased to
// follow "want" in a Problem.
func parseS3URI(uri string) (S3Location, string) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return S3Location{}, "an S3 URI: " + s3Forms
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if why := checkBucketName(bucket); why != "" {
		return S3Location{}, why
	}
	loc := S3Location{Bucket: bucket, Key: key}
	if key == "" {
		return loc, ""
	}
	if len(key) > maxS3KeyBytes {
		return S3Location{}, fmt.Sprintf("a key of at most %d bytes (S3's limit; this one has %d)", maxS3KeyBytes, len(key))
	}
	for _, r := range key {
		if why := keyCharacterProblem(r); why != "" {
			return S3Location{}, fmt.Sprintf("a key of %s (S3's safe characters, all literal in IAM; %s)", s3KeyCharacters, why)
		}
	}
	segments := strings.Split(key, "/")
	for i, s := range segments {
		last := i == len(segments)-1
		switch {
		case s == "" && !last:
			return S3Location{}, `a key without empty segments ("//")`
		case s == "." || s == "..":
			return S3Location{}, `a key without "." or ".." segments`
		}
	}
	if name := segments[len(segments)-1]; name != "" {
		if !strings.Contains(name, ".") {
			return S3Location{}, fmt.Sprintf(`s3://%s/%s/ for the prefix %s/ (a URI without a trailing "/" is one object, whose last segment must contain a "." like file.ext)`,
				bucket, key, key)
		}
		loc.Object = true
	}
	return loc, ""
}

// keyCharacterProblem says why r may not be in a key, or returns "".
func keyCharacterProblem(r rune) string {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return ""
	}
	switch r {
	case '!', '-', '_', '.', '\'', '(', ')', '/':
		return ""
	case '*', '?':
		return fmt.Sprintf("'%c' is an IAM wildcard", r)
	case '$':
		return "'$' starts an IAM policy variable such as ${aws:username}"
	case '%':
		return "'%' would be an escape; the URI is taken literally, never percent-decoded"
	case '#':
		return "'#' would start a fragment"
	case ' ':
		return "a space is not one of them"
	}
	if r < 0x20 || r == 0x7f {
		return fmt.Sprintf("control character %U is not one of them", r)
	}
	return fmt.Sprintf("%q is not one of them", r)
}

var (
	// Reserved by S3 for other kinds of names (access point aliases,
	// directory buckets, table buckets and so on).
	reservedBucketPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedBucketSuffixes = []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

// checkBucketName applies S3's general purpose bucket naming rules
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html)
// and returns what is allowed when name breaks one, or "".
func checkBucketName(name string) string {
	const rules = "S3 bucket naming rules"
	switch {
	case len(name) < 3 || len(name) > 63:
		return fmt.Sprintf("a bucket name of 3 to 63 characters (%s; %q has %d)", rules, name, len(name))
	case !only(name, lower+digits+".-"):
		bad := strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz0123456789.-")
		return fmt.Sprintf("a bucket name of lowercase letters, digits, '.' and '-' only (%s; %q has %q)", rules, name, []rune(bad)[0])
	case !alnum(name[0]) || !alnum(name[len(name)-1]):
		return fmt.Sprintf("a bucket name that starts and ends with a letter or digit (%s)", rules)
	case strings.Contains(name, ".."):
		return fmt.Sprintf("a bucket name without two adjacent periods (%s)", rules)
	case ipAddressShape(name):
		return fmt.Sprintf("a bucket name not formatted as an IP address (%s)", rules)
	}
	for _, p := range reservedBucketPrefixes {
		if strings.HasPrefix(name, p) {
			return fmt.Sprintf("a bucket name that does not start with any of %s (reserved by S3)", strings.Join(reservedBucketPrefixes, ", "))
		}
	}
	for _, s := range reservedBucketSuffixes {
		if strings.HasSuffix(name, s) {
			return fmt.Sprintf("a bucket name that does not end with any of %s (reserved by S3)", strings.Join(reservedBucketSuffixes, ", "))
		}
	}
	return ""
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
