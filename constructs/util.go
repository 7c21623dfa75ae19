package constructs

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/platform"
)

var (
	instanceTypePattern          = regexp.MustCompile(`^ml\.[a-z0-9]+\.[a-z0-9]+$`)
	batchNamePattern             = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)
	serviceEnvironmentARNPattern = regexp.MustCompile(`^arn:aws[a-z-]*:batch:[a-z0-9-]+:[0-9]{12}:service-environment/[a-zA-Z0-9_-]{1,128}$`)
	jobQueueARNPattern           = regexp.MustCompile(`^arn:aws[a-z-]*:batch:[a-z0-9-]+:[0-9]{12}:job-queue/[a-zA-Z0-9_-]{1,128}$`)
	roleARNPattern               = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/[\w+=,.@/-]{1,512}$`)
)

func isInstanceType(s string) bool { return instanceTypePattern.MatchString(s) }

func nodePath(scope constructs.Construct) string {
	if scope == nil {
		return ""
	}
	p := *scope.Node().Path()
	if p == "" {
		return "(app)"
	}
	return p
}

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

// mustHavePlatformAndQueue panics, naming the construct and the prop, unless
// p is a valid platform and queue is set.
func mustHavePlatformAndQueue(kind string, scope constructs.Construct, id string, p *platform.Platform, queue ITrainingQueue) {
	where := fmt.Sprintf("%s %s/%s", kind, nodePath(scope), id)
	switch {
	case p == nil:
		panic(where + ": Platform is nil; want a validated *platform.Platform")
	case queue == nil:
		panic(where + ": Queue is nil; want an ITrainingQueue")
	}
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("%s: %v", where, err))
	}
}

// validateCapacities checks a list of per-type capacities named prop: each
// a SageMaker instance type, listed once, with at least one instance.
func validateCapacities(prop string, caps []InstanceCapacity) error {
	seen := map[string]bool{}
	for i, c := range caps {
		if !isInstanceType(c.InstanceType) {
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
