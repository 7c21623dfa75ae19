// Command emptyapp is the baseline of the synth benchmark: a CDK Go app
// with one empty stack, so that the benchmark can report trainq's synth time
// as a ratio to what any CDK Go app costs on the same machine.
package main

import (
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func main() {
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(os.Args[1])})
	awscdk.NewStack(app, jsii.String("Empty"), nil)
	app.Synth(nil)
	jsii.Close()
}
