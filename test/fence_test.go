package test

// The fence against the account's own power users: requests by principals
// of the stack's account whose own policies allow broad actions on "*"
// (PowerUserAccess and the like), and by names and ARNs that only resemble
// the platform's. Each expected decision cites the AWS page it comes from.

import (
	"strings"
	"testing"
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
	for id := range d.res {
		if d.typeOf(id) != "AWS::CloudWatch::Alarm" {
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
