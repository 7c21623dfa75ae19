package constructs

import (
	"sort"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"
)

// AlarmTopicProps configure an AlarmTopic.
type AlarmTopicProps struct {
	// DisplayName is the topic's display name, the sender of its e-mails.
	// Default: "trainq alarms".
	DisplayName string
	// Emails are subscribed to the topic. Default: none (subscribe
	// yourself).
	Emails []string
}

// AlarmTopic is trainq's alarm topic: an SNS topic encrypted with a
// rotating customer-managed key, TLS-only, that exactly the alarms whose
// actions are its Actions() may publish to — by their ARNs, not a name
// pattern — and nothing else: no other principal may publish, and the
// account's IAM policies may administer the key but not encrypt or decrypt
// with it.
type AlarmTopic interface {
	constructs.Construct
	// Topic is the SNS topic.
	Topic() awssns.Topic
	// Key is the topic's KMS key.
	Key() awskms.Key
	// Actions notify the topic, for an AlarmFactory (AlarmFactoryProps.Actions):
	// every alarm given these actions is allowed to publish, by its ARN. An
	// alarm that notifies the topic otherwise (NotifyTopic(Topic()), or an
	// SnsAction of your own) is not allowed and its notifications are lost.
	Actions() IAlarmActionStrategy
}

type alarmTopic struct {
	constructs.Construct
	topic   awssns.Topic
	key     awskms.Key
	actions IAlarmActionStrategy
}

