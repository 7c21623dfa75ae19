package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/jsii-runtime-go"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/stacks"
)

// TestAnotherTeamComposesConstructsInItsOwnStack composes the constructs the
// way another team would: its own queue and quota shares on a pool that the
// platform team deployed and set aside for it, imported by ARN, with
// GrantSubmitServiceJob to its own scheduler's role.
func TestAnotherTeamComposesConstructsInItsOwnStack(t *testing.T) {
	const (
		poolArn = "arn:aws:batch:us-east-1:123456789012:service-environment/vision-gpu-pool"
		roleArn = "arn:aws:iam::123456789012:role/sagemaker-exec"
	)
	var tpl assertions.Template
	mustNotPanic(t, "compose", func() {
		app := awscdk.NewApp(nil)
		stack := awscdk.NewStack(app, jsii.String("VisionTeam"), &awscdk.StackProps{
			Env: &awscdk.Environment{Account: jsii.String("123456789012"), Region: jsii.String("us-east-1")},
		})
		pool := tq.FromCapacityPoolAttributes(stack, "SharedPool", &tq.CapacityPoolAttributes{
			ServiceEnvironmentArn: poolArn,
			InstanceTypes:         []tq.InstanceCapacity{{InstanceType: "ml.p4d.24xlarge", Instances: 8}},
		})
		role := tq.FromExecutionRoleArn(stack, "ExecRole", roleArn)
		queue := tq.NewTrainingQueue(stack, "VisionQueue", &tq.TrainingQueueProps{
			ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}},
			ExecutionRole:       role, JobQueueName: "vision-training",
		})
		queue.AddQuotaShare("Detection", &tq.QuotaShareProps{
			QuotaShareName: "detection",
			Capacity:       []tq.InstanceCapacity{{InstanceType: "ml.p4d.24xlarge", Instances: 8}},
			Strategy:       platform.StrategyLend,
		})
		pipeline := awsiam.NewRole(stack, jsii.String("Pipeline"), &awsiam.RoleProps{
			AssumedBy: awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil),
		})
		queue.GrantSubmitServiceJob(pipeline)
		tpl = assertions.Template_FromStack(stack, nil)
	})

	queues := findResources(tpl, "AWS::Batch::JobQueue")
	var queueID string
	for id, q := range queues {
		queueID = id
		order := get(q, "Properties.ServiceEnvironmentOrder.0.ServiceEnvironment")
		if order != poolArn {
			t.Errorf("queue runs on %v, want the imported pool %s", order, poolArn)
		}
	}
	if len(queues) != 1 {
		t.Fatalf("want one queue, got %d", len(queues))
	}
	if n := len(findResources(tpl, "AWS::Batch::ServiceEnvironment")); n != 0 {
		t.Errorf("the team's stack creates %d service environments; it must reuse the imported pool", n)
	}
	shares := findResources(tpl, "AWS::Batch::QuotaShare")
	if len(shares) != 1 {
		t.Errorf("want the one quota share added, got %d", len(shares))
	}
	for _, s := range shares {
		if got := get(s, "Properties.ResourceSharingConfiguration"); !jsonEqual(got, map[string]any{"Strategy": "LEND"}) {
			t.Errorf("lend share configuration = %v, want LEND without a borrow limit", got)
		}
		if got := get(s, "Properties.JobQueue"); !jsonEqual(got, getAtt(queueID, "JobQueueArn")) {
			t.Errorf("share's queue = %v, want the team's queue", got)
		}
	}

	// GrantSubmitServiceJob, as IAM decides it: SubmitServiceJob on the team's queue
	// and the service jobs it creates, PassRole on the imported role to
	// SageMaker only; nothing else.
	data := []byte(mustJSON(tpl.ToJSON()))
	path := filepath.Join(t.TempDir(), "vision.template.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d := deploy(t, path)
	pipeline := d.roleARN(t, "Pipeline")
	queueArn := arn("batch", "job-queue/vision-training")
	d.decide(t, []iamRequest{
		{name: "the pipeline submits to the team's queue", principal: pipeline, action: "batch:SubmitServiceJob", resource: queueArn, want: allowed, cite: citeBatchActions},
		{name: "the pipeline creates the service job it submits", principal: pipeline, action: "batch:SubmitServiceJob", resource: arn("batch", "service-job/5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10"), want: allowed, cite: citeBatchActions},
		{name: "the pipeline cannot submit to the platform team's queue", principal: pipeline, action: "batch:SubmitServiceJob", resource: arn("batch", "job-queue/trainq-training"), want: denied, cite: citeBatchActions},
		{name: "the pipeline passes the imported execution role to SageMaker", principal: pipeline, action: "iam:PassRole", resource: roleArn, context: map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}, want: allowed, cite: citePassRole},
		{name: "the pipeline cannot pass the execution role to EC2", principal: pipeline, action: "iam:PassRole", resource: roleArn, context: map[string]any{"iam:PassedToService": "ec2.amazonaws.com"}, want: denied, cite: citePassRole},
		{name: "the pipeline cannot cancel jobs", principal: pipeline, action: "batch:TerminateServiceJob", resource: arn("batch", "service-job/5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10"), want: denied, cite: citeEvaluation},
		// Forged lineage: whatever its own policies allow (here batch:* on
		// *), a direct submitter sets no trainq: tag, so no job it submits
		// looks moved by the re-router or tagged by the platform.
		{name: "the pipeline, allowed batch:* on * by its own policy, cannot submit a job carrying the re-router's lineage tags", principal: pipeline, action: "batch:SubmitServiceJob", resource: queueArn, identity: allowActions("own-batch", "batch:*"), context: tagRequest(map[string]string{contract.TagReroutedFrom: "5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10", contract.TagMoves: "1"}), want: explicitlyDenied, cite: citeBatchTagging},
		{name: "the pipeline, allowed batch:* on * by its own policy, cannot tag a job with the re-router's lineage", principal: pipeline, action: "batch:TagResource", resource: arn("batch", "service-job/5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10"), identity: allowActions("own-batch", "batch:*"), context: tagRequest(map[string]string{contract.TagReroutedFrom: "5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10"}), want: explicitlyDenied, cite: citeBatchTagging},
		{name: "the pipeline, allowed batch:* on * by its own policy, cannot tag a job as a platform's", principal: pipeline, action: "batch:TagResource", resource: arn("batch", "service-job/5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10"), identity: allowActions("own-batch", "batch:*"), context: tagRequest(map[string]string{contract.TagPlatform: "trainq"}), want: explicitlyDenied, cite: citeBatchTagging},
		{name: "the pipeline, allowed batch:* on * by its own policy, cannot remove a job's lineage tags", principal: pipeline, action: "batch:UntagResource", resource: arn("batch", "service-job/5f0c3a8e-0b1e-4c9e-9d7b-2f1a6c1e9a10"), identity: allowActions("own-batch", "batch:*"), context: map[string]any{"aws:TagKeys": []any{contract.TagReroutedFrom}}, want: explicitlyDenied, cite: citeBatchTagging},
		{name: "the pipeline still tags its submissions with tags of its own", principal: pipeline, action: "batch:SubmitServiceJob", resource: queueArn, identity: allowActions("own-batch", "batch:*"), context: tagRequest(map[string]string{"project": "detection"}), want: allowed, cite: citeBatchTagging},
	})
	cfnLint(t, "vision-team", data)
}

