package test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// validateLogsCalls checks AwsCustomResource calls against botocore's model
// of CloudWatch Logs: the service named as the JavaScript SDK names it
// (CloudWatchLogs), the operation as botocore does (the action with its
// first letter in capitals), the parameters by botocore's own validator.
const validateLogsCalls = `
import json, sys
import botocore.session
from botocore.validate import ParamValidator
model = botocore.session.get_session().get_service_model("logs")
out = []
for c in json.load(sys.stdin):
    op = c["action"][0].upper() + c["action"][1:]
    if op not in model.operation_names:
        out.append(f"{c['action']}: no such CloudWatch Logs operation")
        continue
    report = ParamValidator().validate(c["parameters"], model.operation_model(op).input_shape)
    if report.has_errors():
        out.append(f"{c['action']}: {report.generate_report()}")
print(json.dumps(out))
`

// TestTrainingLogGroupGetsItsRetention: on deploy the stack creates
// SageMaker's training log group when it is missing (keeping one that
// exists) and then sets training.logRetentionDays on it — calls that
// botocore's model of CloudWatch Logs accepts — and the function making
// them may do exactly that to that group.
func TestTrainingLogGroupGetsItsRetention(t *testing.T) {
	s := synth(t, "")
	type call struct {
		Service    string         `json:"service"`
		Action     string         `json:"action"`
		Parameters map[string]any `json:"parameters"`
		Ignore     string         `json:"ignoreErrorCodesMatching"`
	}
	calls := map[string]call{} // by "TYPE Create|Update"
	var group, setting string
	for id, r := range s.template.Resources {
		if !strings.HasPrefix(r.Type, "Custom::SageMakerTrainingLog") {
			continue
		}
		switch r.Type {
		case "Custom::SageMakerTrainingLogGroup":
			group = id
		case "Custom::SageMakerTrainingLogRetention":
			setting = id
		}
		for _, when := range []string{"Create", "Update", "Delete"} {
			raw, ok := r.Properties[when].(string)
			if !ok {
				continue
			}
			var c call
			if err := json.Unmarshal([]byte(raw), &c); err != nil {
				t.Fatalf("%s %s: %v", id, when, err)
			}
			calls[r.Type+" "+when] = c
		}
	}
	if group == "" || setting == "" {
		t.Fatalf("want a custom resource creating the group and one setting its retention; found %v", calls)
	}
	// The default platform's training.logRetentionDays is 400 (docs/platform.md).
	want := map[string]string{
		"Custom::SageMakerTrainingLogGroup Create":     `createLogGroup {"logGroupName":"/aws/sagemaker/TrainingJobs"}`,
		"Custom::SageMakerTrainingLogRetention Create": `putRetentionPolicy {"logGroupName":"/aws/sagemaker/TrainingJobs","retentionInDays":400}`,
		"Custom::SageMakerTrainingLogRetention Update": `putRetentionPolicy {"logGroupName":"/aws/sagemaker/TrainingJobs","retentionInDays":400}`,
	}
	for k, w := range want {
		c, ok := calls[k]
		if !ok {
			t.Errorf("%s: no call, want %s", k, w)
			continue
		}
		params, _ := json.Marshal(c.Parameters)
		if got := c.Action + " " + string(params); got != w {
			t.Errorf("%s: %s, want %s", k, got, w)
		}
		if c.Service != "CloudWatchLogs" {
			t.Errorf("%s: service %q, want CloudWatchLogs", k, c.Service)
		}
	}
	// An existing group (CreateLogGroup: ResourceAlreadyExistsException)
	// is kept, and nothing is deleted with the stack: the group is the
	// account's.
	if c := calls["Custom::SageMakerTrainingLogGroup Create"]; c.Ignore != "ResourceAlreadyExistsException" {
		t.Errorf("creating the group ignores %q, want ResourceAlreadyExistsException (a group SageMaker made is kept)", c.Ignore)
	}
	for k := range calls {
		if strings.HasSuffix(k, " Delete") {
			t.Errorf("%s: the stack must leave the account's training log group and its retention as they are", k)
		}
	}
	deps := s.template.Resources[setting].DependsOn
	var after []string
	switch d := deps.(type) {
	case string:
		after = []string{d}
	case []any:
		for _, x := range d {
			after = append(after, fmt.Sprint(x))
		}
	}
	if !slices.Contains(after, group) {
		t.Errorf("the retention is set before the group exists: %s depends on %v, want %s", setting, after, group)
	}

	var list []call
	for _, c := range calls {
		list = append(list, c)
	}
	in, _ := json.Marshal(list)
	cmd := exec.Command("python3", "-c", validateLogsCalls)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("botocore's CloudWatch Logs model: %v", err)
	}
	var problems []string
	if err := json.Unmarshal(out, &problems); err != nil {
		t.Fatalf("botocore's check: %v: %s", err, out)
	}
	for _, p := range problems {
		t.Errorf("botocore's CloudWatch Logs model refuses %s", p)
	}

	d := deploy(t, s.path)
	role := d.roleARN(t, "TrainingLogRetentionRole")
	logGroup := func(name string) string { return arn("logs", "log-group:"+name) }
	d.decide(t, []iamRequest{
		{name: "the stack creates SageMaker's training log group", principal: role, action: "logs:CreateLogGroup", resource: logGroup("/aws/sagemaker/TrainingJobs"), want: allowed, cite: citeLogsRetention},
		{name: "the stack sets the training log group's retention", principal: role, action: "logs:PutRetentionPolicy", resource: logGroup("/aws/sagemaker/TrainingJobs"), want: allowed, cite: citeLogsRetention},
		{name: "the stack sets the retention of no other log group", principal: role, action: "logs:PutRetentionPolicy", resource: logGroup("/aws/lambda/trainq-submit"), want: denied, cite: citeLogsRetention},
		{name: "the stack removes no training log group's retention", principal: role, action: "logs:DeleteRetentionPolicy", resource: logGroup("/aws/sagemaker/TrainingJobs"), want: denied, cite: citeLogsRetention},
		{name: "the stack deletes no training log group", principal: role, action: "logs:DeleteLogGroup", resource: logGroup("/aws/sagemaker/TrainingJobs"), want: denied, cite: citeLogsRetention},
	})
}

const citeLogsRetention = "Service Authorization Reference, CloudWatch Logs: CreateLogGroup, PutRetentionPolicy, DeleteRetentionPolicy and DeleteLogGroup act on the log-group resource (arn:…:logs:REGION:ACCOUNT:log-group:NAME); " +
	"https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatchlogs.html"
