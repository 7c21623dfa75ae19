package test

// The permission suite: every flow a deployed platform uses, and the denials
// that matter, decided by a real IAM policy evaluator over the synthesized
// templates of the default, a fair-share and the full example platform.
// Each expected decision cites the AWS page it comes from.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
)

const examplePlatform = "../docs/trainq.example.yaml"

// teamsPlatform has two teams, alpha and beta, with training locations of
// their own, and two submitters of the same class, one for each team.
const teamsPlatform = "testdata/teams.yaml"

// otherAccount is an account that is not the stack's.
const otherAccount = "210987654321"

// AWS pages the decisions come from.
const (
	citeEvaluation = "IAM user guide, Policy evaluation logic: an action is allowed only if a policy allows it and none denies it; " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html"
	citeCrossAccount = "IAM user guide, Cross-account policy evaluation logic: the resource policy and the caller's identity policy must both allow; " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html"
	citeAlarmSNS = "CloudWatch user guide, Using Amazon SNS topics for alarm actions (cloudwatch.amazonaws.com needs sns:Publish in the topic policy, aws:SourceArn/aws:SourceAccount against the confused deputy); " +
		"https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Notify_Users_Alarm_Changes.html"
	citeAlarmKMS = "SNS developer guide, Enable compatibility between event sources from AWS services and encrypted topics (kms:Decrypt and kms:GenerateDataKey* for cloudwatch.amazonaws.com); " +
		"https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services"
	citeTLS = "the resource's policy denies every request with aws:SecureTransport false (AWS global condition keys); " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-securetransport"
	citeEventsLambda = "EventBridge user guide, Using resource-based policies: Lambda permissions (events.amazonaws.com, aws:SourceArn the rule); " +
		"https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html#eb-lambda-permissions"
	citeEventsSQS = "EventBridge user guide, Using dead-letter queues: the queue policy allows events.amazonaws.com sqs:SendMessage for the rule's ARN; " +
		"https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html"
	citeBatchActions = "Service Authorization Reference, AWS Batch: SubmitServiceJob needs job-queue* and service-job* (and quota-share, job-queue/QUEUE/quota-share/NAME, when it names one); TerminateServiceJob and UpdateServiceJob take service-job* with aws:ResourceTag; " +
		"https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsbatch.html"
	citeBatchReads = "Service Authorization Reference, AWS Batch: GetJobQueueSnapshot takes job-queue*; DescribeServiceJob and ListServiceJobs list no resource type (Resource \"*\"); " +
		"https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsbatch.html"
	citeCheckpoints = "SageMaker developer guide, Use checkpoints in Amazon SageMaker AI: the execution role reads and writes CheckpointConfig's S3Uri (s3:GetObject, s3:PutObject, s3:ListBucket under it); " +
		"https://docs.aws.amazon.com/sagemaker/latest/dg/model-checkpoints.html"
	citePassRole = "IAM user guide, Granting a user permissions to pass a role to an AWS service (iam:PassedToService); " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_passrole.html"
	citeSageMakerRole = "SageMaker developer guide, CreateTrainingJob API: execution role permissions (ECR pull, CloudWatch Logs, cloudwatch:PutMetricData, S3, VPC and KMS when used); " +
		"https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-roles.html#sagemaker-roles-createtrainingjob-perms"
	citeConfusedDeputy = "SageMaker developer guide, Cross-service confused deputy prevention (aws:SourceAccount, aws:SourceArn in the trust policy); " +
		"https://docs.aws.amazon.com/sagemaker/latest/dg/security-confused-deputy-prevention.html"
	citeS3Prefix = "S3 user guide, Policy resources and s3:prefix: a resource arn:aws:s3:::bucket/prefix/* matches only keys under prefix/; " +
		"https://docs.aws.amazon.com/AmazonS3/latest/userguide/amazon-s3-policy-keys.html"
	citeSameAccountInvoke = "IAM user guide, Policy evaluation logic: within one account a request is allowed when the identity policy or the resource policy allows it (Lambda: identity-based policies grant lambda:InvokeFunction on any function, alias or version of the account); " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html, https://docs.aws.amazon.com/lambda/latest/dg/access-control-identity-based.html"
	citeLambdaInvoke = "Lambda developer guide, Granting function access to other accounts / resource-based policies on aliases: a permission on an alias allows invoking that alias only; " +
		"https://docs.aws.amazon.com/lambda/latest/dg/access-control-resource-based.html"
	citeLogs = "Service Authorization Reference, CloudWatch Logs: CreateLogStream and PutLogEvents act on log-stream ARNs log-group:NAME:log-stream:STREAM; " +
		"https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatchlogs.html"
	citeMetrics = "CloudWatch user guide, cloudwatch:namespace condition key limits PutMetricData to a namespace; " +
		"https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/iam-cw-condition-keys-namespace.html"
	citeKMSDefault = "KMS developer guide, Default key policy: the account principal lets IAM policies grant use of the key; " +
		"https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html"
	citeDLC = "AWS Deep Learning Containers, available images: AWS's training images are in AWS's registries (763104351884 in us-east-1), pullable by any account whose IAM allows it; " +
		"https://github.com/aws/deep-learning-containers/blob/master/available_images.md"
)

// awsImageRepositoryPolicy stands for the repository policy of AWS's public
// training-image repositories, which lets any account pull: the decision
// then rests on the execution role's own policy.
var awsImageRepositoryPolicy = map[string]any{
	"Version": "2012-10-17",
	"Statement": []any{map[string]any{
		"Effect": "Allow", "Principal": "*",
		"Action":   []any{"ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"},
		"Resource": "*",
	}},
}

// defaultKeyPolicy is a KMS key's default policy (citeKMSDefault), for the
// platform's declared keys, which live outside the stack.
func defaultKeyPolicy(account string) map[string]any {
	return map[string]any{
		"Version": "2012-10-17",
		"Statement": []any{map[string]any{
			"Effect": "Allow", "Principal": map[string]any{"AWS": "arn:aws:iam::" + account + ":root"},
			"Action": "kms:*", "Resource": "*",
		}},
	}
}

// allowAll is an identity policy a caller's own account might attach.
func allowAll(action string) []namedPolicy {
	return []namedPolicy{{"caller-account-allows", map[string]any{
		"Version":   "2012-10-17",
		"Statement": []any{map[string]any{"Effect": "Allow", "Action": action, "Resource": "*"}},
	}}}
}

// queueRoleARN is the queue's own execution role (logical id ExecutionRole
// and the hash), which the submitter never passes.
func (d *deployed) queueRoleARN(t *testing.T) string {
	t.Helper()
	return d.roleMatching(t, regexp.MustCompile(`^ExecutionRole[0-9A-F]{8}$`))
}

// teamRoleARN is the execution role of team's jobs (construct
// ExecutionRole-<team>).
func (d *deployed) teamRoleARN(t *testing.T, team string) string {
	t.Helper()
	alnum := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(team, "")
	return d.roleMatching(t, regexp.MustCompile(`^ExecutionRole`+alnum+`Role[0-9A-F]{8}$`))
}

