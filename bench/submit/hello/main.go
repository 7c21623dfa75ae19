// Command hello is a hello-world Go Lambda, the baseline the submission
// function's cold start is compared with in bench/submit/run.sh.
//
// It must never import the AWS CDK, jsii or constructs.
package main

import "github.com/aws/aws-lambda-go/lambda"

func main() {
	lambda.Start(func() (string, error) { return "hello", nil })
}
