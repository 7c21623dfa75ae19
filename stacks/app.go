package stacks

import (
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
)

// ContextPlatform is the context key naming the platform file.
const ContextPlatform = "platform"

// PlatformFromContext loads the platform named by the app's "platform"
// context (a YAML or JSON file), or the embedded default when none is given.
func PlatformFromContext(app awscdk.App) (*platform.Platform, error) {
	v := app.Node().TryGetContext(jsii.String(ContextPlatform))
	if v == nil {
		return platformfile.LoadFileOrDefault("")
	}
	path, ok := v.(string)
	if !ok || path == "" {
		return nil, fmt.Errorf("context %q is %v; want the path of a platform file", ContextPlatform, v)
	}
	return platformfile.LoadFileOrDefault(path)
}

// EnvFromEnvironment is the stack environment the CDK CLI passes
// (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION); unset values leave the stack
// environment-agnostic.
func EnvFromEnvironment() *awscdk.Environment {
	env := &awscdk.Environment{}
	if a := os.Getenv("CDK_DEFAULT_ACCOUNT"); a != "" {
		env.Account = jsii.String(a)
	}
	if r := os.Getenv("CDK_DEFAULT_REGION"); r != "" {
		env.Region = jsii.String(r)
	}
	return env
}

// StackID is the construct id (and default stack name) of a platform's stack.
func StackID(p *platform.Platform) string {
	return "Trainq-" + p.Name
}

// NewPlatformApp adds the platform stack to app and applies cdk-nag's
// AwsSolutions checks to everything in it.
func NewPlatformApp(app awscdk.App, p *platform.Platform, env *awscdk.Environment) PlatformStack {
	s := NewPlatformStack(app, StackID(p), &PlatformStackProps{
		StackProps: awscdk.StackProps{Env: env},
		Platform:   p,
	})
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true)}), nil)
	return s
}

// ErrorAnnotations returns every error-level annotation of the assembly's
// stacks ("path: message"), cdk-nag findings included.
func ErrorAnnotations(assembly cxapi.CloudAssembly) []string {
	var out []string
	for _, st := range *assembly.Stacks() {
		for _, m := range *st.Messages() {
			if m.Level != "error" {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s", *m.Id, strings.TrimSpace(fmt.Sprint(m.Entry.Data))))
		}
	}
	return out
}