func TestConstructsRefuseInvalidPropsNamingPropAndValue(t *testing.T) {
	p5 := []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 4}}
	cases := []struct {
		name string
		want []string // substrings of one validation message
		make func(stack awscdk.Stack)
	}{
		{"quota shares on a NUM_INSTANCES pool are refused", []string{"[S/Q]", "trainq.TrainingQueue", "S/Pool limits NUM_INSTANCES", "quota share"}, func(stack awscdk.Stack) {
			pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{TotalInstances: 4})
			tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "R", nil)})
		}},
		{"fair share on a quota-managed pool is refused", []string{"trainq.TrainingQueue", "quota management", "fair share"}, func(stack awscdk.Stack) {
			pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: p5})
			tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{
				ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "R", nil),
				SchedulingPolicy: tq.NewFairSharePolicy(stack, "FS", nil),
			})
		}},
		{"a queue without a service environment is refused", []string{"[S/Q]", "ServiceEnvironments is empty", "AddServiceEnvironment"}, func(stack awscdk.Stack) {
			tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{ExecutionRole: tq.NewExecutionRole(stack, "R", nil)})
		}},
		{"two service environments at one order are refused", []string{"order 1 is given to 2 service environments", "S/A", "S/B", "unique order"}, func(stack awscdk.Stack) {
			q := tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{ExecutionRole: tq.NewExecutionRole(stack, "R", nil),
				SchedulingPolicy: tq.NewFairSharePolicy(stack, "FS", nil)})
			q.AddServiceEnvironment(tq.NewCapacityPool(stack, "A", &tq.CapacityPoolProps{TotalInstances: 4}), 1)
			q.AddServiceEnvironment(tq.NewCapacityPool(stack, "B", &tq.CapacityPoolProps{TotalInstances: 4}), 1)
		}},
		{"a 21st quota share is refused", []string{"has 21 quota shares", "at most 20"}, func(stack awscdk.Stack) {
			pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 40}}})
			q := tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "R", nil)})
			for i := 0; i < 21; i++ {
				q.AddQuotaShare("S"+string(rune('a'+i)), &tq.QuotaShareProps{
					QuotaShareName: "team" + string(rune('a'+i)),
					Capacity:       []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 1}},
				})
			}
		}},
		{"a quota share of a type no pool limits is refused", []string{"Capacity[0].InstanceType is \"ml.g5.12xlarge\"", "want one of ml.p5.48xlarge"}, func(stack awscdk.Stack) {
			pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: p5})
			q := tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "R", nil)})
			q.AddQuotaShare("S", &tq.QuotaShareProps{QuotaShareName: "a", Capacity: []tq.InstanceCapacity{{InstanceType: "ml.g5.12xlarge", Instances: 1}}})
		}},
		{"a borrow limit without lend-and-borrow is refused", []string{"[S/Q/S]", "trainq.QuotaShare", "BorrowLimitPercent is 50", `"reserve"`}, func(stack awscdk.Stack) {
			pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: p5})
			q := tq.NewTrainingQueue(stack, "Q", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: tq.NewExecutionRole(stack, "R", nil)})
			limit := 50
			q.AddQuotaShare("S", &tq.QuotaShareProps{QuotaShareName: "a", Strategy: platform.StrategyReserve, BorrowLimitPercent: &limit,
				Capacity: []tq.InstanceCapacity{{InstanceType: "ml.p5.48xlarge", Instances: 1}}})
		}},
		{"a pool instance type outside ml.* is refused", []string{"[S/Pool]", "trainq.CapacityPool", `"p5.48xlarge"`, "ml.p5.48xlarge"}, func(stack awscdk.Stack) {
			tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: []tq.InstanceCapacity{{InstanceType: "p5.48xlarge", Instances: 4}}})
		}},
		{"a second queue on a quota-managed pool is refused", []string{"[S/Pool]", "serves 2 job queues (S/Q1, S/Q2)", "exactly one job queue"}, func(stack awscdk.Stack) {
			pool := tq.NewCapacityPool(stack, "Pool", &tq.CapacityPoolProps{InstanceTypes: p5})
			role := tq.NewExecutionRole(stack, "R", nil)
			tq.NewTrainingQueue(stack, "Q1", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: role})
			tq.NewTrainingQueue(stack, "Q2", &tq.TrainingQueueProps{ServiceEnvironments: []tq.OrderedServiceEnvironment{{Pool: pool, Order: 1}}, ExecutionRole: role})
		}},
		{"an imported pool ARN that is not a service environment is refused", []string{"ServiceEnvironmentArn is", "job-queue/q", "service-environment/NAME"}, func(stack awscdk.Stack) {
			tq.FromCapacityPoolAttributes(stack, "Pool", &tq.CapacityPoolAttributes{ServiceEnvironmentArn: "arn:aws:batch:us-east-1:123456789012:job-queue/q", InstanceTypes: p5})
		}},
		{"an imported pool without its limits is refused", []string{"trainq.FromCapacityPoolAttributes", "TotalInstances is 0 and InstanceTypes is empty"}, func(stack awscdk.Stack) {
			tq.FromCapacityPoolAttributes(stack, "Pool", &tq.CapacityPoolAttributes{ServiceEnvironmentArn: "arn:aws:batch:us-east-1:123456789012:service-environment/p"})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs := validationMessages(t, func(stack awscdk.Stack) { c.make(stack) })
			if len(msgs) == 0 {
				t.Fatalf("accepted")
			}
			for _, m := range msgs {
				if containsAll(m, c.want) {
					return
				}
			}
			t.Errorf("no message mentions all of %q:\n%s", c.want, strings.Join(msgs, "\n"))
		})
	}
}

