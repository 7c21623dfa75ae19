package platform

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseS3URIAccepts(t *testing.T) {
	cases := []struct {
		name string
		uri  string
		want S3Location
	}{
		{"a bucket with a trailing slash is the whole bucket",
			"s3://ml-datasets/", S3Location{Bucket: "ml-datasets"}},
		{"a bucket without a slash is the whole bucket too",
			"s3://ml-datasets", S3Location{Bucket: "ml-datasets"}},
		{"a path ending in a slash is a prefix, slash included",
			"s3://ml-datasets/search/", S3Location{Bucket: "ml-datasets", Key: "search/"}},
		{"a nested prefix keeps every segment",
			"s3://vision-datasets/openimages/v7/", S3Location{Bucket: "vision-datasets", Key: "openimages/v7/"}},
		{"a path without a trailing slash whose last segment has a dot is one object",
			"s3://ml-datasets/search/vocab.txt", S3Location{Bucket: "ml-datasets", Key: "search/vocab.txt", Object: true}},
		{"an object at the top of the bucket is one object",
			"s3://ml-models/model.tar.gz", S3Location{Bucket: "ml-models", Key: "model.tar.gz", Object: true}},
		{"every safe character but '*' may be in a key",
			"s3://ml-data/Run_1-(copy)!'s/a.b/", S3Location{Bucket: "ml-data", Key: "Run_1-(copy)!'s/a.b/"}},
		{"a bucket with dots and hyphens of 3 characters is allowed",
			"s3://a.b/", S3Location{Bucket: "a.b"}},
		{"a bucket of 63 characters is allowed",
			"s3://" + strings.Repeat("b", 63) + "/", S3Location{Bucket: strings.Repeat("b", 63)}},
		{"a bucket of digits with fewer than four groups is not an IP address",
			"s3://192.168.5/", S3Location{Bucket: "192.168.5"}},
		// 1023 a's and the trailing slash: 1024 bytes, S3's limit.
		{"a key of 1024 bytes is allowed",
			"s3://ml-data/" + strings.Repeat("a", 1023) + "/", S3Location{Bucket: "ml-data", Key: strings.Repeat("a", 1023) + "/"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseS3URI(tc.uri)
			if err != nil {
				t.Fatalf("ParseS3URI(%q): %v", tc.uri, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseS3URI(%q) (-want +got):\n%s", tc.uri, diff)
			}
		})
	}
}

func TestParseS3URIRefuses(t *testing.T) {
	// keyChars is how every character problem of a key begins.
	const keyChars = `a key of letters, digits, ! - _ . ' ( ) and / (S3's safe characters, all literal in IAM; `
	cases := []struct {
		name string
		uri  string
		want string // the whole error
	}{
		{"a prefix without a trailing slash is refused, as IAM would also grant its siblings (search-private/)",
			"s3://ml-datasets/search",
			`S3 URI "s3://ml-datasets/search": want s3://ml-datasets/search/ for the prefix search/ (a URI without a trailing "/" is one object, whose last segment must contain a "." like file.ext)`},
		{"a nested prefix without a trailing slash is refused with the nested prefix suggested",
			"s3://vision-datasets/openimages/v7",
			`S3 URI "s3://vision-datasets/openimages/v7": want s3://vision-datasets/openimages/v7/ for the prefix openimages/v7/ (a URI without a trailing "/" is one object, whose last segment must contain a "." like file.ext)`},
		{"a question mark is refused as an IAM wildcard",
			"s3://ml-datasets/search?/",
			`S3 URI "s3://ml-datasets/search?/": want ` + keyChars + `'?' is an IAM wildcard)`},
		{"an asterisk is refused as an IAM wildcard although S3 calls it safe",
			"s3://ml-datasets/search/*",
			`S3 URI "s3://ml-datasets/search/*": want ` + keyChars + `'*' is an IAM wildcard)`},
		{"a hash is refused: it would start a fragment",
			"s3://ml-datasets/search/#part.txt",
			`S3 URI "s3://ml-datasets/search/#part.txt": want ` + keyChars + `'#' would start a fragment)`},
		{"an escaped question mark is refused: the URI is never decoded",
			"s3://ml-datasets/search%3F/",
			`S3 URI "s3://ml-datasets/search%3F/": want ` + keyChars + `'%' would be an escape; the URI is taken literally, never percent-decoded)`},
		{"a broken escape is refused rather than failing later in the stack",
			"s3://ml-datasets/%zz/",
			`S3 URI "s3://ml-datasets/%zz/": want ` + keyChars + `'%' would be an escape; the URI is taken literally, never percent-decoded)`},
		{"a policy variable is refused",
			"s3://ml-datasets/home/${aws:username}/",
			`S3 URI "s3://ml-datasets/home/${aws:username}/": want ` + keyChars + `'$' starts an IAM policy variable such as ${aws:username})`},
		{"a space is refused",
			"s3://ml-datasets/my data/",
			`S3 URI "s3://ml-datasets/my data/": want ` + keyChars + `a space is not one of them)`},
		{"a backslash is refused",
			`s3://ml-datasets/a\b/`,
			`S3 URI "s3://ml-datasets/a\\b/": want ` + keyChars + `'\\' is not one of them)`},
		{"an equals sign is refused: S3 says it needs special handling",
			"s3://ml-lake/events/year=2024/",
			`S3 URI "s3://ml-lake/events/year=2024/": want ` + keyChars + `'=' is not one of them)`},
		{"a newline is refused as a control character",
			"s3://ml-datasets/a\nb/",
			`S3 URI "s3://ml-datasets/a\nb/": want ` + keyChars + `control character U+000A is not one of them)`},
		{"a non-ASCII letter is refused",
			"s3://ml-datasets/données/",
			`S3 URI "s3://ml-datasets/données/": want ` + keyChars + `'é' is not one of them)`},
		{"an empty segment in the middle is refused",
			"s3://ml-datasets/search//v1/",
			`S3 URI "s3://ml-datasets/search//v1/": want a key without empty segments ("//")`},
		{"a key that starts with a slash has an empty first segment",
			"s3://ml-datasets//search/",
			`S3 URI "s3://ml-datasets//search/": want a key without empty segments ("//")`},
		{"a double slash after the bucket is an empty segment, not the whole bucket",
			"s3://ml-datasets//",
			`S3 URI "s3://ml-datasets//": want a key without empty segments ("//")`},
		{"a dot-dot segment is refused",
			"s3://ml-datasets/search/../private/",
			`S3 URI "s3://ml-datasets/search/../private/": want a key without "." or ".." segments`},
		{"a dot segment is refused",
			"s3://ml-datasets/./search/",
			`S3 URI "s3://ml-datasets/./search/": want a key without "." or ".." segments`},
		{"a key of 1025 bytes is refused",
			"s3://ml-data/" + strings.Repeat("a", 1024) + "/",
			`S3 URI "s3://ml-data/` + strings.Repeat("a", 1024) + `/": want a key of at most 1024 bytes (S3's limit; this one has 1025)`},
		{"an upper-case bucket is refused, naming the first letter S3 refuses",
			"s3://Checkpoints/run/",
			`S3 URI "s3://Checkpoints/run/": want a bucket name of lowercase letters, digits, '.' and '-' only (S3 bucket naming rules; "Checkpoints" has 'C')`},
		{"a bucket with an underscore is refused",
			"s3://ml_data/",
			`S3 URI "s3://ml_data/": want a bucket name of lowercase letters, digits, '.' and '-' only (S3 bucket naming rules; "ml_data" has '_')`},
		{"a bucket with a port is refused",
			"s3://ml-data:443/x/",
			`S3 URI "s3://ml-data:443/x/": want a bucket name of lowercase letters, digits, '.' and '-' only (S3 bucket naming rules; "ml-data:443" has ':')`},
		{"an IP-shaped bucket is refused",
			"s3://192.168.5.4/data/",
			`S3 URI "s3://192.168.5.4/data/": want a bucket name not formatted as an IP address (S3 bucket naming rules)`},
		{"a bucket of two characters is refused",
			"s3://ab/",
			`S3 URI "s3://ab/": want a bucket name of 3 to 63 characters (S3 bucket naming rules; "ab" has 2)`},
		{"a bucket of 64 characters is refused",
			"s3://" + strings.Repeat("b", 64),
			`S3 URI "s3://` + strings.Repeat("b", 64) + `": want a bucket name of 3 to 63 characters (S3 bucket naming rules; "` + strings.Repeat("b", 64) + `" has 64)`},
		{"no bucket at all is refused",
			"s3:///data/",
			`S3 URI "s3:///data/": want a bucket name of 3 to 63 characters (S3 bucket naming rules; "" has 0)`},
		{"a bucket ending in a hyphen is refused",
			"s3://ml-data-/",
			`S3 URI "s3://ml-data-/": want a bucket name that starts and ends with a letter or digit (S3 bucket naming rules)`},
		{"a bucket starting with a period is refused",
			"s3://.ml-data/",
			`S3 URI "s3://.ml-data/": want a bucket name that starts and ends with a letter or digit (S3 bucket naming rules)`},
		{"a bucket with two adjacent periods is refused",
			"s3://ml..data/",
			`S3 URI "s3://ml..data/": want a bucket name without two adjacent periods (S3 bucket naming rules)`},
		{"a bucket with a reserved prefix is refused",
			"s3://xn--ml-data/",
			`S3 URI "s3://xn--ml-data/": want a bucket name that does not start with any of xn--, sthree-, amzn-s3-demo- (reserved by S3)`},
		{"a bucket with a reserved suffix is refused",
			"s3://ml-data-s3alias/",
			`S3 URI "s3://ml-data-s3alias/": want a bucket name that does not end with any of -s3alias, --ol-s3, .mrap, --x-s3, --table-s3 (reserved by S3)`},
		{"an https URL is refused",
			"https://ml-data.s3.amazonaws.com/run/",
			`S3 URI "https://ml-data.s3.amazonaws.com/run/": want an S3 URI: s3://bucket/ (the whole bucket), s3://bucket/prefix/ (a prefix: ends in "/") or s3://bucket/path/file.ext (one object)`},
		{"an upper-case scheme is refused",
			"S3://ml-data/run/",
			`S3 URI "S3://ml-data/run/": want an S3 URI: s3://bucket/ (the whole bucket), s3://bucket/prefix/ (a prefix: ends in "/") or s3://bucket/path/file.ext (one object)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseS3URI(tc.uri)
			if err == nil {
				t.Fatalf("ParseS3URI(%q) = %+v, want an error", tc.uri, got)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("ParseS3URI(%q) error (-want +got):\n%s", tc.uri, diff)
			}
			if got != (S3Location{}) {
				t.Errorf("ParseS3URI(%q) = %+v with its error, want the zero S3Location", tc.uri, got)
			}
		})
	}
}

// TestAPrefixDoesNotReachItsSiblings: the reason for the trailing "/". An
// IAM grant on key prefix "search/" + "*" no longer reaches keys of the
// sibling "search-private/", which the old prefix "search" + "*" did.
func TestAPrefixDoesNotReachItsSiblings(t *testing.T) {
	loc, err := ParseS3URI("s3://ml-datasets/search/")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{
		"search/train/part-0.parquet":   true,
		"search-private/labels.parquet": false,
		"search":                        false,
	} {
		if got := strings.HasPrefix(key, loc.Key); got != want {
			t.Errorf("key %q under prefix %q: %v, want %v", key, loc.Key, got, want)
		}
	}
}
