// Command vision-infra is another team's CDK app that uses trainq's
// constructs in its own stack: the vision team runs its own training queue
// and quota shares on a GPU pool the platform team set aside for it, with
// its own execution role, a submission function, a re-router, alarms on its
// own on-call topic and a dashboard.
//
// It is a module of its own, as another team's would be. Run it with
//
//	go mod tidy
//	go run .              # or: ../../tools/cdk/cdk synth (the CDK CLI trainq pins)
//
// and nothing else: trainq's functions are built from trainq's own module,
// not from this one.
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
	props := &awscdk.AppProps{}
	if os.Getenv("CDK_OUTDIR") == "" {
		props.Outdir = jsii.String("cdk.out")
	}
	app := awscdk.NewApp(props)
	NewVisionStack(app, "VisionTraining", &awscdk.StackProps{
		Env: &awscdk.Environment{Account: jsii.String(account), Region: jsii.String(region)},
	})
	assembly, err := stacks.Synth(app)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vision-infra:", err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "vision-infra: synthesized into", *assembly.Directory())
	return 0
}
