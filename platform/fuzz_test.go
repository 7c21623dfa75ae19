package platform

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: no input makes Parse panic, and every error is either a parse
// error or a *ValidationError whose every problem names a field, a value and
// what is allowed. A platform Parse accepts passes Validate.
func FuzzParse(f *testing.F) {
	f.Add(DefaultYAML())
	for _, pattern := range []string{"testdata/*.yaml", "testdata/*.json", "testdata/bad/*.yaml", "../docs/trainq.example.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, name := range files {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "null", "{}", "[]", "42", "pools: 3", `{"teams": [null, 1, "x"]}`,
		"monitoring: {maxWaitSeconds: {\"\": x}}", "\"\": 1",
		"scheduling: {mode: fairshare, computeReservation: 1e300}",
		"classes: [{name: a, priority: {min: 1e19, max: -1e19}}]",
		"a: &a [*a, *a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err == nil {
			if verr := p.Validate(); verr != nil {
				t.Fatalf("Parse accepted a platform that Validate refuses: %v", verr)
			}
			return
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			if !strings.HasPrefix(err.Error(), "parse platform:") {
				t.Fatalf("error %q is neither a parse error nor a *ValidationError", err)
			}
			return
		}
		if len(ve.Problems) == 0 {
			t.Fatal("a *ValidationError without problems")
		}
		for _, pr := range ve.Problems {
			if pr.Field == "" || pr.Value == "" || pr.Allowed == "" {
				t.Fatalf("problem %+v lacks a field, value or allowed range", pr)
			}
		}
	})
}

// FuzzParseS3URI: no input makes ParseS3URI panic; a URI it accepts is
// exactly its bucket and key put back together, its key has none of the
// characters IAM or URLs read specially, and it is an object exactly when
// the key does not end in "/".
func FuzzParseS3URI(f *testing.F) {
	for _, s := range []string{
		"s3://ml-datasets/search/", "s3://ml-datasets", "s3://ml-datasets/", "s3://ml-datasets/search",
		"s3://ml-datasets/a/b.txt", "s3://ml-datasets/%zz", "s3://ml-datasets/${aws:username}/",
		"s3://192.168.5.4/", "s3://", "s3:///", "s3://ab//", "https://x/", "s3://a.b/../",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		loc, err := ParseS3URI(uri)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "S3 URI ") || !strings.Contains(err.Error(), ": want ") {
				t.Fatalf("error %q does not name the URI and what is allowed", err)
			}
			return
		}
		rebuilt := "s3://" + loc.Bucket + "/" + loc.Key
		if uri != rebuilt && !(loc.Key == "" && uri == "s3://"+loc.Bucket) {
			t.Fatalf("ParseS3URI(%q) = %+v, which is %q", uri, loc, rebuilt)
		}
		if strings.ContainsAny(loc.Key, "*?$%#\\ ") {
			t.Fatalf("ParseS3URI(%q) accepted key %q", uri, loc.Key)
		}
		if want := loc.Key != "" && !strings.HasSuffix(loc.Key, "/"); loc.Object != want {
			t.Fatalf("ParseS3URI(%q).Object = %v, want %v", uri, loc.Object, want)
		}
	})
}
