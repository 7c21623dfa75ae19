// Command cdk is the trainq CDK app that cdk.json runs. It synthesizes the
// platform stack from the platform file given as context
// (`--context platform=FILE`, or CDK_CONTEXT_JSON), or from the embedded
// default platform, with cdk-nag's AwsSolutions checks applied.
//
// Run directly (`go run ./bin/cdk`), it writes to cdk.out/ and exits non-zero
// when the platform is invalid or any error annotation (cdk-nag included) was
// raised, so nothing invalid is ever left for a deploy.
//
// CDK's built-in CloudFormation validation (a rule set run on every template
// at synthesis, on by default since aws-cdk-lib 2.2xx) is off: trainq's
// templates are checked by cfn-lint, the CloudFormation registry schemas and
// cdk-nag in its tests, over three platforms, and the built-in rules cost
// about 1.3 s of every synthesis on a 2-core machine while finding nothing
// they do not (bench/synth). TRAINQ_CDK_VALIDATION=on turns it back on.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/stacks"
)

func main() {
	code := run()
	jsii.Close()
	os.Exit(code)
}

func run() int {
	props := &awscdk.AppProps{BuiltinCloudFormationValidation: jsii.Bool(os.Getenv("TRAINQ_CDK_VALIDATION") == "on")}
	if os.Getenv("CDK_OUTDIR") == "" {
		props.Outdir = jsii.String("cdk.out")
	}
	app := awscdk.NewApp(props)
	p, err := stacks.PlatformFromContext(app)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trainq:", err)
		return 1
	}
	stacks.NewPlatformApp(app, p, stacks.EnvFromEnvironment())
	assembly, err := stacks.Synth(app)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trainq:", err)
		return 1
	}
	errs := stacks.ErrorAnnotations(assembly)
	for _, e := range errs {
		fmt.Fprintln(os.Stderr, "error:", e)
	}
	if len(errs) > 0 {
		fmt.Fprintf(os.Stderr, "trainq: %d error annotations; fix them or suppress each with a reason\n", len(errs))
		return 1
	}
	fmt.Fprintf(os.Stderr, "trainq: synthesized platform %q into %s\n", p.Name, *assembly.Directory())
	return 0
}