func (d *deployed) roleMatching(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	var found []string
	for id := range d.res {
		if d.typeOf(id) == "AWS::IAM::Role" && re.MatchString(id) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one role whose logical id matches %s, found %v", re, found)
	}
	return d.getAtt(found[0], "Arn").(string)
}

// platformFlows are the requests every deployed platform must decide right.
func platformFlows(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	p := s.platform
	queue := d.attr(t, "AWS::Batch::JobQueue", "Queue", "JobQueueArn")
	// The first team's role stands for every team's in what every job needs.
	team := p.Teams[0].Name
	execRole := d.teamRoleARN(t, team)
	queueRole := d.queueRoleARN(t)
	submitter := d.roleARN(t, "SubmitterServiceRole")
	observer := d.roleARN(t, "MonitorObserverServiceRole")
	poller := d.roleARN(t, "MonitorPollerServiceRole")
	topic := d.attr(t, "AWS::SNS::Topic", "MonitorAlarmTopic", "")
	key := d.attr(t, "AWS::KMS::Key", "MonitorAlarmKey", "Arn")
	observerFn := d.attr(t, "AWS::Lambda::Function", "MonitorObserverFunction", "Arn")
	pollerFn := d.attr(t, "AWS::Lambda::Function", "MonitorPollerFunction", "Arn")
	jobRule := d.attr(t, "AWS::Events::Rule", "MonitorJobEvents", "Arn")
	minuteRule := d.attr(t, "AWS::Events::Rule", "MonitorEveryMinute", "Arn")
	eventDLQ := d.attr(t, "AWS::SQS::Queue", "MonitorEventDeadLetterQueue", "Arn")
	submitDLQ := d.attr(t, "AWS::SQS::Queue", "SubmitterDeadLetterQueue", "Arn")
	submitLogs := d.attr(t, "AWS::Logs::LogGroup", "SubmitterLogs", "")
	observerLogs := d.attr(t, "AWS::Logs::LogGroup", "MonitorObserverLogs", "")
	artifacts := d.attr(t, "AWS::S3::Bucket", "Artifacts", "Arn")
	// An alarm that notifies the page topic (alarms of severity ticket
	// notify the ticket topic, which the topic below does not allow).
	topicID := ""
	for id := range d.res {
		if d.typeOf(id) == "AWS::SNS::Topic" && strings.HasPrefix(id, "MonitorAlarmTopic") {
			topicID = id
		}
	}
	var alarms []string
	for id := range d.res {
		if d.typeOf(id) == "AWS::CloudWatch::Alarm" && notifies(d.props(id)["AlarmActions"], topicID) {
			alarms = append(alarms, d.getAtt(id, "Arn").(string))
		}
	}
	sort.Strings(alarms)
	if len(alarms) == 0 {
		t.Fatal("the platform has no alarms")
	}
	alarm := alarms[0]
	otherAlarm := fmt.Sprintf("arn:aws:cloudwatch:%s:%s:alarm:%s", testRegion, otherAccount, strings.TrimPrefix(alarm[strings.LastIndex(alarm, ":")+1:], ""))
	alarmCtx := map[string]any{"aws:SourceArn": alarm, "aws:SourceAccount": testAccount}
	otherAlarmCtx := map[string]any{"aws:SourceArn": otherAlarm, "aws:SourceAccount": otherAccount}
	job := arn("batch", "service-job/5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10")
	ownJob := map[string]any{"aws:ResourceTag/trainq:platform": p.Name}
	foreignJob := map[string]any{"aws:ResourceTag/trainq:platform": "another-platform"}
	// Batch names each attempt AWSBatch + TrainingJobName + 32 hex digits;
	// the submitter starts TrainingJobName with the team's prefix.
	jobName := "AWSBatch" + p.TrainingJobPrefix(team) + "ranker-0a1b2c3d" + "88b610a69aa8380ca5b0a7aba3f81cb8"
	trainingJob := arn("sagemaker", "training-job/"+jobName)
	stream := func(group string) string {
		return arn("logs", "log-group:"+group+":log-stream:2026/12/01/[$LATEST]0123456789abcdef")
	}
	sageMakerLogs := "/aws/sagemaker/TrainingJobs"

	return []iamRequest{
		// Alarms reach on-call: CloudWatch publishes to the topic and uses its key.
		{name: "this account's alarms publish to the alarm topic", principal: "cloudwatch.amazonaws.com", action: "sns:Publish", resource: topic, context: alarmCtx, want: allowed, cite: citeAlarmSNS},
		{name: "another account's alarms cannot publish to the alarm topic", principal: "cloudwatch.amazonaws.com", action: "sns:Publish", resource: topic, context: otherAlarmCtx, want: denied, cite: citeAlarmSNS},
		{name: "nothing publishes to the alarm topic without TLS", principal: "cloudwatch.amazonaws.com", action: "sns:Publish", resource: topic, context: map[string]any{"aws:SourceArn": alarm, "aws:SourceAccount": testAccount, "aws:SecureTransport": "false"}, want: explicitlyDenied, cite: citeTLS},
		{name: "this account's alarms encrypt with the topic's key", principal: "cloudwatch.amazonaws.com", action: "kms:GenerateDataKey", resource: key, context: alarmCtx, want: allowed, cite: citeAlarmKMS},
		{name: "this account's alarms decrypt with the topic's key", principal: "cloudwatch.amazonaws.com", action: "kms:Decrypt", resource: key, context: alarmCtx, want: allowed, cite: citeAlarmKMS},
		{name: "another account's alarms cannot use the topic's key", principal: "cloudwatch.amazonaws.com", action: "kms:GenerateDataKey", resource: key, context: otherAlarmCtx, want: denied, cite: citeAlarmKMS},

		// Batch events and the minute schedule reach the monitoring functions.
		{name: "the job-event rule invokes the observer", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: observerFn, context: map[string]any{"aws:SourceArn": jobRule, "aws:SourceAccount": testAccount}, want: allowed, cite: citeEventsLambda},
		{name: "another account's rule cannot invoke the observer", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: observerFn, context: map[string]any{"aws:SourceArn": fmt.Sprintf("arn:aws:events:%s:%s:rule/x", testRegion, otherAccount), "aws:SourceAccount": otherAccount}, want: denied, cite: citeEventsLambda},
		{name: "the minute schedule invokes the poller", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: pollerFn, context: map[string]any{"aws:SourceArn": minuteRule, "aws:SourceAccount": testAccount}, want: allowed, cite: citeEventsLambda},
		{name: "the minute schedule cannot invoke the observer", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: observerFn, context: map[string]any{"aws:SourceArn": minuteRule, "aws:SourceAccount": testAccount}, want: denied, cite: citeEventsLambda},
		{name: "the job-event rule keeps undeliverable events in its dead-letter queue", principal: "events.amazonaws.com", action: "sqs:SendMessage", resource: eventDLQ, context: map[string]any{"aws:SourceArn": jobRule, "aws:SourceAccount": testAccount}, want: allowed, cite: citeEventsSQS},
		{name: "another rule cannot write to the event dead-letter queue", principal: "events.amazonaws.com", action: "sqs:SendMessage", resource: eventDLQ, context: map[string]any{"aws:SourceArn": minuteRule, "aws:SourceAccount": testAccount}, want: denied, cite: citeEventsSQS},

		// The submitter: its queue, its jobs, the execution role to SageMaker only.
		{name: "the submitter submits to the platform's queue", principal: submitter, action: "batch:SubmitServiceJob", resource: queue, context: map[string]any{"aws:RequestTag/trainq:platform": p.Name}, want: allowed, cite: citeBatchActions},
		{name: "the submitter creates the service job it submits", principal: submitter, action: "batch:SubmitServiceJob", resource: job, context: map[string]any{"aws:RequestTag/trainq:platform": p.Name}, want: allowed, cite: citeBatchActions},
		{name: "the submitter cannot submit to another queue", principal: submitter, action: "batch:SubmitServiceJob", resource: arn("batch", "job-queue/someone-elses-queue"), context: map[string]any{"aws:RequestTag/trainq:platform": p.Name}, want: denied, cite: citeBatchActions},
		{name: "the submitter passes the first team's execution role to SageMaker", principal: submitter, action: "iam:PassRole", resource: execRole, context: map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}, want: allowed, cite: citePassRole},
		{name: "the submitter cannot pass the queue's own execution role (no team's)", principal: submitter, action: "iam:PassRole", resource: queueRole, context: map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}, want: denied, cite: citePassRole},
		{name: "the submitter cannot pass the execution role to EC2", principal: submitter, action: "iam:PassRole", resource: execRole, context: map[string]any{"iam:PassedToService": "ec2.amazonaws.com"}, want: denied, cite: citePassRole},
		{name: "the submitter cannot pass another role", principal: submitter, action: "iam:PassRole", resource: "arn:aws:iam::" + testAccount + ":role/admin", context: map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}, want: denied, cite: citePassRole},
		{name: "the submitter tags the job it creates", principal: submitter, action: "batch:TagResource", resource: job, context: submissionTags(p.Name), want: allowed, cite: citeBatchActions},
		{name: "the submitter tags the platform's jobs", principal: submitter, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(map[string]string{"trainq:platform": p.Name, "trainq:reprioritized-by": "arn:aws:iam::" + testAccount + ":role/alpha-pipeline"})), want: allowed, cite: citeBatchActions},
		{name: "the submitter cannot re-tag another platform's job as its own", principal: submitter, action: "batch:TagResource", resource: job, context: map[string]any{"aws:RequestTag/trainq:platform": p.Name, "aws:ResourceTag/trainq:platform": "another-platform"}, want: denied, cite: citeBatchActions},
		{name: "the submitter cancels the platform's jobs", principal: submitter, action: "batch:TerminateServiceJob", resource: job, context: ownJob, want: allowed, cite: citeBatchActions},
		{name: "the submitter cannot cancel another platform's jobs", principal: submitter, action: "batch:TerminateServiceJob", resource: job, context: foreignJob, want: denied, cite: citeBatchActions},
		{name: "the submitter re-prioritizes the platform's jobs", principal: submitter, action: "batch:UpdateServiceJob", resource: job, context: ownJob, want: allowed, cite: citeBatchActions},
		{name: "the submitter cannot re-prioritize another platform's jobs", principal: submitter, action: "batch:UpdateServiceJob", resource: job, context: foreignJob, want: denied, cite: citeBatchActions},
		{name: "the submitter reads the queue's snapshot", principal: submitter, action: "batch:GetJobQueueSnapshot", resource: queue, want: allowed, cite: citeBatchActions},
		{name: "the submitter cannot read another queue's snapshot", principal: submitter, action: "batch:GetJobQueueSnapshot", resource: arn("batch", "job-queue/someone-elses-queue"), want: denied, cite: citeBatchReads},
		{name: "the submitter lists the queue's jobs (to explain why a job waits)", principal: submitter, action: "batch:ListServiceJobs", resource: "*", want: allowed, cite: citeBatchReads},
		{name: "the submitter keeps failed asynchronous requests in its dead-letter queue", principal: submitter, action: "sqs:SendMessage", resource: submitDLQ, want: allowed, cite: citeEvaluation},
		{name: "the submitter writes its own logs", principal: submitter, action: "logs:PutLogEvents", resource: stream(submitLogs), want: allowed, cite: citeLogs},
		{name: "the submitter cannot write the observer's logs", principal: submitter, action: "logs:PutLogEvents", resource: stream(observerLogs), want: denied, cite: citeLogs},

		// The monitoring functions read; they never submit or pass roles.
		{name: "the observer writes its own logs", principal: observer, action: "logs:PutLogEvents", resource: stream(observerLogs), want: allowed, cite: citeLogs},
		{name: "the observer cannot submit jobs", principal: observer, action: "batch:SubmitServiceJob", resource: queue, want: denied, cite: citeEvaluation},
		{name: "the observer cannot pass the execution role", principal: observer, action: "iam:PassRole", resource: execRole, context: map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}, want: denied, cite: citeEvaluation},
		{name: "the poller reads the queue's snapshot", principal: poller, action: "batch:GetJobQueueSnapshot", resource: queue, want: allowed, cite: citeBatchActions},
		{name: "the poller lists the queue's jobs", principal: poller, action: "batch:ListServiceJobs", resource: "*", want: allowed, cite: citeBatchActions},
		{name: "the poller cannot cancel jobs", principal: poller, action: "batch:TerminateServiceJob", resource: job, context: ownJob, want: denied, cite: citeEvaluation},

		// The execution role: assumed by SageMaker of this account only.
		{name: "SageMaker assumes the execution role for this account's training jobs", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: execRole, context: map[string]any{"aws:SourceAccount": testAccount, "aws:SourceArn": trainingJob}, want: allowed, cite: citeConfusedDeputy},
		{name: "SageMaker cannot assume the execution role for another account's jobs", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: execRole, context: map[string]any{"aws:SourceAccount": otherAccount, "aws:SourceArn": fmt.Sprintf("arn:aws:sagemaker:%s:%s:training-job/x", testRegion, otherAccount)}, want: denied, cite: citeConfusedDeputy},
		{name: "Lambda cannot assume the execution role", principal: "lambda.amazonaws.com", action: "sts:AssumeRole", resource: execRole, context: map[string]any{"aws:SourceAccount": testAccount}, want: denied, cite: citeEvaluation},
		{name: "Lambda assumes the submitter's role for this account's function", principal: "lambda.amazonaws.com", action: "sts:AssumeRole", resource: submitter, context: map[string]any{"aws:SourceAccount": testAccount}, want: allowed, cite: citeEvaluation},

		// The execution role: what a training job needs (citeSageMakerRole).
		{name: "a job gets an ECR token", principal: execRole, action: "ecr:GetAuthorizationToken", resource: "*", want: allowed, cite: citeSageMakerRole},
		{name: "a job pulls an AWS Deep Learning Containers training image", principal: execRole, action: "ecr:BatchGetImage", resource: "arn:aws:ecr:us-east-1:763104351884:repository/pytorch-training", account: "763104351884", resourcePolicy: awsImageRepositoryPolicy, want: allowed, cite: citeDLC},
		{name: "a job downloads the layers of an AWS training image", principal: execRole, action: "ecr:GetDownloadUrlForLayer", resource: "arn:aws:ecr:us-east-1:763104351884:repository/pytorch-training", account: "763104351884", resourcePolicy: awsImageRepositoryPolicy, want: allowed, cite: citeDLC},
		{name: "a job cannot pull images of an arbitrary other account", principal: execRole, action: "ecr:BatchGetImage", resource: "arn:aws:ecr:us-east-1:" + otherAccount + ":repository/anything", account: otherAccount, resourcePolicy: awsImageRepositoryPolicy, want: denied, cite: citeCrossAccount},
		{name: "a job creates its log stream", principal: execRole, action: "logs:CreateLogStream", resource: arn("logs", "log-group:"+sageMakerLogs+":log-stream:"+jobName+"/algo-1-1764590000"), want: allowed, cite: citeLogs},
		{name: "a job writes its logs", principal: execRole, action: "logs:PutLogEvents", resource: arn("logs", "log-group:"+sageMakerLogs+":log-stream:"+jobName+"/algo-1-1764590000"), want: allowed, cite: citeLogs},
		{name: "a job cannot write another log group", principal: execRole, action: "logs:PutLogEvents", resource: stream("/aws/lambda/" + p.SubmitFunctionName()), want: denied, cite: citeLogs},
		{name: "a job publishes SageMaker training metrics", principal: execRole, action: "cloudwatch:PutMetricData", resource: "*", context: map[string]any{"cloudwatch:namespace": "/aws/sagemaker/TrainingJobs"}, want: allowed, cite: citeMetrics},
		{name: "a job cannot publish into trainq's metric namespace", principal: execRole, action: "cloudwatch:PutMetricData", resource: "*", context: map[string]any{"cloudwatch:namespace": "trainq"}, want: denied, cite: citeMetrics},
		{name: "a job reads its team's prefix of the artifacts bucket", principal: execRole, action: "s3:GetObject", resource: artifacts + "/" + team + "/model.tar.gz", want: allowed, cite: citeS3Prefix},
		{name: "a job writes its team's prefix of the artifacts bucket", principal: execRole, action: "s3:PutObject", resource: artifacts + "/" + team + "/model.tar.gz", want: allowed, cite: citeS3Prefix},
		{name: "a job lists its team's prefix of the artifacts bucket", principal: execRole, action: "s3:ListBucket", resource: artifacts, context: map[string]any{"s3:prefix": team + "/"}, want: allowed, cite: citeS3Prefix},
		{name: "a job cannot read the artifacts bucket outside its team's prefix", principal: execRole, action: "s3:GetObject", resource: artifacts + "/" + team + "-other/model.tar.gz", want: denied, cite: citeS3Prefix},
		{name: "a job cannot list the whole artifacts bucket", principal: execRole, action: "s3:ListBucket", resource: artifacts, context: map[string]any{"s3:prefix": ""}, want: denied, cite: citeS3Prefix},
		{name: "nothing reads the artifacts bucket without TLS", principal: execRole, action: "s3:GetObject", resource: artifacts + "/" + team + "/model.tar.gz", context: map[string]any{"aws:SecureTransport": "false"}, want: explicitlyDenied, cite: citeTLS},
		{name: "the queue's own execution role cannot read the artifacts bucket", principal: queueRole, action: "s3:GetObject", resource: artifacts + "/" + team + "/model.tar.gz", want: denied, cite: citeS3Prefix},
		{name: "a job cannot delete the platform's alarm topic", principal: execRole, action: "sns:DeleteTopic", resource: topic, want: denied, cite: citeEvaluation},
	}
}

