package test

// The fence against the account's own power users: requests by principals
// of the stack's account whose own policies allow broad actions on "*"
// (PowerUserAccess and the like), and by names and ARNs that only resemble
// the platform's. Each expected decision cites the AWS page it comes from.

import (
	"slices"
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// powerUser is a role of the stack's account that the stack does not own,
// whose own policy allows every action below on every resource.
const powerUser = "arn:aws:iam::" + testAccount + ":role/power-user"

// AWS pages the fence's decisions come from.
const (
	citeKeyPolicy = "KMS developer guide, Key policies: unless the key policy explicitly allows it, IAM policies cannot allow access to a KMS key; " +
		"https://docs.aws.amazon.com/kms/latest/developerguide/key-policies.html"
	citeSNSPublisherKey = "SNS developer guide, Key management: a publisher to an encrypted topic needs kms:GenerateDataKey* and kms:Decrypt on its key; " +
		"https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html"
	citeBatchTagging = "Service Authorization Reference, AWS Batch: batch:TagResource takes aws:RequestTag and aws:TagKeys, a service job aws:ResourceTag, and no key tells tagging at creation from tagging an existing job; IAM user guide, aws:TagKeys with ForAllValues/ForAnyValue and the Null operator; " +
		"https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsbatch.html, https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-tagkeys"
	citeLogStreams = "Service Authorization Reference, CloudWatch Logs: CreateLogStream and PutLogEvents act on log-stream ARNs (…:log-group:NAME:log-stream:STREAM), DescribeLogStreams on the log group only; SageMaker names a training job's streams after the job, and AWS Batch names each attempt AWSBatch + TrainingJobName + 32 hex digits (AWS Batch user guide, service job events); " +
		"https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatchlogs.html"
	citePutMetricData = "Service Authorization Reference, CloudWatch: PutMetricData has no resource type for metrics and only the cloudwatch:namespace condition key, so IAM cannot tell one job's metrics (dimension Host) from another's; " +
		"https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html"
	citeTrainingTrust = "SageMaker developer guide, Cross-service confused deputy prevention for SageMaker training jobs (aws:SourceArn, the training job's ARN, narrowed to specific training jobs); AWSBatchServiceRolePolicyForSageMaker (Batch creates training jobs named AWSBatch*); " +
		"https://docs.aws.amazon.com/sagemaker/latest/dg/security-confused-deputy-prevention.html#security-confused-deputy-training-job"
	citeBucketDeny = "S3 user guide, Bucket policies and IAM policy evaluation: an explicit Deny in the bucket policy (aws:PrincipalArn) wins over the caller's own allow, also in the bucket's account; " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html#policy-eval-denyallow"
	citeSNSPublishDeny = "IAM user guide, aws:PrincipalIsAWSService (false for every IAM principal) and Policy evaluation logic (an explicit deny in a resource policy wins over an allow in the caller's policy); " +
		"https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalisawsservice"
)

// allowActions is an identity policy allowing actions on "*".
func allowActions(name string, actions ...string) []namedPolicy {
	list := make([]any, len(actions))
	for i, a := range actions {
		list[i] = a
	}
	return []namedPolicy{{name, map[string]any{
		"Version":   "2012-10-17",
		"Statement": []any{map[string]any{"Effect": "Allow", "Action": list, "Resource": "*"}},
	}}}
}

// fenceFlows are the requests of the fence against same-account power users
// and look-alike names.
func fenceFlows(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	var out []iamRequest
	out = append(out, alarmFence(t, s, d)...)
	out = append(out, tagFence(t, s, d)...)
	out = append(out, teamLogFence(t, s, d)...)
	out = append(out, artifactsFence(t, s, d)...)
	return out
}

// alarmFence: the alarm topic and its key accept exactly the platform's
// alarms, by ARN — not a sibling platform's alarm whose name shares the
// prefix, nor a made-up one — and no principal of the account, whatever
// its own policy, may publish or encrypt a notification.
func alarmFence(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	topic := d.attr(t, "AWS::SNS::Topic", "MonitorAlarmTopic", "")
	key := d.attr(t, "AWS::KMS::Key", "MonitorAlarmKey", "Arn")
	alarmARN := func(name string) string { return arn("cloudwatch", "alarm:"+name) }
	for id := range d.res {
		if d.typeOf(id) == "AWS::CloudWatch::Alarm" && strings.HasPrefix(d.name(id), s.platform.Name+"-dev-") {
			t.Fatalf("the platform has an alarm %s, which the test takes for a sibling platform's", d.name(id))
		}
	}
	var out []iamRequest
	for _, name := range []string{s.platform.Name + "-dev-job-failed-production", s.platform.Name + "-fake"} {
		ctx := map[string]any{"aws:SourceArn": alarmARN(name), "aws:SourceAccount": testAccount, "aws:PrincipalIsAWSService": "true"}
		out = append(out,
			iamRequest{name: "the alarm " + name + " of this account, not the platform's, cannot publish to the alarm topic", principal: "cloudwatch.amazonaws.com", action: "sns:Publish", resource: topic, context: ctx, want: denied, cite: citeAlarmSNS},
			iamRequest{name: "the alarm " + name + " of this account, not the platform's, cannot encrypt with the topic's key", principal: "cloudwatch.amazonaws.com", action: "kms:GenerateDataKey", resource: key, context: ctx, want: denied, cite: citeAlarmKMS},
		)
	}
	// Every alarm of the template publishes and encrypts: the set of ARNs is
	// the factory's alarms, whichever method added them.
	topicID := ""
	for id := range d.res {
		if d.typeOf(id) == "AWS::SNS::Topic" && strings.HasPrefix(id, "MonitorAlarmTopic") {
			topicID = id
		}
	}
	for id := range d.res {
		if d.typeOf(id) != "AWS::CloudWatch::Alarm" || !notifies(d.props(id)["AlarmActions"], topicID) {
			continue
		}
		ctx := map[string]any{"aws:SourceArn": d.getAtt(id, "Arn"), "aws:SourceAccount": testAccount, "aws:PrincipalIsAWSService": "true"}
		out = append(out,
			iamRequest{name: "the platform's alarm " + d.name(id) + " publishes to the alarm topic", principal: "cloudwatch.amazonaws.com", action: "sns:Publish", resource: topic, context: ctx, want: allowed, cite: citeAlarmSNS},
			iamRequest{name: "the platform's alarm " + d.name(id) + " encrypts with the topic's key", principal: "cloudwatch.amazonaws.com", action: "kms:GenerateDataKey", resource: key, context: ctx, want: allowed, cite: citeAlarmKMS},
		)
	}
	power := allowActions("power-user-policy", "sns:*", "kms:*")
	out = append(out,
		iamRequest{name: "a role of the account allowed sns:* and kms:* on * cannot publish a fake alarm to the topic", principal: powerUser, action: "sns:Publish", resource: topic, identity: power, context: map[string]any{"aws:PrincipalIsAWSService": "false"}, want: explicitlyDenied, cite: citeSNSPublishDeny},
		iamRequest{name: "a role of the account allowed sns:* and kms:* on * cannot encrypt a notification with the topic's key", principal: powerUser, action: "kms:GenerateDataKey", resource: key, identity: power, want: denied, cite: citeSNSPublisherKey + "; " + citeKeyPolicy},
		iamRequest{name: "a role of the account allowed kms:* on * cannot decrypt with the topic's key", principal: powerUser, action: "kms:Decrypt", resource: key, identity: power, want: denied, cite: citeKeyPolicy},
		iamRequest{name: "a role of the account allowed kms:* on * cannot grant itself the use of the topic's key", principal: powerUser, action: "kms:CreateGrant", resource: key, identity: power, want: denied, cite: citeKeyPolicy},
		iamRequest{name: "the account's key administrators still manage the topic's key (rotation)", principal: powerUser, action: "kms:EnableKeyRotation", resource: key, identity: power, want: allowed, cite: citeKeyPolicy},
		iamRequest{name: "the account's key administrators still manage the topic's key (deletion)", principal: powerUser, action: "kms:ScheduleKeyDeletion", resource: key, identity: power, want: allowed, cite: citeKeyPolicy},
		iamRequest{name: "the account's key administrators still edit the topic's key policy", principal: powerUser, action: "kms:PutKeyPolicy", resource: key, identity: power, want: allowed, cite: citeKeyPolicy},
	)
	return out
}

// tagRequest is the context of a tagging or submission request that sets
// tags: aws:RequestTag for each, and aws:TagKeys.
func tagRequest(tags map[string]string) map[string]any {
	ctx := map[string]any{}
	var keys []any
	for k, v := range tags {
		ctx["aws:RequestTag/"+k] = v
		keys = append(keys, k)
	}
	ctx["aws:TagKeys"] = keys
	return ctx
}

// submissionTags is the context of a submission's tags (contract.Tags, as
// the submission function sets them), with extra keys (lineage, a caller's
// own).
func submissionTags(platformName string, extra ...string) map[string]any {
	tags := map[string]string{contract.TagPlatform: platformName, contract.TagTeam: "search-ranking", contract.TagClass: "research", contract.TagToken: "0a1b2c3d4e5f60718293a4b5c6d7e8f9"}
	for _, k := range extra {
		tags[k] = "1"
	}
	return tagRequest(tags)
}

// onJobOf adds the job's own platform tag (aws:ResourceTag) to ctx.
func onJobOf(platformName string, ctx map[string]any) map[string]any {
	ctx["aws:ResourceTag/"+contract.TagPlatform] = platformName
	return ctx
}

// tagFence: the submission function and the re-router tag a job when they
// submit it, and later only the keys they own on the platform's jobs; they
// cannot adopt a job of the account that carries no platform tag by tagging
// it as theirs (and then cancel, re-prioritize or terminate it), and only
// the re-router sets lineage.
func tagFence(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	p := s.platform
	submitter := d.roleARN(t, "SubmitterServiceRole")
	queue := d.attr(t, "AWS::Batch::JobQueue", "Queue", "JobQueueArn")
	job := arn("batch", "service-job/0e9d8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b")
	reprioritize := map[string]string{contract.TagPlatform: p.Name, contract.TagReprioritizedBy: "arn:aws:iam::" + testAccount + ":role/alpha-pipeline"}
	lineage := map[string]string{contract.TagPlatform: p.Name, contract.TagReroutedFrom: "5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10", contract.TagMoves: "1"}
	out := []iamRequest{
		{name: "the submitter tags the job it submits with a submission's tags (and a caller's own)", principal: submitter, action: "batch:TagResource", resource: job, context: submissionTags(p.Name, "project"), want: allowed, cite: citeBatchTagging},
		{name: "the submitter records who re-prioritized a job of the platform", principal: submitter, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(reprioritize)), want: allowed, cite: citeBatchTagging},
		{name: "the submitter cannot adopt an untagged job of the account with the tags re-prioritizing sets", principal: submitter, action: "batch:TagResource", resource: job, context: tagRequest(reprioritize), want: denied, cite: citeBatchTagging},
		{name: "the submitter cannot adopt an untagged job of the account with the platform's tag alone", principal: submitter, action: "batch:TagResource", resource: job, context: tagRequest(map[string]string{contract.TagPlatform: p.Name}), want: denied, cite: citeBatchTagging},
		{name: "the submitter cannot move a job of the platform to another team", principal: submitter, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(map[string]string{contract.TagPlatform: p.Name, contract.TagTeam: "search-research"})), want: denied, cite: citeBatchTagging},
		{name: "the submitter cannot submit a job carrying lineage tags", principal: submitter, action: "batch:SubmitServiceJob", resource: queue, context: submissionTags(p.Name, contract.TagReroutedFrom), want: explicitlyDenied, cite: citeBatchTagging},
		{name: "the submitter cannot set lineage tags on a job of the platform", principal: submitter, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(lineage)), want: explicitlyDenied, cite: citeBatchTagging},
	}
	if !p.Reroutes() {
		return out
	}
	rr := d.roleARN(t, "RerouterServiceRole")
	return append(out,
		iamRequest{name: "the re-router submits the moved job with its lineage", principal: rr, action: "batch:SubmitServiceJob", resource: queue, context: submissionTags(p.Name, contract.LineageTags()...), want: allowed, cite: citeBatchTagging},
		iamRequest{name: "the re-router tags the moved job with its lineage", principal: rr, action: "batch:TagResource", resource: job, context: submissionTags(p.Name, contract.LineageTags()...), want: allowed, cite: citeBatchTagging},
		iamRequest{name: "the re-router records lineage on a job of the platform", principal: rr, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(lineage)), want: allowed, cite: citeBatchTagging},
		iamRequest{name: "the re-router cannot adopt an untagged job of the account with lineage tags", principal: rr, action: "batch:TagResource", resource: job, context: tagRequest(lineage), want: denied, cite: citeBatchTagging},
		iamRequest{name: "the re-router cannot move a job of the platform to another class", principal: rr, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(map[string]string{contract.TagPlatform: p.Name, contract.TagClass: "production"})), want: denied, cite: citeBatchTagging},
	)
}