// NewAlarmTopic creates an alarm topic and its key.
func NewAlarmTopic(scope constructs.Construct, id string, props *AlarmTopicProps) AlarmTopic {
	if props == nil {
		props = &AlarmTopicProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	topic, key, actions := newAlarmTopic(c, "Key", "Topic", "", props)
	return &alarmTopic{Construct: c, topic: topic, key: key, actions: actions}
}

func (t *alarmTopic) Topic() awssns.Topic           { return t.topic }
func (t *alarmTopic) Key() awskms.Key               { return t.key }
func (t *alarmTopic) Actions() IAlarmActionStrategy { return t.actions }

// keyAdministration are the key policy's actions for the account's IAM
// policies: managing the key (describe, enable, disable, rotate, tag, alias,
// edit its policy, schedule its deletion), never using it (no Encrypt,
// Decrypt, GenerateDataKey*, ReEncrypt*, nor CreateGrant, which would let a
// principal grant itself that use). The KMS developer guide's default key
// policy gives the account kms:*, which lets any role whose own policy
// allows kms:GenerateDataKey* on * encrypt with the key, and so publish to
// the topic ("Default key policy"; "Allows key administrators to administer
// the KMS key").
func keyAdministration() []string {
	return []string{
		"kms:CancelKeyDeletion", "kms:CreateAlias", "kms:DeleteAlias", "kms:DescribeKey",
		"kms:DisableKey", "kms:DisableKeyRotation", "kms:EnableKey", "kms:EnableKeyRotation",
		"kms:GetKeyPolicy", "kms:GetKeyRotationStatus", "kms:ListAliases", "kms:ListGrants",
		"kms:ListKeyPolicies", "kms:ListKeyRotations", "kms:ListResourceTags", "kms:PutKeyPolicy",
		"kms:RevokeGrant", "kms:RotateKeyOnDemand", "kms:ScheduleKeyDeletion", "kms:TagResource",
		"kms:UntagResource", "kms:UpdateAlias", "kms:UpdateKeyDescription",
	}
}

// publishers are the names of the alarms allowed to publish to one topic:
// those whose actions are the topic's (topicActions).
type publishers struct {
	stack awscdk.Stack
	names map[string]bool
}

// Produce is the ARNs of the alarms, sorted, when the template is written
// (awscdk.Lazy_List): alarms added after the topic are allowed too.
func (p *publishers) Produce() *[]*string {
	names := make([]string, 0, len(p.names))
	for n := range p.names {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		// No alarm notifies the topic (a severity without alarms): the
		// ARN of an empty name, which no alarm has, so nothing may publish.
		names = []string{""}
	}
	out := make([]*string, len(names))
	for i, n := range names {
		out[i] = alarmArn(p.stack, n)
	}
	return &out
}

// alarmArn is the ARN of the alarm name in stack's account and region.
func alarmArn(stack awscdk.Stack, name string) *string {
	return stack.FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("cloudwatch"), Resource: jsii.String("alarm"), ResourceName: jsii.String(name),
		ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
}

// topicActions notify a trainq alarm topic and allow the alarm to publish.
type topicActions struct {
	topic awssns.ITopic
	allow *publishers
}

func (a topicActions) AddActions(alarm awscloudwatch.Alarm) {
	NotifyTopic(a.topic).AddActions(alarm)
	cfn, ok := alarm.Node().DefaultChild().(awscloudwatch.CfnAlarm)
	if !ok || cfn.AlarmName() == nil || isToken(*cfn.AlarmName()) {
		addError(alarm, "trainq.AlarmTopic: alarm %s has no AlarmName of its own; the topic allows alarms by name, so give it one (AlarmFactory.AddAlarm does)", *alarm.Node().Path())
		return
	}
	a.allow.names[*cfn.AlarmName()] = true
}

// newAlarmTopic creates the topic and its key in scope, with ids keyID and
// topicID (the Monitor keeps its released ids "AlarmKey" and "AlarmTopic",
// and its key's description), and the actions that notify it.
// A topic policy replaces SNS's default one, so the topic allows CloudWatch
// to publish itself, and the key lets CloudWatch encrypt the notifications:
// both only for this account's alarms given the returned actions, each by
// its ARN (aws:SourceAccount, aws:SourceArn), as the CloudWatch user guide
// ("Using Amazon SNS topics for alarm actions") and the SNS developer guide
// ("Enable compatibility between event sources from AWS services and
// encrypted topics") describe. The topic denies sns:Publish to every
// principal that is not an AWS service (aws:PrincipalIsAWSService), and the
// key's statement for the account is keyAdministration only: a role of the
// account whose own policy allows sns:Publish and kms:* on * can neither
// publish nor encrypt a notification.
func newAlarmTopic(scope constructs.Construct, keyID, topicID, keyDescription string, props *AlarmTopicProps) (awssns.Topic, awskms.Key, IAlarmActionStrategy) {
	display := props.DisplayName
	if display == "" {
		display = "trainq alarms"
	}
	if keyDescription == "" {
		keyDescription = "Encrypts the alarm topic \"" + display + "\""
	}
	stack := awscdk.Stack_Of(scope)
	allow := &publishers{stack: stack, names: map[string]bool{}}
	fromAlarms := &map[string]interface{}{
		"StringEquals": map[string]interface{}{"aws:SourceAccount": stack.Account()},
		"ArnEquals":    map[string]interface{}{"aws:SourceArn": awscdk.Lazy_List(allow, &awscdk.LazyListValueOptions{OmitEmpty: jsii.Bool(false)})},
	}
	policy := awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &[]awsiam.PolicyStatement{
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:        jsii.String("AccountAdministersKey"),
			Principals: &[]awsiam.IPrincipal{awsiam.NewAccountRootPrincipal()},
			Actions:    jsii.Strings(keyAdministration()...),
			Resources:  jsii.Strings("*"),
		}),
		awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:        jsii.String("CloudWatchAlarmsEncrypt"),
			Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
			Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
			Resources:  jsii.Strings("*"),
			Conditions: fromAlarms,
		}),
	}})
	key := awskms.NewKey(scope, jsii.String(keyID), &awskms.KeyProps{
		Description:       jsii.String(keyDescription),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		Policy:            policy,
	})
	topic := awssns.NewTopic(scope, jsii.String(topicID), &awssns.TopicProps{
		DisplayName: jsii.String(display),
		MasterKey:   key,
		EnforceSSL:  jsii.Bool(true),
	})
	topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsPublish"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("sns:Publish"),
		Resources:  &[]*string{topic.TopicArn()},
		Conditions: fromAlarms,
	}))
	topic.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("OnlyAlarmsPublish"),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewAnyPrincipal()},
		Actions:    jsii.Strings("sns:Publish"),
		Resources:  &[]*string{topic.TopicArn()},
		Conditions: &map[string]interface{}{"Bool": map[string]interface{}{"aws:PrincipalIsAWSService": "false"}},
	}))
	for _, email := range props.Emails {
		topic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(email), nil))
	}
	cdknag.NagSuppressions_AddResourceSuppressions(key, &[]*cdknag.NagPackSuppression{
		{
			Id:        jsii.String("AwsSolutions-IAM5"),
			AppliesTo: &[]interface{}{"Resource::*"},
			Reason:    jsii.String("In a key policy, Resource * means this key only."),
		},
		{
			Id:        jsii.String("AwsSolutions-IAM5"),
			AppliesTo: &[]interface{}{"Action::kms:GenerateDataKey*"},
			Reason:    jsii.String("kms:GenerateDataKey* is the action family the SNS developer guide names for services publishing to encrypted topics; it is allowed to this platform's alarms only, each by its ARN."),
		},
	}, jsii.Bool(false))
	return topic, key, topicActions{topic: topic, allow: allow}
}
