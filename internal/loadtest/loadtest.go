// Package loadtest is test support for packages whose run time depends on the
// machine's load rather than on their own work: CDK synthesis under jsii,
// cfn-lint over every template, builds of the functions, the Lambda Runtime
// Interface Emulator. Product packages never import it.
package loadtest

import (
	"flag"
	"time"
)

// goTestDefaultTimeout is the alarm `go test` sets when no -timeout is given
// (`go help testflag`: "The default is 10m").
const goTestDefaultTimeout = 10 * time.Minute

// LiftDefaultTimeout removes go test's default 10-minute alarm, so that a
// package that passes on an idle machine also passes on two loaded cores; an
// explicit -timeout of any other value is kept. Call it first in TestMain.
// Being slow is not a failure of these packages: their benchmarks measure
// speed, never a timed test.
func LiftDefaultTimeout() {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.timeout")
	if f == nil {
		return
	}
	if d, err := time.ParseDuration(f.Value.String()); err == nil && d == goTestDefaultTimeout {
		_ = f.Value.Set("0")
	}
}