// validationMessages builds a stack with make and returns the validation
// errors that synthesis fails with, one per line, each "[path] message".
func validationMessages(t *testing.T, make func(stack awscdk.Stack)) []string {
	t.Helper()
	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("S"), &awscdk.StackProps{
		Env: &awscdk.Environment{Account: jsii.String("123456789012"), Region: jsii.String("us-east-1")},
	})
	if msg := panicMessage(func() { make(stack) }); msg != "" {
		t.Fatalf("constructing panicked instead of failing validation: %s", msg)
	}
	_, err := stacks.Synth(app)
	if err == nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "[") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("synthesis failed without validation messages: %v", err)
	}
	return out
}

func containsAll(s string, subs []string) bool {
	for _, w := range subs {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func panicMessage(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = strings.TrimSpace(strings.ReplaceAll(jsonString(r), "\n", " "))
		}
	}()
	f()
	return ""
}

func jsonString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if e, ok := v.(error); ok {
		return e.Error()
	}
	return mustJSON(v)
}

func jsonEqual(a, b any) bool { return mustJSON(a) == mustJSON(b) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// findResources returns the template's resources of type typ as plain JSON
// values, keyed by logical id.
func findResources(tpl assertions.Template, typ string) map[string]any {
	out := map[string]any{}
	if err := json.Unmarshal([]byte(mustJSON(tpl.FindResources(jsii.String(typ), nil))), &out); err != nil {
		panic(err)
	}
	return out
}
