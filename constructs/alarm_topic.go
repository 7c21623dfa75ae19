package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/trainq/trainq/platform"
)

// AlarmTopicProps configure an AlarmTopic.
type AlarmTopicProps struct {
	// AlarmNamePrefix is the start of the names of the alarms that may
	// publish (the AlarmFactory's prefix). Default: "trainq-".
	AlarmNamePrefix string
	// DisplayName is the topic's display name, the sender of its e-mails.
	// Default: "trainq alarms".
	DisplayName string
	// Emails are subscribed to the topic. Default: none (subscribe
	// yourself).
	Emails []string
}

// AlarmTopic is trainq's alarm topic: an SNS topic encrypted with a
// rotating customer-managed key, TLS-only, that exactly the alarms of one
// name prefix in this account may publish to.
type AlarmTopic interface {
	constructs.Construct
	// Topic is the SNS topic.
	Topic() awssns.Topic
	// Key is the topic's KMS key.
	Key() awskms.Key
	// Actions notify the topic (NotifyTopic), for an AlarmFactory.
	Actions() IAlarmActionStrategy
}

type alarmTopic struct {
	constructs.Construct
	topic awssns.Topic
	key   awskms.Key
}

// NewAlarmTopic creates an alarm topic and its key.
func NewAlarmTopic(scope constructs.Construct, id string, props *AlarmTopicProps) AlarmTopic {
	if props == nil {
		props = &AlarmTopicProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	topic, key := newAlarmTopic(c, "Key", "Topic", "", props)
	return &alarmTopic{Construct: c, topic: topic, key: key}
}

func (t *alarmTopic) Topic() awssns.Topic           { return t.topic }
func (t *alarmTopic) Key() awskms.Key               { return t.key }
func (t *alarmTopic) Actions() IAlarmActionStrategy { return NotifyTopic(t.topic) }

// newAlarmTopic creates the topic and its key in scope, with ids keyID and
// topicID (the Monitor keeps its released ids "AlarmKey" and "AlarmTopic",
// and its key's description).
// A topic policy replaces SNS's default one, so the topic allows CloudWatch
// to publish itself, and the key lets CloudWatch encrypt the notifications:
// both only for this account's alarms of the prefix (aws:SourceAccount,
// aws:SourceArn), as the CloudWatch user guide ("Using Amazon SNS topics for
// alarm actions") and the SNS developer guide ("Enable compatibility between
// event sources from AWS services and encrypted topics") describe.
func newAlarmTopic(scope constructs.Construct, keyID, topicID, keyDescription string, props *AlarmTopicProps) (awssns.Topic, awskms.Key) {
	prefix := props.AlarmNamePrefix
	if prefix == "" {
		prefix = platform.DefaultName + "-"
	}
	display := props.DisplayName
	if display == "" {
		display = "trainq alarms"
	}
	if keyDescription == "" {
		keyDescription = "Encrypts the alarm topic \"" + display + "\""
	}
	stack := awscdk.Stack_Of(scope)
	fromAlarms := &map[string]interface{}{
		"StringEquals": map[string]interface{}{"aws:SourceAccount": stack.Account()},
		"ArnLike": map[string]interface{}{"aws:SourceArn": stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("cloudwatch"), Resource: jsii.String("alarm"), ResourceName: jsii.String(prefix + "*"),
			ArnFormat: awscdk.ArnFormat_COLON_RESOURCE_NAME,
		})},
	}
	key := awskms.NewKey(scope, jsii.String(keyID), &awskms.KeyProps{
		Description:       jsii.String(keyDescription),
		EnableKeyRotation: jsii.Bool(true),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
	})
	key.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("CloudWatchAlarmsEncrypt"),
		Principals: &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("cloudwatch.amazonaws.com"), nil)},
		Actions:    jsii.Strings("kms:Decrypt", "kms:GenerateDataKey*"),
		Resources:  jsii.Strings("*"),
		Conditions: fromAlarms,
	}), nil)
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
			Reason:    jsii.String("kms:GenerateDataKey* is the action family the SNS developer guide names for services publishing to encrypted topics; it is allowed to this platform's alarms only."),
		},
	}, jsii.Bool(false))
	return topic, key
}
