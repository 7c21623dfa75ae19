// Command hello is the smallest Go Lambda function, the baseline against
// which bench/observe/run.sh measures the observer's cold start.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(_ context.Context, _ json.RawMessage) (string, error) { return "hello", nil })
}
