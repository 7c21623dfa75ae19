module example.com/vision-infra

go 1.26.8

require (
	github.com/aws/aws-cdk-go/awscdk/v2 v2.276.0
	github.com/aws/constructs-go/constructs/v10 v10.8.1
	github.com/aws/jsii-runtime-go v1.142.0
	github.com/trainq/trainq v0.0.0-00010101000000-000000000000
)

// The example builds against this checkout. Another team's module requires
// a released version of github.com/trainq/trainq instead, and has no
// replace.
replace github.com/trainq/trainq => ../..
