package stacks

import (
	"crypto/md5"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// keepLogicalID gives res the logical id CDK allocated to a resource at
// path (construct ids from the stack down) in an earlier release, so that
// moving a resource in the construct tree does not replace it. The id is
// CDK's: the path's ids without "Resource" and non-alphanumerics, followed
// by the first 8 hex digits of the MD5 of the ids joined by "/"
// ("Default" ids are left out of both), which CDK keeps stable because
// logical ids are its users' resources (aws-cdk-lib core, private/uniqueid).
func keepLogicalID(res awscdk.CfnResource, path ...string) {
	res.OverrideLogicalId(jsii.String(legacyLogicalID(path...)))
}

var nonAlphanumeric = regexp.MustCompile(`[^A-Za-z0-9]`)

func legacyLogicalID(path ...string) string {
	var ids []string
	for _, id := range path {
		if id != "Default" {
			ids = append(ids, id)
		}
	}
	sum := md5.Sum([]byte(strings.Join(ids, "/")))
	var human strings.Builder
	for i, id := range ids {
		if id == "Resource" || (i > 0 && ids[i-1] == id) {
			continue
		}
		human.WriteString(nonAlphanumeric.ReplaceAllString(id, ""))
	}
	h := human.String()
	if len(h) > 240 {
		h = h[:240]
	}
	return h + strings.ToUpper(fmt.Sprintf("%x", sum)[:8])
}

// validationError is a message that fails synthesis of the construct it is
// added to.
type validationError struct{ message string }

func (v *validationError) Validate() *[]*string { return &[]*string{jsii.String(v.message)} }

func addError(c constructs.Construct, format string, args ...any) {
	c.Node().AddValidation(&validationError{message: fmt.Sprintf(format, args...)})
}
