package stacks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
)

// Synth synthesizes app and returns CDK's refusal — the validation errors
// of every construct, trainq's included — as an error instead of a panic
// with a stack trace, so that an app can print it and exit non-zero. Error
// annotations (cdk-nag's findings) do not stop synthesis; read them with
// ErrorAnnotations.
func Synth(app awscdk.App) (assembly cxapi.CloudAssembly, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = synthError(r)
		}
	}()
	return app.Synth(nil), nil
}

// synthError turns what jsii panics with into an error with CDK's message,
// without jsii's exception-class prefix.
func synthError(r any) error {
	msg := fmt.Sprint(r)
	if e, ok := r.(error); ok {
		msg = e.Error()
	}
	if _, rest, ok := strings.Cut(msg, "ValidationFailedWithErrors: "); ok {
		msg = rest
	}
	return errors.New(strings.TrimSpace(msg))
}
