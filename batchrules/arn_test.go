package batchrules_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
)

const queueARN = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"

func TestParseJobQueueARN(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    batchrules.JobQueueARN
		wantErr bool
	}{
		{"a queue ARN has a partition, Region, account and name", queueARN,
			batchrules.JobQueueARN{Partition: "aws", Region: "us-east-1", Account: "123456789012", Name: "trainq-training"}, false},
		{"another partition is an ARN too", "arn:aws-us-gov:batch:us-gov-west-1:123456789012:job-queue/q",
			batchrules.JobQueueARN{Partition: "aws-us-gov", Region: "us-gov-west-1", Account: "123456789012", Name: "q"}, false},
		{"a name is no ARN", "trainq-training", batchrules.JobQueueARN{}, true},
		{"an account has 12 digits", "arn:aws:batch:us-east-1:12345:job-queue/q", batchrules.JobQueueARN{}, true},
		{"a job definition is no queue", "arn:aws:batch:us-east-1:123456789012:job-definition/q", batchrules.JobQueueARN{}, true},
		{"a queue name is a Batch name", "arn:aws:batch:us-east-1:123456789012:job-queue/a/b", batchrules.JobQueueARN{}, true},
		{"a queue name has at most 128 characters", "arn:aws:batch:us-east-1:123456789012:job-queue/" + strings.Repeat("q", 129), batchrules.JobQueueARN{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := batchrules.ParseJobQueueARN(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseJobQueueARN (-want +got):\n%s", diff)
			}
			if err == nil && got.String() != tt.in {
				t.Errorf("String() = %q, want the ARN parsed, %q", got.String(), tt.in)
			}
			if batchrules.ValidJobQueueARN(tt.in) == tt.wantErr {
				t.Errorf("ValidJobQueueARN disagrees with ParseJobQueueARN")
			}
		})
	}
}

func TestServiceJobARN(t *testing.T) {
	q, err := batchrules.ParseJobQueueARN(queueARN)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.ServiceJobARN("j-1"), "arn:aws:batch:us-east-1:123456789012:service-job/j-1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestJobQueueName(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"an ARN's name follows job-queue/", queueARN, "trainq-training"},
		{"a name is returned as is", "trainq-training", "trainq-training"},
		{"an ARN of something else is returned as is", "arn:aws:batch:us-east-1:123456789012:job-definition/x", "arn:aws:batch:us-east-1:123456789012:job-definition/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := batchrules.JobQueueName(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSameJobQueue(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"an ARN is its own queue", queueARN, queueARN, true},
		{"an ARN and its name are the same queue", queueARN, "trainq-training", true},
		{"a name and the ARN are the same queue", "trainq-training", queueARN, true},
		{"the same name in another account is another queue", queueARN, "arn:aws:batch:us-east-1:210987654321:job-queue/trainq-training", false},
		{"another name is another queue", queueARN, "other", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := batchrules.SameJobQueue(tt.a, tt.b); got != tt.want {
				t.Errorf("SameJobQueue(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestValidRoleARN(t *testing.T) {
	prefix := "arn:aws:iam::123456789012:role/"
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"a role ARN names a partition, an account and a role", prefix + "trainq-sagemaker", true},
		{"a role may have a path", prefix + "service/trainq-sagemaker", true},
		{"a role name takes IAM's +=,.@_- characters", prefix + "a+b=c,d.e@f_g-h", true},
		{"path and name take at most 512 characters", prefix + strings.Repeat("r", 512), true},
		{"path and name of 513 characters are refused", prefix + strings.Repeat("r", 513), false},
		{"a role ARN has no Region", "arn:aws:iam:us-east-1:123456789012:role/r", false},
		{"a user is no role", "arn:aws:iam::123456789012:user/r", false},
		{"a role needs a name", prefix, false},
		{"another partition is a role ARN too", "arn:aws-cn:iam::123456789012:role/r", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := batchrules.ValidRoleARN(tt.in); got != tt.want {
				t.Errorf("ValidRoleARN(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestOtherBatchARNs: service environment and scheduling policy ARNs have
// the shape of the service authorization reference's resource types
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsbatch.html#awsbatch-resources-for-iam-policies),
// each with a Batch name.
func TestOtherBatchARNs(t *testing.T) {
	const account = "arn:aws:batch:us-east-1:123456789012:"
	tests := []struct {
		name  string
		valid func(string) bool
		in    string
		want  bool
	}{
		{"a service environment ARN names its environment", batchrules.ValidServiceEnvironmentARN, account + "service-environment/trainq-gpu-pool", true},
		{"a service environment ARN in another partition", batchrules.ValidServiceEnvironmentARN, "arn:aws-cn:batch:cn-north-1:123456789012:service-environment/pool", true},
		{"a queue is no service environment", batchrules.ValidServiceEnvironmentARN, account + "job-queue/trainq-gpu-pool", false},
		{"a service environment name is a Batch name", batchrules.ValidServiceEnvironmentARN, account + "service-environment/a.b", false},
		{"a service environment name has at most 128 characters", batchrules.ValidServiceEnvironmentARN, account + "service-environment/" + strings.Repeat("p", 129), false},
		{"a service environment ARN has a 12-digit account", batchrules.ValidServiceEnvironmentARN, "arn:aws:batch:us-east-1:1234:service-environment/pool", false},
		{"a scheduling policy ARN names its policy", batchrules.ValidSchedulingPolicyARN, account + "scheduling-policy/trainq-quota", true},
		{"a service environment is no scheduling policy", batchrules.ValidSchedulingPolicyARN, account + "service-environment/trainq-quota", false},
		{"a scheduling policy needs a name", batchrules.ValidSchedulingPolicyARN, account + "scheduling-policy/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.valid(tt.in); got != tt.want {
				t.Errorf("valid(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