// teamLogFence: a team's jobs create and write only their own log streams
// of the SageMaker training log group, list none, and SageMaker assumes a
// team's role only for that team's training jobs that AWS Batch started.
// Metrics: what IAM cannot refuse is asked too, and documented.
func teamLogFence(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	p := s.platform
	group := arn("logs", "log-group:/aws/sagemaker/TrainingJobs")
	attempt := func(team string) string {
		return "AWSBatch" + p.TrainingJobPrefix(team) + "ranker-0a1b2c3d" + "88b610a69aa8380ca5b0a7aba3f81cb8"
	}
	stream := func(job string) string { return group + ":log-stream:" + job + "/algo-1-1764590000" }
	trainingJob := func(name string) string { return arn("sagemaker", "training-job/"+name) }
	var out []iamRequest
	for _, team := range p.Teams {
		role := d.teamRoleARN(t, team.Name)
		own := attempt(team.Name)
		out = append(out,
			iamRequest{name: "team " + team.Name + "'s jobs create their log streams", principal: role, action: "logs:CreateLogStream", resource: stream(own), want: allowed, cite: citeLogStreams},
			iamRequest{name: "team " + team.Name + "'s jobs write their log streams", principal: role, action: "logs:PutLogEvents", resource: stream(own), want: allowed, cite: citeLogStreams},
			iamRequest{name: "team " + team.Name + "'s jobs cannot list the training log group's streams (every team's job names)", principal: role, action: "logs:DescribeLogStreams", resource: group, want: denied, cite: citeLogStreams},
			iamRequest{name: "team " + team.Name + "'s jobs cannot write the log stream of a training job AWS Batch did not start", principal: role, action: "logs:PutLogEvents", resource: stream("my-notebook-job"), want: denied, cite: citeLogStreams},
			iamRequest{name: "SageMaker assumes team " + team.Name + "'s role for its training job", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: role, context: map[string]any{"aws:SourceAccount": testAccount, "aws:SourceArn": trainingJob(own)}, want: allowed, cite: citeTrainingTrust},
			iamRequest{name: "SageMaker assumes team " + team.Name + "'s role for its training job, the ARN lowercased", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: role, context: map[string]any{"aws:SourceAccount": testAccount, "aws:SourceArn": trainingJob(strings.ToLower(own))}, want: allowed, cite: citeTrainingTrust},
			iamRequest{name: "SageMaker cannot assume team " + team.Name + "'s role for a training job of the account that AWS Batch did not start", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: role, context: map[string]any{"aws:SourceAccount": testAccount, "aws:SourceArn": trainingJob(p.TrainingJobPrefix(team.Name) + "ranker")}, want: denied, cite: citeTrainingTrust},
			iamRequest{name: "SageMaker cannot assume team " + team.Name + "'s role for a training job of another account", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: role, context: map[string]any{"aws:SourceAccount": otherAccount, "aws:SourceArn": "arn:aws:sagemaker:" + testRegion + ":" + otherAccount + ":training-job/" + own}, want: denied, cite: citeTrainingTrust},
			// What IAM cannot refuse: SageMaker's training metrics are one
			// namespace, told apart by dimensions, which no condition key
			// reads (docs/security.md says what this means).
			iamRequest{name: "team " + team.Name + "'s jobs may publish SageMaker training metrics of any job (IAM has no key for it)", principal: role, action: "cloudwatch:PutMetricData", resource: "*", context: map[string]any{"cloudwatch:namespace": "/aws/sagemaker/TrainingJobs"}, want: allowed, cite: citePutMetricData},
		)
		for _, other := range p.Teams {
			if other.Name == team.Name {
				continue
			}
			theirs := attempt(other.Name)
			out = append(out,
				iamRequest{name: "team " + team.Name + "'s jobs cannot create a log stream of team " + other.Name + "'s job", principal: role, action: "logs:CreateLogStream", resource: stream(theirs), want: denied, cite: citeLogStreams},
				iamRequest{name: "team " + team.Name + "'s jobs cannot write a log stream of team " + other.Name + "'s job", principal: role, action: "logs:PutLogEvents", resource: stream(theirs), want: denied, cite: citeLogStreams},
				iamRequest{name: "team " + team.Name + "'s jobs cannot write a log stream of team " + other.Name + "'s job, lowercased", principal: role, action: "logs:PutLogEvents", resource: stream(strings.ToLower(theirs)), want: denied, cite: citeLogStreams},
				iamRequest{name: "SageMaker cannot assume team " + team.Name + "'s role for team " + other.Name + "'s training job", principal: "sagemaker.amazonaws.com", action: "sts:AssumeRole", resource: role, context: map[string]any{"aws:SourceAccount": testAccount, "aws:SourceArn": trainingJob(theirs)}, want: denied, cite: citeTrainingTrust},
			)
		}
	}
	return out
}

