package constructs

import (
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-cdk-go/awscdk/v2"
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

// claimedNames are the names, unique in an account and Region, that trainq's
// constructs of each app have given: function, alarm and dashboard names.
var claimedNames = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// claimName records that c gives a resource of kind the name; a second
// construct of the same app, account and Region giving it is a validation
// error naming both, instead of a collision at deploy (or, for alarms, one
// silently replacing the other). prop says which prop sets the name.
func claimName(c constructs.Construct, kind, name, prop string) {
	if name == "" || isToken(name) {
		return
	}
	stack := awscdk.Stack_Of(c)
	// The app's Go object identifies it (jsii hands back the same object
	// for the same app); construct paths and addresses do not.
	key := strings.Join([]string{fmt.Sprintf("%p", c.Node().Root()), *stack.Account(), *stack.Region(), kind, name}, "|")
	path := *c.Node().Path()
	claimedNames.Lock()
	defer claimedNames.Unlock()
	if other, ok := claimedNames.m[key]; ok && other != path {
		addError(c, "trainq: %s name %q is already that of %s; names are unique in an account and Region, so set %s (or another PlatformName)", kind, name, other, prop)
		return
	}
	claimedNames.m[key] = path
}
