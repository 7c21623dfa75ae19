// Code generated from the CloudFormation registry schemas vendored in
// test/testdata/cfn-schemas (their createOnlyProperties); TestCreateOnlyMatchesTheSchemas
// keeps it in step. DO NOT EDIT by hand: change the schemas and regenerate.

package plan

// createOnly are, per resource type, the properties CloudFormation cannot
// change in place: a new value replaces the resource (JSON pointers into
// the resource, as the registry schemas write them).
var createOnly = map[string][]string{
	"AWS::Batch::JobQueue":                {"/properties/JobQueueName", "/properties/JobQueueType"},
	"AWS::Batch::QuotaShare":              {"/properties/QuotaShareName", "/properties/JobQueue"},
	"AWS::Batch::SchedulingPolicy":        {"/properties/Name"},
	"AWS::Batch::ServiceEnvironment":      {"/properties/ServiceEnvironmentName", "/properties/ServiceEnvironmentType"},
	"AWS::CloudFormation::CustomResource": {"/properties/ServiceToken"},
	"AWS::CloudWatch::Alarm":              {"/properties/AlarmName"},
	"AWS::CloudWatch::Dashboard":          {"/properties/DashboardName"},
	"AWS::DynamoDB::Table":                {"/properties/TableName", "/properties/ImportSourceSpecification"},
	"AWS::Events::Rule":                   {"/properties/Name"},
	"AWS::IAM::Policy":                    {},
	"AWS::IAM::Role":                      {"/properties/Path", "/properties/RoleName"},
	"AWS::KMS::Alias":                     {"/properties/AliasName"},
	"AWS::KMS::Key":                       {},
	"AWS::Lambda::Alias":                  {"/properties/Name", "/properties/FunctionName"},
	"AWS::Lambda::EventInvokeConfig":      {"/properties/FunctionName", "/properties/Qualifier"},
	"AWS::Lambda::Function":               {"/properties/FunctionName", "/properties/PackageType", "/properties/TenancyConfig"},
	"AWS::Lambda::Permission":             {"/properties/FunctionName", "/properties/FunctionUrlAuthType", "/properties/InvokedViaFunctionUrl", "/properties/SourceAccount", "/properties/SourceArn", "/properties/Principal", "/properties/PrincipalOrgID", "/properties/Action", "/properties/EventSourceToken"},
	"AWS::Lambda::Version":                {"/properties/FunctionName", "/properties/Description", "/properties/CodeSha256", "/properties/ProvisionedConcurrencyConfig", "/properties/RuntimePolicy"},
	"AWS::Logs::LogGroup":                 {"/properties/LogGroupName"},
	"AWS::S3::Bucket":                     {"/properties/BucketName", "/properties/BucketNamePrefix", "/properties/BucketNamespace"},
	"AWS::S3::BucketPolicy":               {"/properties/Bucket"},
	"AWS::Scheduler::Schedule":            {"/properties/Name"},
	"AWS::SNS::Subscription":              {"/properties/Endpoint", "/properties/Protocol", "/properties/TopicArn"},
	"AWS::SNS::Topic":                     {"/properties/TopicName", "/properties/FifoTopic"},
	"AWS::SNS::TopicPolicy":               {},
	"AWS::SQS::Queue":                     {"/properties/FifoQueue", "/properties/QueueName"},
	"AWS::SQS::QueuePolicy":               {},
}