// declaredDataFlows are the requests about a platform's training section.
func declaredDataFlows(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	execRole := d.teamRoleARN(t, s.platform.Teams[0].Name)
	var out []iamRequest
	for _, uri := range s.platform.Training.S3Read {
		bucket, prefix := splitS3(t, uri)
		out = append(out,
			iamRequest{name: "a job reads " + uri, principal: execRole, action: "s3:GetObject", resource: "arn:aws:s3:::" + bucket + "/" + prefix + "part-0001.parquet", want: allowed, cite: citeS3Prefix},
			iamRequest{name: "a job lists " + uri, principal: execRole, action: "s3:ListBucket", resource: "arn:aws:s3:::" + bucket, context: map[string]any{"s3:prefix": prefix}, want: allowed, cite: citeS3Prefix},
			iamRequest{name: "a job cannot read the sibling prefix of " + uri, principal: execRole, action: "s3:GetObject", resource: "arn:aws:s3:::" + bucket + "/" + strings.TrimSuffix(prefix, "/") + "-private/secret.csv", want: denied, cite: citeS3Prefix},
			iamRequest{name: "a job cannot list the sibling prefix of " + uri, principal: execRole, action: "s3:ListBucket", resource: "arn:aws:s3:::" + bucket, context: map[string]any{"s3:prefix": strings.TrimSuffix(prefix, "/") + "-private/"}, want: denied, cite: citeS3Prefix},
			iamRequest{name: "a job cannot write the read-only " + uri, principal: execRole, action: "s3:PutObject", resource: "arn:aws:s3:::" + bucket + "/" + prefix + "part-0001.parquet", want: denied, cite: citeS3Prefix},
		)
	}
	for _, uri := range s.platform.Training.S3Write {
		bucket, prefix := splitS3(t, uri)
		out = append(out,
			iamRequest{name: "a job writes " + uri, principal: execRole, action: "s3:PutObject", resource: "arn:aws:s3:::" + bucket + "/" + prefix + "checkpoint-10.pt", want: allowed, cite: citeS3Prefix},
			iamRequest{name: "a job cannot write the sibling prefix of " + uri, principal: execRole, action: "s3:PutObject", resource: "arn:aws:s3:::" + bucket + "/" + strings.TrimSuffix(prefix, "/") + "-private/checkpoint-10.pt", want: denied, cite: citeS3Prefix},
		)
	}
	for _, repo := range s.platform.Training.ECRRepositories {
		out = append(out, iamRequest{name: "a job pulls from the declared repository " + repo, principal: execRole, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/"+repo), want: allowed, cite: citeSageMakerRole})
	}
	if len(s.platform.Training.ECRRepositories) > 0 {
		out = append(out, iamRequest{name: "a job cannot pull from an undeclared repository of the account", principal: execRole, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/ml/undeclared"), want: denied, cite: citeSageMakerRole})
	}
	return out
}

// splitS3 splits s3://bucket/prefix/ into bucket and prefix; the test
// platforms declare prefixes only.
func splitS3(t *testing.T, uri string) (bucket, prefix string) {
	loc, err := platform.ParseS3URI(uri)
	if err != nil || loc.Object {
		t.Fatalf("test platform's %s: want a prefix (%v)", uri, err)
	}
	return loc.Bucket, loc.Key
}

// submitterGrants are the requests about the platform file's submitters:
// each role may invoke exactly the aliases of its (class, team) pairs, and
// two roles share no alias unless both were granted its class and team.
func submitterGrants(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	fn := d.attr(t, "AWS::Lambda::Function", "SubmitterFunction", "Arn")
	var out []iamRequest
	invokers := map[string][]string{} // alias → the roles IAM is asked to allow
	for _, sub := range s.platform.Submission.Submitters {
		account := strings.Split(sub.RoleARN, ":")[4]
		var identity []namedPolicy
		cite := citeLambdaInvoke
		if account != testAccount {
			// The caller's account must allow it too (citeCrossAccount).
			identity, cite = allowAll("lambda:InvokeFunction"), citeCrossAccount
		}
		for _, a := range s.platform.SubmitAliases() {
			want, verb := denied, "cannot invoke"
			if slices.Contains(sub.Classes, a.Class) && slices.Contains(sub.Teams, a.Team) {
				want, verb = allowed, "invokes"
				invokers[a.Name] = append(invokers[a.Name], sub.RoleARN)
			}
			out = append(out, iamRequest{name: fmt.Sprintf("%s %s the %s alias (class %s, team %s)", sub.RoleARN, verb, a.Name, a.Class, a.Team), principal: sub.RoleARN, action: "lambda:InvokeFunction", resource: fn + ":" + a.Name, identity: identity, want: want, cite: cite})
		}
		out = append(out, iamRequest{name: sub.RoleARN + " cannot invoke the function unqualified (every class and team)", principal: sub.RoleARN, action: "lambda:InvokeFunction", resource: fn, identity: identity, want: denied, cite: cite})
	}
	// Within the account IAM is not the fence: a principal whose own policy
	// allows lambda:* on * (PowerUserAccess) may invoke every qualifier of
	// the function, granted or not. The submission function is the fence:
	// it refuses such a caller unless its verified role is granted the pair
	// (submit/identity_test.go, TestAnIdentityGrantedNothingIsForbiddenWhateverItInvokes;
	// under the emulator, test/submitter/identity_test.go). Across accounts
	// IAM is a fence too: a role of another account that no submitter entry
	// names is denied whatever its own policy allows.
	powerUser := "arn:aws:iam::" + testAccount + ":role/power-user"
	stranger := "arn:aws:iam::" + otherAccount + ":role/not-granted"
	qualifiers := []string{"", ":$LATEST", ":1"}
	for _, a := range s.platform.SubmitAliases() {
		qualifiers = append(qualifiers, ":"+a.Name)
	}
	for _, q := range qualifiers {
		out = append(out,
			iamRequest{name: "a same-account role with lambda:* on * may invoke " + fn + q + " (IAM allows it: the function is the fence)", principal: powerUser, action: "lambda:InvokeFunction", resource: fn + q, identity: allowAll("lambda:*"), want: allowed, cite: citeSameAccountInvoke},
			iamRequest{name: "another account's role granted nothing cannot invoke " + fn + q + ", whatever its own policy", principal: stranger, action: "lambda:InvokeFunction", resource: fn + q, account: testAccount, identity: allowAll("lambda:*"), want: denied, cite: citeCrossAccount},
		)
	}
	// What the requests above prove, pair by pair: an alias two roles may
	// both invoke is one both were granted the class and the team of.
	for alias, roles := range invokers {
		a, _ := s.platform.SubmitAliasOf(alias)
		for _, role := range roles {
			for _, sub := range s.platform.Submission.Submitters {
				if sub.RoleARN == role && (!slices.Contains(sub.Teams, a.Team) || !slices.Contains(sub.Classes, a.Class)) {
					t.Errorf("%s would invoke %s without being granted class %s and team %s", role, alias, a.Class, a.Team)
				}
			}
		}
	}
	return out
}

// teamFlows are the requests about the teams' own execution roles: each
// reaches its prefix of the artifacts bucket and its own training
// locations, no other team's, and the submitter may pass each to SageMaker
// only.
func teamFlows(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	artifacts := d.attr(t, "AWS::S3::Bucket", "Artifacts", "Arn")
	submitter := d.roleARN(t, "SubmitterServiceRole")
	queueRole := d.queueRoleARN(t)
	queue := d.attr(t, "AWS::Batch::JobQueue", "Queue", "JobQueueArn")
	request := map[string]any{"aws:RequestTag/trainq:platform": s.platform.Name}
	var out []iamRequest
	if s.platform.Scheduling.Mode == platform.ModeQuota {
		// SubmitServiceJob's optional quota-share resource, which IAM
		// checks when the request names a share: the teams' shares of the
		// platform's queue, no other.
		out = append(out,
			iamRequest{name: "the submitter cannot submit into a quota share that is no team's", principal: submitter, action: "batch:SubmitServiceJob", resource: queue + "/quota-share/not-a-team", context: request, want: denied, cite: citeBatchActions},
			iamRequest{name: "the submitter cannot submit into another queue's quota share", principal: submitter, action: "batch:SubmitServiceJob", resource: arn("batch", "job-queue/someone-elses-queue/quota-share/"+s.platform.Teams[0].Name), context: request, want: denied, cite: citeBatchActions},
		)
	}
	for _, team := range s.platform.Teams {
		role := d.teamRoleARN(t, team.Name)
		if s.platform.Scheduling.Mode == platform.ModeQuota {
			out = append(out, iamRequest{name: "the submitter submits into team " + team.Name + "'s quota share", principal: submitter, action: "batch:SubmitServiceJob", resource: queue + "/quota-share/" + team.Name, context: request, want: allowed, cite: citeBatchActions})
		}
		out = append(out,
			iamRequest{name: "the submitter passes team " + team.Name + "'s execution role to SageMaker", principal: submitter, action: "iam:PassRole", resource: role, context: map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}, want: allowed, cite: citePassRole},
			iamRequest{name: "the submitter cannot pass team " + team.Name + "'s execution role to EC2", principal: submitter, action: "iam:PassRole", resource: role, context: map[string]any{"iam:PassedToService": "ec2.amazonaws.com"}, want: denied, cite: citePassRole},
			iamRequest{name: "SageMaker assumes team " + team.Name + "'s execution role for this account's jobs", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: role, context: map[string]any{"aws:SourceAccount": testAccount, "aws:SourceArn": arn("sagemaker", "training-job/AWSBatch"+s.platform.TrainingJobPrefix(team.Name)+"x-0a1b2c3d88b610a69aa8380ca5b0a7aba3f81cb8")}, want: allowed, cite: citeConfusedDeputy},
			iamRequest{name: "team " + team.Name + "'s jobs write its artifacts prefix", principal: role, action: "s3:PutObject", resource: artifacts + "/" + team.Name + "/models/m.tar.gz", want: allowed, cite: citeS3Prefix},
		)
		// Checkpoints: s3://ARTIFACTS/<team>/checkpoints/<job name>/
		// (contract.EnvCheckpointBucket), which the job's role, and only
		// that team's, may use.
		checkpoints := team.Name + "/checkpoints/ranking-v1-3f9a2c/"
		out = append(out,
			iamRequest{name: "team " + team.Name + "'s jobs write their checkpoints", principal: role, action: "s3:PutObject", resource: artifacts + "/" + checkpoints + "step-1000.pt", want: allowed, cite: citeCheckpoints},
			iamRequest{name: "team " + team.Name + "'s jobs read their checkpoints back when they resume", principal: role, action: "s3:GetObject", resource: artifacts + "/" + checkpoints + "step-1000.pt", want: allowed, cite: citeCheckpoints},
			iamRequest{name: "team " + team.Name + "'s jobs list their checkpoints", principal: role, action: "s3:ListBucket", resource: artifacts, context: map[string]any{"s3:prefix": checkpoints}, want: allowed, cite: citeCheckpoints},
			iamRequest{name: "the queue's own role cannot write team " + team.Name + "'s checkpoints", principal: queueRole, action: "s3:PutObject", resource: artifacts + "/" + checkpoints + "step-1000.pt", want: denied, cite: citeS3Prefix},
			iamRequest{name: "the queue's own role cannot read team " + team.Name + "'s checkpoints", principal: queueRole, action: "s3:GetObject", resource: artifacts + "/" + checkpoints + "step-1000.pt", want: denied, cite: citeS3Prefix},
		)
		tt := team.TrainingOf()
		for _, uri := range tt.S3Read {
			bucket, prefix := splitS3(t, uri)
			out = append(out, iamRequest{name: "team " + team.Name + "'s jobs read its own " + uri, principal: role, action: "s3:GetObject", resource: "arn:aws:s3:::" + bucket + "/" + prefix + "part-0001.parquet", want: allowed, cite: citeS3Prefix})
		}
		for _, uri := range tt.S3Write {
			bucket, prefix := splitS3(t, uri)
			out = append(out, iamRequest{name: "team " + team.Name + "'s jobs write its own " + uri, principal: role, action: "s3:PutObject", resource: "arn:aws:s3:::" + bucket + "/" + prefix + "checkpoint-10.pt", want: allowed, cite: citeS3Prefix})
		}
		for _, repo := range tt.ECRRepositories {
			out = append(out, iamRequest{name: "team " + team.Name + "'s jobs pull from its own repository " + repo, principal: role, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/"+repo), want: allowed, cite: citeSageMakerRole})
		}
		for _, other := range s.platform.Teams {
			if other.Name == team.Name {
				continue
			}
			out = append(out,
				iamRequest{name: "team " + team.Name + "'s jobs cannot write team " + other.Name + "'s checkpoints", principal: role, action: "s3:PutObject", resource: artifacts + "/" + other.Name + "/checkpoints/ranking-v1-3f9a2c/step-1000.pt", want: denied, cite: citeS3Prefix},
				iamRequest{name: "team " + team.Name + "'s jobs cannot read team " + other.Name + "'s checkpoints", principal: role, action: "s3:GetObject", resource: artifacts + "/" + other.Name + "/checkpoints/ranking-v1-3f9a2c/step-1000.pt", want: denied, cite: citeS3Prefix},
				iamRequest{name: "team " + team.Name + "'s jobs cannot read team " + other.Name + "'s artifacts", principal: role, action: "s3:GetObject", resource: artifacts + "/" + other.Name + "/models/m.tar.gz", want: denied, cite: citeS3Prefix},
				iamRequest{name: "team " + team.Name + "'s jobs cannot write team " + other.Name + "'s artifacts", principal: role, action: "s3:PutObject", resource: artifacts + "/" + other.Name + "/models/m.tar.gz", want: denied, cite: citeS3Prefix},
				iamRequest{name: "team " + team.Name + "'s jobs cannot list team " + other.Name + "'s artifacts", principal: role, action: "s3:ListBucket", resource: artifacts, context: map[string]any{"s3:prefix": other.Name + "/"}, want: denied, cite: citeS3Prefix},
			)
			ot := other.TrainingOf()
			for _, uri := range append(append([]string(nil), ot.S3Read...), ot.S3Write...) {
				if slices.Contains(s.platform.Training.S3Read, uri) || slices.Contains(s.platform.Training.S3Write, uri) || slices.Contains(tt.S3Read, uri) || slices.Contains(tt.S3Write, uri) {
					continue
				}
				bucket, prefix := splitS3(t, uri)
				out = append(out, iamRequest{name: "team " + team.Name + "'s jobs cannot read team " + other.Name + "'s own " + uri, principal: role, action: "s3:GetObject", resource: "arn:aws:s3:::" + bucket + "/" + prefix + "part-0001.parquet", want: denied, cite: citeS3Prefix})
			}
			for _, repo := range ot.ECRRepositories {
				if slices.Contains(s.platform.Training.ECRRepositories, repo) || slices.Contains(tt.ECRRepositories, repo) {
					continue
				}
				out = append(out, iamRequest{name: "team " + team.Name + "'s jobs cannot pull from team " + other.Name + "'s repository " + repo, principal: role, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/"+repo), want: denied, cite: citeSageMakerRole})
			}
		}
	}
	return out
}

func TestPermissionsAsIAMDecidesThem(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform, examplePlatform, teamsPlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			d := deploy(t, s.path)
			var reqs []iamRequest
			reqs = append(reqs, platformFlows(t, s, d)...)
			reqs = append(reqs, declaredDataFlows(t, s, d)...)
			reqs = append(reqs, submitterGrants(t, s, d)...)
			reqs = append(reqs, teamFlows(t, s, d)...)
			reqs = append(reqs, trainingNetworkAndKeys(t, s, d)...)
			reqs = append(reqs, rerouterFlows(t, s, d)...)
			reqs = append(reqs, ledgerFlows(t, s, d)...)
			reqs = append(reqs, fenceFlows(t, s, d)...)
			d.decide(t, reqs)
			ledgerIsKept(t, d)
		})
	}
}

// trainingNetworkAndKeys are the requests about training.vpc and
// training.kmsKeys.
func trainingNetworkAndKeys(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	team0 := s.platform.Teams[0]
	execRole := d.teamRoleARN(t, team0.Name)
	tr := s.platform.Training
	var out []iamRequest
	eni := arn("ec2", "network-interface/eni-0123456789abcdef0")
	// A team with subnets of its own changes no interface of another
	// team's subnets: the condition ec2:Subnet names only its own.
	for _, other := range s.platform.Teams {
		if other.Name == team0.Name || other.TrainingOf().VPC == nil {
			continue
		}
		for _, subnet := range other.TrainingOf().VPC.Subnets {
			ctx := map[string]any{"ec2:Subnet": arn("ec2", "subnet/"+subnet)}
			out = append(out,
				iamRequest{name: team0.Name + "'s job cannot delete " + other.Name + "'s network interface in " + subnet, principal: execRole, action: "ec2:DeleteNetworkInterface", resource: eni, context: ctx, want: denied, cite: citeSageMakerRole},
				iamRequest{name: team0.Name + "'s job cannot share " + other.Name + "'s network interface in " + subnet, principal: execRole, action: "ec2:CreateNetworkInterfacePermission", resource: eni, context: ctx, want: denied, cite: citeSageMakerRole},
				iamRequest{name: team0.Name + "'s job cannot create a network interface in " + other.Name + "'s " + subnet, principal: execRole, action: "ec2:CreateNetworkInterface", resource: arn("ec2", "subnet/"+subnet), want: denied, cite: citeSageMakerRole},
			)
		}
	}
	vpc := s.platform.ReachOf(&team0).VPC
	if vpc == nil {
		return append(out, iamRequest{name: "a job cannot create network interfaces without a declared VPC", principal: execRole, action: "ec2:CreateNetworkInterface", resource: eni, want: denied, cite: citeSageMakerRole})
	}
	for _, subnet := range vpc.Subnets {
		subnetARN := arn("ec2", "subnet/"+subnet)
		out = append(out,
			iamRequest{name: "a job creates its network interface in " + subnet, principal: execRole, action: "ec2:CreateNetworkInterface", resource: subnetARN, want: allowed, cite: citeSageMakerRole},
			iamRequest{name: "a job deletes its network interface in " + subnet, principal: execRole, action: "ec2:DeleteNetworkInterface", resource: eni, context: map[string]any{"ec2:Subnet": subnetARN}, want: allowed, cite: citeSageMakerRole},
			iamRequest{name: "a job lets SageMaker use its network interface in " + subnet, principal: execRole, action: "ec2:CreateNetworkInterfacePermission", resource: eni, context: map[string]any{"ec2:Subnet": subnetARN}, want: allowed, cite: citeSageMakerRole},
		)
	}
	for _, sg := range vpc.SecurityGroups {
		out = append(out, iamRequest{name: "a job's network interface uses " + sg, principal: execRole, action: "ec2:CreateNetworkInterface", resource: arn("ec2", "security-group/"+sg), want: allowed, cite: citeSageMakerRole})
	}
	undeclared := arn("ec2", "subnet/subnet-0fedcba9876543210")
	out = append(out,
		iamRequest{name: "a job creates new network interfaces", principal: execRole, action: "ec2:CreateNetworkInterface", resource: eni, want: allowed, cite: citeSageMakerRole},
		iamRequest{name: "a job cannot create a network interface in an undeclared subnet", principal: execRole, action: "ec2:CreateNetworkInterface", resource: undeclared, want: denied, cite: citeSageMakerRole},
		iamRequest{name: "a job cannot delete network interfaces of an undeclared subnet", principal: execRole, action: "ec2:DeleteNetworkInterface", resource: eni, context: map[string]any{"ec2:Subnet": undeclared}, want: denied, cite: citeSageMakerRole},
		iamRequest{name: "a job cannot use a security group it was not given", principal: execRole, action: "ec2:CreateNetworkInterface", resource: arn("ec2", "security-group/sg-0fedcba9876543210"), want: denied, cite: citeSageMakerRole},
		iamRequest{name: "a job describes the subnets it runs in", principal: execRole, action: "ec2:DescribeSubnets", resource: "*", want: allowed, cite: citeSageMakerRole},
	)
	for _, key := range tr.KMSKeys {
		account := strings.Split(key, ":")[4]
		for _, action := range []string{"kms:Decrypt", "kms:GenerateDataKey", "kms:Encrypt"} {
			out = append(out, iamRequest{name: "a job may " + action + " with " + key, principal: execRole, action: action, resource: key, account: account, resourcePolicy: defaultKeyPolicy(account), want: allowed, cite: citeKMSDefault})
		}
		out = append(out,
			iamRequest{name: "a job grants SageMaker's volume encryption the use of " + key, principal: execRole, action: "kms:CreateGrant", resource: key, account: account, context: map[string]any{"kms:GrantIsForAWSResource": "true"}, resourcePolicy: defaultKeyPolicy(account), want: allowed, cite: citeSageMakerRole},
			iamRequest{name: "a job cannot grant " + key + " to a principal of its choosing", principal: execRole, action: "kms:CreateGrant", resource: key, account: account, context: map[string]any{"kms:GrantIsForAWSResource": "false"}, resourcePolicy: defaultKeyPolicy(account), want: denied, cite: citeSageMakerRole},
		)
	}
	other := fmt.Sprintf("arn:aws:kms:%s:%s:key/00000000-1111-2222-3333-444444444444", testRegion, testAccount)
	out = append(out, iamRequest{name: "a job cannot use an undeclared key of the account", principal: execRole, action: "kms:Decrypt", resource: other, resourcePolicy: defaultKeyPolicy(testAccount), want: denied, cite: citeKMSDefault})
	return out
}

// TestTwoTeamsOfOneClassShareNoAlias: on testdata/teams.yaml the two
// research pipelines, one for alpha and one for beta, may each invoke its
// own alias and nothing the other may, as IAM decides it (every request of
// submitterGrants is decided; here the allowed sets are compared).
func TestTwoTeamsOfOneClassShareNoAlias(t *testing.T) {
	s := synth(t, teamsPlatform)
	d := deploy(t, s.path)
	reqs := submitterGrants(t, s, d)
	d.decide(t, reqs)
	may := map[string]map[string]bool{}
	for _, r := range reqs {
		if r.want == allowed {
			if may[r.principal] == nil {
				may[r.principal] = map[string]bool{}
			}
			may[r.principal][r.resource] = true
		}
	}
	alpha, beta := "arn:aws:iam::123456789012:role/alpha-pipeline", "arn:aws:iam::123456789012:role/beta-pipeline"
	fn := d.attr(t, "AWS::Lambda::Function", "SubmitterFunction", "Arn")
	if want := map[string]bool{fn + ":research-alpha": true}; !maps.Equal(may[alpha], want) {
		t.Errorf("alpha's pipeline may invoke %v, want only %v", may[alpha], want)
	}
	if want := map[string]bool{fn + ":research-beta": true}; !maps.Equal(may[beta], want) {
		t.Errorf("beta's pipeline may invoke %v, want only %v", may[beta], want)
	}
	for res := range may[alpha] {
		if may[beta][res] {
			t.Errorf("both pipelines may invoke %s", res)
		}
	}
}

// citeDynamoDBActions is where DynamoDB's actions and resource types are
// listed: an index is its own resource, table/NAME/index/INDEX.
const citeDynamoDBActions = "Service Authorization Reference, Actions, resources, and condition keys for Amazon DynamoDB; " +
	"https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html"

// ledgerFlows: the observer writes the ledger and nothing else of
// DynamoDB; it reads only the item it merges into (GetItem), never scans
// or queries; the poller's reconciling pass reads the open jobs (the
// index) and records jobs like the observer, nothing else; the submission
// function only reads it (callers reach the ledger through its
// authorization); no execution role and no declared submitter reads the
// table directly.
func ledgerFlows(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	table := d.attr(t, "AWS::DynamoDB::Table", "Ledger", "Arn")
	index := table + "/index/" + ledger.IndexByEnd
	otherTable := arn("dynamodb", "table/some-other-table")
	observer := d.roleARN(t, "MonitorObserverServiceRole")
	poller := d.roleARN(t, "MonitorPollerServiceRole")
	submitter := d.roleARN(t, "SubmitterServiceRole")
	execRole := d.teamRoleARN(t, s.platform.Teams[0].Name)
	out := []iamRequest{
		{name: "the observer records a job in the ledger", principal: observer, action: "dynamodb:PutItem", resource: table, want: allowed, cite: citeDynamoDBActions},
		{name: "the observer reads the item it merges into", principal: observer, action: "dynamodb:GetItem", resource: table, want: allowed, cite: citeDynamoDBActions},
		{name: "the observer cannot write another table", principal: observer, action: "dynamodb:PutItem", resource: otherTable, want: denied, cite: citeEvaluation},
		{name: "the observer cannot delete ledger items", principal: observer, action: "dynamodb:DeleteItem", resource: table, want: denied, cite: citeEvaluation},
		{name: "the observer cannot scan the ledger", principal: observer, action: "dynamodb:Scan", resource: table, want: denied, cite: citeEvaluation},
		{name: "the observer cannot query the ledger's index", principal: observer, action: "dynamodb:Query", resource: index, want: denied, cite: citeEvaluation},
		{name: "the observer cannot delete the ledger", principal: observer, action: "dynamodb:DeleteTable", resource: table, want: denied, cite: citeEvaluation},
		{name: "the submission function reads the ledger's index", principal: submitter, action: "dynamodb:Query", resource: index, want: allowed, cite: citeDynamoDBActions},
		{name: "the submission function reads a ledger item", principal: submitter, action: "dynamodb:GetItem", resource: table, want: allowed, cite: citeDynamoDBActions},
		{name: "the submission function cannot write the ledger", principal: submitter, action: "dynamodb:PutItem", resource: table, want: denied, cite: citeEvaluation},
		{name: "the submission function cannot scan the ledger", principal: submitter, action: "dynamodb:Scan", resource: table, want: denied, cite: citeEvaluation},
		// It reads items by key and jobs by the index; it needs no query
		// of the table itself.
		{name: "the submission function cannot query the ledger's table, only its index", principal: submitter, action: "dynamodb:Query", resource: table, want: denied, cite: citeEvaluation},
		// Budgets: a submission reads its team's usage by the ledger's
		// index (the days of the budgets' windows) and nothing beyond the
		// ledger; it can neither change nor remove what it reads.
		{name: "the submission function reads a budget's window of jobs (the index)", principal: submitter, action: "dynamodb:Query", resource: index, want: allowed, cite: citeDynamoDBActions},
		{name: "the submission function cannot read another table", principal: submitter, action: "dynamodb:Query", resource: otherTable, want: denied, cite: citeEvaluation},
		{name: "the submission function cannot read another table's index", principal: submitter, action: "dynamodb:Query", resource: otherTable + "/index/" + ledger.IndexByEnd, want: denied, cite: citeEvaluation},
		{name: "the submission function cannot update ledger items", principal: submitter, action: "dynamodb:UpdateItem", resource: table, want: denied, cite: citeEvaluation},
		{name: "the submission function cannot delete ledger items", principal: submitter, action: "dynamodb:DeleteItem", resource: table, want: denied, cite: citeEvaluation},
		{name: "the submission function cannot export the ledger", principal: submitter, action: "dynamodb:ExportTableToPointInTime", resource: table, want: denied, cite: citeEvaluation},
		// The poller's reconciling pass reads the open jobs and records
		// what DescribeServiceJob says, by the observer's merge.
		{name: "the poller's reconciling pass reads the open jobs", principal: poller, action: "dynamodb:Query", resource: index, want: allowed, cite: citeDynamoDBActions},
		{name: "the poller's reconciling pass records a job", principal: poller, action: "dynamodb:PutItem", resource: table, want: allowed, cite: citeDynamoDBActions},
		// The budget pass reads the jobs of the budgets' windows by the
		// same index, and needs nothing more.
		{name: "the poller's budget pass reads a budget's window of jobs (the index)", principal: poller, action: "dynamodb:Query", resource: index, want: allowed, cite: citeDynamoDBActions},
		{name: "the poller cannot read another table", principal: poller, action: "dynamodb:Query", resource: otherTable, want: denied, cite: citeEvaluation},
		{name: "the poller cannot scan the ledger", principal: poller, action: "dynamodb:Scan", resource: table, want: denied, cite: citeEvaluation},
		{name: "the poller cannot query the ledger's table", principal: poller, action: "dynamodb:Query", resource: table, want: denied, cite: citeEvaluation},
		{name: "the poller cannot delete ledger items", principal: poller, action: "dynamodb:DeleteItem", resource: table, want: denied, cite: citeEvaluation},
		{name: "the poller cannot write another table", principal: poller, action: "dynamodb:PutItem", resource: otherTable, want: denied, cite: citeEvaluation},
		{name: "a job's execution role cannot read the ledger", principal: execRole, action: "dynamodb:Query", resource: index, want: denied, cite: citeEvaluation},
		{name: "a job's execution role cannot write the ledger", principal: execRole, action: "dynamodb:PutItem", resource: table, want: denied, cite: citeEvaluation},
	}
	for _, sub := range s.platform.Submission.Submitters {
		out = append(out,
			iamRequest{name: "the declared submitter " + sub.RoleARN + " cannot read the ledger directly", principal: sub.RoleARN, action: "dynamodb:Query", resource: index, want: denied, cite: citeEvaluation},
			iamRequest{name: "the declared submitter " + sub.RoleARN + " cannot get a ledger item directly", principal: sub.RoleARN, action: "dynamodb:GetItem", resource: table, want: denied, cite: citeEvaluation})
	}
	return out
}

// ledgerIsKept: the ledger survives the stack (DeletionPolicy and
// UpdateReplacePolicy Retain, deletion protection) and a bad write
// (point-in-time recovery), is encrypted with KMS, and expires items by
// their expiresAt (AWS::DynamoDB::Table in the CloudFormation reference).
func ledgerIsKept(t *testing.T, d *deployed) {
	t.Helper()
	var ids []string
	for id := range d.res {
		if d.typeOf(id) == "AWS::DynamoDB::Table" {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("want one DynamoDB table (the ledger), found %v", ids)
	}
	r, p := d.res[ids[0]], d.props(ids[0])
	checks := []struct {
		what      string
		got, want any
	}{
		{"DeletionPolicy", r["DeletionPolicy"], "Retain"},
		{"UpdateReplacePolicy", r["UpdateReplacePolicy"], "Retain"},
		{"DeletionProtectionEnabled", p["DeletionProtectionEnabled"], true},
		{"PointInTimeRecoveryEnabled", get(p["PointInTimeRecoverySpecification"], "PointInTimeRecoveryEnabled"), true},
		{"SSEEnabled", get(p["SSESpecification"], "SSEEnabled"), true},
		{"TimeToLive.AttributeName", get(p["TimeToLiveSpecification"], "AttributeName"), ledger.AttrExpiresAt},
		{"TimeToLive.Enabled", get(p["TimeToLiveSpecification"], "Enabled"), true},
		{"BillingMode", p["BillingMode"], "PAY_PER_REQUEST"},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("ledger table %s: %v, want %v", c.what, c.got, c.want)
		}
	}
}
