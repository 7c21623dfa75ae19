package constructs

import (
	"fmt"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// A user's mistake in props is reported the CDK way: as a validation error
// on the construct (Node().AddValidation), so that synthesis fails with
// every mistake of the app at once, each prefixed by CDK with the
// construct's path. Messages name the construct type, the prop, the value
// received and what is allowed. Panics are kept for programming errors
// that leave nothing to build (a nil scope, a failing machine).

// validationError is one message, always reported.
type validationError struct{ message string }

func (v *validationError) Validate() *[]*string {
	return &[]*string{jsii.String(v.message)}
}

// addError records a mistake on c; synthesis will fail with it.
func addError(c constructs.Construct, format string, args ...any) {
	c.Node().AddValidation(&validationError{message: fmt.Sprintf(format, args...)})
}

// validationCheck reports what check returns when the app synthesizes: for
// rules that depend on what is added after construction (shares, service
// environments). jsii passes only structs as interface implementations.
type validationCheck struct{ check func() []string }

func (v *validationCheck) Validate() *[]*string {
	out := []*string{}
	for _, m := range v.check() {
		out = append(out, jsii.String(m))
	}
	return &out
}

// addCheck registers check on c, run when the app synthesizes.
func addCheck(c constructs.Construct, check func() []string) {
	c.Node().AddValidation(&validationCheck{check: check})
}
