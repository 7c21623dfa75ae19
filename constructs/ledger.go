package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/ledger"
)

// LedgerProps configure a Ledger.
type LedgerProps struct {
	// TableName names the table. Default: a name CloudFormation generates
	// (the table is kept on stack deletion, so a fixed name would stop the
	// stack from being created again while the old table exists).
	TableName string
}

// Ledger is trainq's job ledger: one DynamoDB table, one item per AWS
// Batch service job (package ledger's shape: key jobId, index byEnd, time
// to live expiresAt), written by the observer and read by the submission
// function. It is on-demand, encrypted with an AWS-managed key, has
// point-in-time recovery and deletion protection, and is retained when its
// stack is deleted: a month of jobs outlives `cdk destroy`.
type Ledger interface {
	constructs.Construct
	// Table is the ledger's DynamoDB table.
	Table() awsdynamodb.Table
	// GrantRecord lets grantee record jobs: dynamodb:GetItem and
	// dynamodb:PutItem on the table, nothing else (a read-merge-write
	// conditional on the item's revision; package ledger's Store.Record).
	GrantRecord(grantee awsiam.IGrantable) awsiam.Grant
	// GrantRead lets grantee read jobs: dynamodb:GetItem on the table
	// (Store.Get) and dynamodb:Query on its byEnd index (Store.Jobs),
	// nothing else.
	GrantRead(grantee awsiam.IGrantable) awsiam.Grant
	// GrantReconcile lets grantee complete open jobs from AWS Batch (the
	// reconciling pass, package reconcile): dynamodb:Query on the byEnd
	// index (its open jobs), and dynamodb:GetItem and dynamodb:PutItem on
	// the table (Store.Record); no scan, no delete.
	GrantReconcile(grantee awsiam.IGrantable) awsiam.Grant
}

type ledgerTable struct {
	constructs.Construct
	table awsdynamodb.Table
}

// NewLedger creates the ledger's table.
func NewLedger(scope constructs.Construct, id string, props *LedgerProps) Ledger {
	if props == nil {
		props = &LedgerProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	tp := &awsdynamodb.TableProps{
		PartitionKey:        &awsdynamodb.Attribute{Name: jsii.String(ledger.KeyJobID), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:         awsdynamodb.BillingMode_PAY_PER_REQUEST,
		Encryption:          awsdynamodb.TableEncryption_AWS_MANAGED,
		TimeToLiveAttribute: jsii.String(ledger.AttrExpiresAt),
		DeletionProtection:  jsii.Bool(true),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	}
	if props.TableName != "" {
		tp.TableName = jsii.String(props.TableName)
	}
	t := awsdynamodb.NewTable(c, jsii.String("Table"), tp)
	t.AddGlobalSecondaryIndex(&awsdynamodb.GlobalSecondaryIndexProps{
		IndexName:      jsii.String(ledger.IndexByEnd),
		PartitionKey:   &awsdynamodb.Attribute{Name: jsii.String(ledger.KeyEndDay), Type: awsdynamodb.AttributeType_STRING},
		SortKey:        &awsdynamodb.Attribute{Name: jsii.String(ledger.KeyJobID), Type: awsdynamodb.AttributeType_STRING},
		ProjectionType: awsdynamodb.ProjectionType_ALL,
	})
	return &ledgerTable{Construct: c, table: t}
}

func (l *ledgerTable) Table() awsdynamodb.Table { return l.table }

// grant adds actions on resources to grantee's policy. The table's own
// Grant would add every index (TABLE/index/*), which GrantRecord must not.
func (l *ledgerTable) grant(grantee awsiam.IGrantable, resources []*string, actions ...string) awsiam.Grant {
	return awsiam.Grant_AddToPrincipal(&awsiam.GrantOnPrincipalOptions{
		Grantee: grantee, Actions: jsii.Strings(actions...), ResourceArns: &resources,
	})
}

func (l *ledgerTable) GrantRecord(grantee awsiam.IGrantable) awsiam.Grant {
	return l.grant(grantee, []*string{l.table.TableArn()}, "dynamodb:GetItem", "dynamodb:PutItem")
}

func (l *ledgerTable) GrantReconcile(grantee awsiam.IGrantable) awsiam.Grant {
	l.grant(grantee, []*string{l.index()}, "dynamodb:Query")
	return l.GrantRecord(grantee)
}

func (l *ledgerTable) index() *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{l.table.TableArn(), jsii.String("/index/" + ledger.IndexByEnd)})
}

func (l *ledgerTable) GrantRead(grantee awsiam.IGrantable) awsiam.Grant {
	l.grant(grantee, []*string{l.index()}, "dynamodb:Query")
	return l.grant(grantee, []*string{l.table.TableArn()}, "dynamodb:GetItem")
}
