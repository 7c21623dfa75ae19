// Command platformjson prints the embedded default platform as the JSON the
// deployment bundles next to each function (platform.json), for
// bench/observe/run.sh.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"os"

	"github.com/trainq/trainq/platform"
)

func main() {
	os.Stdout.Write(platform.Default().JSON())
}
