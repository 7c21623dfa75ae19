// Command cdk is the trainq CDK app that cdk.json runs. It synthesizes the
// platform stack from the platform file given as context
// (`--context platform=FILE`, or CDK_CONTEXT_JSON), or from the embedded
// default platform, with cdk-nag's AwsSolutions checks applied.
//
// Run directly (`go run ./bin/cdk`), it writes to cdk.out/ and exits non-zero
// when the platform is invalid or any error annotation (cdk-nag included) was
// raised, so nothing invalid is ever left for a deploy.
//
// Its arguments are the CDK CLI's context flags, so that what works with
// `cdk synth --context platform=acme.yaml` works with `go run ./bin/cdk
// --context platform=acme.yaml` too (-c and --context=KEY=VALUE as well);
// any other argument is refused, never ignored. A missing or invalid
// platform file fails the run: nothing is synthesized from the default in
// its place.
//
// CDK's built-in CloudFormation validation (a rule set run on every template
// at synthesis, on by default since aws-cdk-lib 2.2xx) is off: trainq's
// templates are checked by cfn-lint, the CloudFormation registry schemas and
// cdk-nag in its tests, over three platforms, and the built-in rules cost
// about 1.3 s of every synthesis on a 2-core machine while finding nothing
// they do not (bench/synth). TRAINQ_CDK_VALIDATION=on turns it back on.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/stacks"
)

func main() {
	code := run(os.Args[1:])
	jsii.Close()
	os.Exit(code)
}

const usage = `Usage: go run ./bin/cdk [--context platform=FILE]...

Synthesize the trainq platform stack into cdk.out/ (or $CDK_OUTDIR) from the
platform file FILE, or from the embedded default platform when no platform
context is given (here, in CDK_CONTEXT_JSON or by the CDK CLI's --context).
`

func run(args []string) int {
	context, err := contextArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Print(usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "trainq: %v\n%s", err, usage)
		return 2
	}
	props := &awscdk.AppProps{BuiltinCloudFormationValidation: jsii.Bool(os.Getenv("TRAINQ_CDK_VALIDATION") == "on")}
	if os.Getenv("CDK_OUTDIR") == "" {
		props.Outdir = jsii.String("cdk.out")
	}
	if len(context) > 0 {
		props.Context = &context
	}
	app := awscdk.NewApp(props)
	if file, ok := context[stacks.ContextPlatform].(string); ok {
		// The CDK gives CDK_CONTEXT_JSON precedence over the app's own
		// context: two different platforms must not be settled silently.
		if v, _ := app.Node().TryGetContext(jsii.String(stacks.ContextPlatform)).(string); v != file {
			fmt.Fprintf(os.Stderr, "trainq: --context %s=%s, but CDK_CONTEXT_JSON names %q; give one\n", stacks.ContextPlatform, file, v)
			return 2
		}
	}
	p, err := stacks.PlatformFromContext(app)
	if err != nil {
		fmt.Fprintln(os.Stderr, "trainq:", err)
		return 1
	}
	source := "the embedded default platform (no --context platform=FILE)"
	if v, ok := app.Node().TryGetContext(jsii.String(stacks.ContextPlatform)).(string); ok {
		source = v
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
	fmt.Fprintf(os.Stderr, "trainq: synthesized platform %q from %s into %s\n", p.Name, source, *assembly.Directory())
	return 0
}

var errHelp = errors.New("help")

// contextArgs reads the CDK CLI's context flags: --context KEY=VALUE,
// --context=KEY=VALUE, -c KEY=VALUE. Anything else is an error.
func contextArgs(args []string) (map[string]any, error) {
	context := map[string]any{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var kv string
		switch {
		case a == "-h" || a == "-help" || a == "--help":
			return nil, errHelp
		case a == "--context" || a == "-c":
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s needs KEY=VALUE", a)
			}
			i++
			kv = args[i]
		case strings.HasPrefix(a, "--context="):
			kv = strings.TrimPrefix(a, "--context=")
		default:
			return nil, fmt.Errorf("unknown argument %q: want --context KEY=VALUE (e.g. --context platform=trainq.yaml)", a)
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("context %q: want KEY=VALUE", kv)
		}
		if prev, dup := context[k]; dup && prev != v {
			return nil, fmt.Errorf("context %s given twice (%q and %q)", k, prev, v)
		}
		context[k] = v
	}
	return context, nil
}
