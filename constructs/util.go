package constructs

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/batchrules"
)

var (
	functionNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	functionARNPattern  = regexp.MustCompile(`^arn:aws[a-z-]*:lambda:[a-z0-9-]+:[0-9]{12}:function:[a-zA-Z0-9_-]{1,64}$`)
)

func validName(s string) bool { return batchrules.ValidName(s) }

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return jsii.String(s)
}

// tagMap converts tags to the jsii form, nil when empty.
func tagMap(tags map[string]string) *map[string]*string {
	if len(tags) == 0 {
		return nil
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]*string, len(tags))
	for _, k := range keys {
		out[k] = jsii.String(tags[k])
	}
	return &out
}

// isToken reports whether s holds an unresolved CDK token.
func isToken(s string) bool { return *awscdk.Token_IsUnresolved(jsii.String(s)) }

// validateCapacities checks a list of per-type capacities named prop: each
// a SageMaker instance type, listed once, with at least one instance.
func validateCapacities(prop string, caps []InstanceCapacity) error {
	seen := map[string]bool{}
	for i, c := range caps {
		if !batchrules.ValidInstanceType(c.InstanceType) {
			return fmt.Errorf("%s[%d].InstanceType is %q; want a SageMaker type such as ml.p5.48xlarge", prop, i, c.InstanceType)
		}
		if seen[c.InstanceType] {
			return fmt.Errorf("%s[%d].InstanceType %q is listed twice; want each type once", prop, i, c.InstanceType)
		}
		seen[c.InstanceType] = true
		if c.Instances < 1 {
			return fmt.Errorf("%s[%d].Instances is %d; want at least 1", prop, i, c.Instances)
		}
	}
	return nil
}