// artifactsFence: the artifacts bucket's data is the platform's — a team's
// prefix its execution role's and the pipelines granted that team — whatever
// a caller's own policy allows; administering the bucket stays with the
// account's administrators.
func artifactsFence(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	p := s.platform
	artifacts := d.attr(t, "AWS::S3::Bucket", "Artifacts", "Arn")
	s3All := allowActions("own-s3", "s3:*")
	var out []iamRequest
	out = append(out,
		iamRequest{name: "a role of the account allowed s3:* on * cannot list the artifacts bucket", principal: powerUser, action: "s3:ListBucket", resource: artifacts, identity: s3All, context: map[string]any{"s3:prefix": ""}, want: explicitlyDenied, cite: citeBucketDeny},
		iamRequest{name: "a role of the account allowed s3:* on * cannot read an object outside the teams' prefixes", principal: powerUser, action: "s3:GetObject", resource: artifacts + "/shared/readme.txt", identity: s3All, want: explicitlyDenied, cite: citeBucketDeny},
		iamRequest{name: "the account's administrators still manage the artifacts bucket (its policy)", principal: powerUser, action: "s3:PutBucketPolicy", resource: artifacts, identity: s3All, want: allowed, cite: citeEvaluation},
		iamRequest{name: "the account's administrators still manage the artifacts bucket (its lifecycle)", principal: powerUser, action: "s3:PutLifecycleConfiguration", resource: artifacts, identity: s3All, want: allowed, cite: citeEvaluation},
	)
	for _, team := range p.Teams {
		object := artifacts + "/" + platform.ArtifactsPrefix(team.Name) + "models/m.tar.gz"
		out = append(out,
			iamRequest{name: "a role of the account allowed s3:* on * cannot read team " + team.Name + "'s artifacts", principal: powerUser, action: "s3:GetObject", resource: object, identity: s3All, want: explicitlyDenied, cite: citeBucketDeny},
			iamRequest{name: "a role of the account allowed s3:* on * cannot write team " + team.Name + "'s artifacts", principal: powerUser, action: "s3:PutObject", resource: object, identity: s3All, want: explicitlyDenied, cite: citeBucketDeny},
			iamRequest{name: "a role of the account allowed s3:* on * cannot delete team " + team.Name + "'s artifacts", principal: powerUser, action: "s3:DeleteObjectVersion", resource: object, identity: s3All, want: explicitlyDenied, cite: citeBucketDeny},
		)
		for _, other := range p.Teams {
			if other.Name != team.Name {
				out = append(out, iamRequest{name: "team " + other.Name + "'s role, allowed s3:* on * by a policy of its own, cannot read team " + team.Name + "'s artifacts", principal: d.teamRoleARN(t, other.Name), action: "s3:GetObject", resource: object, identity: s3All, want: explicitlyDenied, cite: citeBucketDeny})
			}
		}
		for _, sub := range p.Submission.Submitters {
			if strings.Split(sub.RoleARN, ":")[4] != testAccount {
				continue
			}
			want, verb := explicitlyDenied, "cannot read"
			if slices.Contains(sub.Teams, team.Name) {
				want, verb = allowed, "reads"
			}
			out = append(out, iamRequest{name: sub.RoleARN + ", allowed s3:GetObject by its own policy, " + verb + " team " + team.Name + "'s artifacts", principal: sub.RoleARN, action: "s3:GetObject", resource: object, identity: allowActions("own-s3", "s3:GetObject"), want: want, cite: citeBucketDeny})
		}
	}
	return out
}

// notifies reports whether an alarm's actions name the topic of logical id
// topic (alarms of another severity notify another topic).
func notifies(actions any, topic string) bool {
	for _, r := range refsTo(actions) {
		if r == topic {
			return true
		}
	}
	return false
}
