package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/google/go-cmp/cmp"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// rerouterFlows are the requests about the re-router (on a platform whose
// classes reroute): it reads its queue and jobs, moves its platform's jobs
// (submit, tag, pass the team's role, terminate the old job) and nothing
// else; and only its schedule invokes it.
func rerouterFlows(t *testing.T, s *synthesized, d *deployed) []iamRequest {
	t.Helper()
	p := s.platform
	if !p.Reroutes() {
		for id := range d.res {
			if d.typeOf(id) == "AWS::Lambda::Function" && strings.HasPrefix(id, "Rerouter") {
				t.Errorf("no class reroutes, yet the stack has the re-router %s", id)
			}
		}
		return nil
	}
	rr := d.roleARN(t, "RerouterServiceRole")
	fn := d.attr(t, "AWS::Lambda::Function", "RerouterFunction", "Arn")
	schedule := d.attr(t, "AWS::Events::Rule", "RerouterSchedule", "Arn")
	pollerSchedule := d.attr(t, "AWS::Events::Rule", "MonitorEveryMinute", "Arn")
	queue := d.attr(t, "AWS::Batch::JobQueue", "Queue", "JobQueueArn")
	otherQueue := arn("batch", "job-queue/someone-elses-queue")
	submitterFn := d.attr(t, "AWS::Lambda::Function", "SubmitterFunction", "Arn")
	submitter := d.roleARN(t, "SubmitterServiceRole")
	rrLogs := d.attr(t, "AWS::Logs::LogGroup", "RerouterLogs", "")
	artifacts := d.attr(t, "AWS::S3::Bucket", "Artifacts", "Arn")
	job := arn("batch", "service-job/7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f")
	tagged := func(platformName string) map[string]any {
		return map[string]any{"aws:ResourceTag/" + contract.TagPlatform: platformName}
	}
	request := map[string]any{"aws:RequestTag/" + contract.TagPlatform: p.Name}
	toSageMaker := map[string]any{"iam:PassedToService": "sagemaker.amazonaws.com"}
	ruleCtx := func(rule string) map[string]any {
		return map[string]any{"aws:SourceArn": rule, "aws:SourceAccount": testAccount}
	}

	out := []iamRequest{
		// What a run reads.
		{name: "the re-router reads its queue's snapshot", principal: rr, action: "batch:GetJobQueueSnapshot", resource: queue, want: allowed, cite: citeBatchReads},
		{name: "the re-router cannot read another queue's snapshot", principal: rr, action: "batch:GetJobQueueSnapshot", resource: otherQueue, want: denied, cite: citeBatchReads},
		{name: "the re-router lists its queue's jobs", principal: rr, action: "batch:ListServiceJobs", resource: "*", want: allowed, cite: citeBatchReads},
		{name: "the re-router describes a job (its payload, to submit it again)", principal: rr, action: "batch:DescribeServiceJob", resource: "*", want: allowed, cite: citeBatchReads},

		// A move: the same training job submitted again, tagged, then the old one terminated.
		{name: "the re-router submits to its queue", principal: rr, action: "batch:SubmitServiceJob", resource: queue, context: request, want: allowed, cite: citeBatchActions},
		{name: "the re-router creates the service job it submits", principal: rr, action: "batch:SubmitServiceJob", resource: job, context: request, want: allowed, cite: citeBatchActions},
		{name: "the re-router cannot submit to another queue", principal: rr, action: "batch:SubmitServiceJob", resource: otherQueue, context: request, want: denied, cite: citeBatchActions},
		{name: "the re-router cannot submit a job tagged for another platform", principal: rr, action: "batch:SubmitServiceJob", resource: queue, context: map[string]any{"aws:RequestTag/" + contract.TagPlatform: "another-platform"}, want: denied, cite: citeBatchActions},
		{name: "the re-router tags the job it creates (lineage)", principal: rr, action: "batch:TagResource", resource: job, context: submissionTags(p.Name, contract.LineageTags()...), want: allowed, cite: citeBatchActions},
		{name: "the re-router tags its platform's jobs", principal: rr, action: "batch:TagResource", resource: job, context: onJobOf(p.Name, tagRequest(map[string]string{contract.TagPlatform: p.Name, contract.TagMoves: "2"})), want: allowed, cite: citeBatchActions},
		{name: "the re-router cannot tag another platform's job", principal: rr, action: "batch:TagResource", resource: job, context: map[string]any{"aws:RequestTag/" + contract.TagPlatform: p.Name, "aws:ResourceTag/" + contract.TagPlatform: "another-platform"}, want: denied, cite: citeBatchActions},
		{name: "the re-router terminates a job of its platform (the one it moved)", principal: rr, action: "batch:TerminateServiceJob", resource: job, context: tagged(p.Name), want: allowed, cite: citeBatchActions},
		{name: "the re-router cannot terminate another platform's job", principal: rr, action: "batch:TerminateServiceJob", resource: job, context: tagged("another-platform"), want: denied, cite: citeBatchActions},
		{name: "the re-router cannot terminate a job without the platform's tag", principal: rr, action: "batch:TerminateServiceJob", resource: job, want: denied, cite: citeBatchActions},
		{name: "the re-router cannot re-prioritize its platform's jobs (a move keeps the priority)", principal: rr, action: "batch:UpdateServiceJob", resource: job, context: tagged(p.Name), want: denied, cite: citeEvaluation},
		{name: "the re-router cannot re-prioritize another platform's jobs", principal: rr, action: "batch:UpdateServiceJob", resource: job, context: tagged("another-platform"), want: denied, cite: citeEvaluation},
		{name: "the re-router cannot pass the queue's own execution role", principal: rr, action: "iam:PassRole", resource: d.queueRoleARN(t), context: toSageMaker, want: denied, cite: citePassRole},
		{name: "the re-router cannot pass an arbitrary role", principal: rr, action: "iam:PassRole", resource: "arn:aws:iam::" + testAccount + ":role/admin", context: toSageMaker, want: denied, cite: citePassRole},

		// Nothing else.
		{name: "the re-router cannot invoke the submission function", principal: rr, action: "lambda:InvokeFunction", resource: submitterFn, want: denied, cite: citeEvaluation},
		{name: "the re-router cannot read the artifacts", principal: rr, action: "s3:GetObject", resource: artifacts + "/" + p.Teams[0].Name + "/checkpoints/x/step-1.pt", want: denied, cite: citeEvaluation},
		{name: "the re-router cannot cancel ordinary Batch jobs", principal: rr, action: "batch:TerminateJob", resource: arn("batch", "job/0a1b2c3d"), want: denied, cite: citeEvaluation},
		{name: "the re-router writes its own logs", principal: rr, action: "logs:PutLogEvents", resource: arn("logs", "log-group:"+rrLogs+":log-stream:2026/12/01/[$LATEST]0123456789abcdef"), want: allowed, cite: citeLogs},
		{name: "Lambda assumes the re-router's role for this account's function", principal: "lambda.amazonaws.com", action: "sts:AssumeRole", resource: rr, context: map[string]any{"aws:SourceAccount": testAccount}, want: allowed, cite: citeEvaluation},

		// Only its schedule invokes it.
		{name: "the re-router's schedule invokes it", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: fn, context: ruleCtx(schedule), want: allowed, cite: citeEventsLambda},
		{name: "the poller's schedule cannot invoke the re-router", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: fn, context: ruleCtx(pollerSchedule), want: denied, cite: citeEventsLambda},
		{name: "another account's rule cannot invoke the re-router", principal: "events.amazonaws.com", action: "lambda:InvokeFunction", resource: fn, context: map[string]any{"aws:SourceArn": fmt.Sprintf("arn:aws:events:%s:%s:rule/x", testRegion, otherAccount), "aws:SourceAccount": otherAccount}, want: denied, cite: citeEventsLambda},
		{name: "the submission function cannot invoke the re-router", principal: submitter, action: "lambda:InvokeFunction", resource: fn, want: denied, cite: citeEvaluation},
	}
	if p.Scheduling.Mode == platform.ModeQuota {
		out = append(out,
			iamRequest{name: "the re-router cannot submit into a quota share that is no team's", principal: rr, action: "batch:SubmitServiceJob", resource: queue + "/quota-share/not-a-team", context: request, want: denied, cite: citeBatchActions},
			iamRequest{name: "the re-router cannot submit into another queue's quota share", principal: rr, action: "batch:SubmitServiceJob", resource: otherQueue + "/quota-share/" + p.Teams[0].Name, context: request, want: denied, cite: citeBatchActions},
		)
	}
	for _, team := range p.Teams {
		role := d.teamRoleARN(t, team.Name)
		if p.Scheduling.Mode == platform.ModeQuota {
			out = append(out, iamRequest{name: "the re-router submits into team " + team.Name + "'s quota share (the moved job keeps its share)", principal: rr, action: "batch:SubmitServiceJob", resource: queue + "/quota-share/" + team.Name, context: request, want: allowed, cite: citeBatchActions})
		}
		out = append(out,
			iamRequest{name: "the re-router passes team " + team.Name + "'s execution role to SageMaker (the moved job's RoleArn)", principal: rr, action: "iam:PassRole", resource: role, context: toSageMaker, want: allowed, cite: citePassRole},
			iamRequest{name: "the re-router cannot pass team " + team.Name + "'s execution role to EC2", principal: rr, action: "iam:PassRole", resource: role, context: map[string]any{"iam:PassedToService": "ec2.amazonaws.com"}, want: denied, cite: citePassRole},
		)
	}
	// Every submitter of the platform file, whatever its aliases: no
	// invoke permission on the re-router (cross-account ones even with
	// their own account allowing it).
	for _, sub := range p.Submission.Submitters {
		var identity []namedPolicy
		cite := citeLambdaInvoke
		if strings.Split(sub.RoleARN, ":")[4] != testAccount {
			identity, cite = allowAll("lambda:InvokeFunction"), citeCrossAccount
		}
		out = append(out, iamRequest{name: sub.RoleARN + " cannot invoke the re-router", principal: sub.RoleARN, action: "lambda:InvokeFunction", resource: fn, identity: identity, want: denied, cite: cite})
	}
	return out
}

// TestRerouterRunsAloneOnItsSchedule: on the example platform (research and
// sweep reroute) the re-router runs on a rate(N minutes) schedule of the
// platform's rerouting.everyMinutes, one run at a time (reserved
// concurrency 1, a timeout shorter than the period), is not retried, knows
// its queue and, as the submission function, the teams' execution roles
// and the artifacts bucket (its door's facts), logs with the platform's
// retention, and is bundled with the platform file; the stack's alarms
// watch it.
func TestRerouterRunsAloneOnItsSchedule(t *testing.T) {
	s := synth(t, examplePlatform)
	p := s.platform
	every := p.Rerouting.EveryMinutes
	id, fn := s.template.find(t, "AWS::Lambda::Function", "FunctionName", p.RerouterFunctionName())
	queueID, _ := s.template.one(t, "AWS::Batch::JobQueue")
	props := fn.Properties
	if props["ReservedConcurrentExecutions"] != float64(1) {
		t.Errorf("reserved concurrency %v, want 1 (no two runs at once)", props["ReservedConcurrentExecutions"])
	}
	if timeout, _ := props["Timeout"].(float64); timeout <= 0 || timeout >= float64(every*60) {
		t.Errorf("timeout %v s, want less than the schedule's %d s", props["Timeout"], every*60)
	}
	if !jsonEqual(get(props, "Environment.Variables."+contract.EnvJobQueue), getAtt(queueID, "JobQueueArn")) {
		t.Errorf("%s = %v, want the queue's ARN", contract.EnvJobQueue, get(props, "Environment.Variables."+contract.EnvJobQueue))
	}
	// Its door knows what the submission function's knows: the teams'
	// execution roles and the artifacts bucket, the same values.
	_, sub := s.template.find(t, "AWS::Lambda::Function", "FunctionName", p.SubmitFunctionName())
	for _, k := range []string{contract.EnvExecutionRoleARNs, contract.EnvCheckpointBucket} {
		got, want := get(props, "Environment.Variables."+k), get(sub.Properties, "Environment.Variables."+k)
		if want == nil || !jsonEqual(got, want) {
			t.Errorf("%s = %v, want the submission function's %v", k, got, want)
		}
	}
	rate := "rate(1 minute)"
	if every > 1 {
		rate = fmt.Sprintf("rate(%d minutes)", every)
	}
	var scheduled bool
	for _, rid := range s.template.ofType("AWS::Events::Rule") {
		r := s.template.Resources[rid].Properties
		if jsonEqual(get(r, "Targets.0.Arn"), getAtt(id, "Arn")) {
			scheduled = true
			if r["ScheduleExpression"] != rate {
				t.Errorf("schedule %v, want %s", r["ScheduleExpression"], rate)
			}
			if get(r, "Targets.0.RetryPolicy.MaximumRetryAttempts") != float64(0) {
				t.Errorf("schedule target retries %v, want 0 (the next run does the work)", get(r, "Targets.0.RetryPolicy"))
			}
		}
	}
	if !scheduled {
		t.Error("no rule invokes the re-router")
	}
	var noRetry bool
	for _, cid := range s.template.ofType("AWS::Lambda::EventInvokeConfig") {
		c := s.template.Resources[cid].Properties
		if jsonEqual(c["FunctionName"], ref(id)) {
			noRetry = c["MaximumRetryAttempts"] == float64(0)
		}
	}
	if !noRetry {
		t.Error("the re-router's failed or throttled runs are retried; want 0 retries")
	}
	_, logs := s.template.find(t, "AWS::Logs::LogGroup", "LogGroupName", "/aws/lambda/"+p.RerouterFunctionName())
	if logs.Properties["RetentionInDays"] != float64(p.Monitoring.LogRetentionDays) {
		t.Errorf("log retention %v, want %d", logs.Properties["RetentionInDays"], p.Monitoring.LogRetentionDays)
	}
	names := map[string]bool{}
	for _, aid := range s.template.ofType("AWS::CloudWatch::Alarm") {
		names[s.template.Resources[aid].Properties["AlarmName"].(string)] = true
	}
	for _, a := range []string{"rerouter-errors", "rerouter-throttles", "reroutes-refused", "reroute-ran-twice"} {
		if !names[p.Name+"-"+a] {
			t.Errorf("no alarm %s-%s", p.Name, a)
		}
	}
}

// TestARerouterEveryTenMinutesOfAnotherStack: the construct in a stack of
// one's own, run every 10 minutes: rate(10 minutes), a 590 s timeout (ends
// before the next run), throttles counted over 10-minute periods, and the
// refused-moves alarm over the given window and threshold, summing only the
// refusals AWS Batch made.
func TestARerouterEveryTenMinutesOfAnotherStack(t *testing.T) {
	tpl := synthStack(t, func(stack awscdk.Stack) {
		r := tq.NewRerouter(stack, "Rerouter", &tq.RerouterProps{Queue: teamQueue(stack, "a"), Code: placeholderCode(t),
			PlatformProps: reroutingProps(), Rerouting: &platform.Rerouting{EveryMinutes: 10, MaxMovesPerMinute: 5}})
		f := tq.NewAlarmFactory(stack, &tq.AlarmFactoryProps{AlarmNamePrefix: "team-"})
		f.AddRerouterAlarms(r, &tq.RerouterAlarmThresholds{RefusedMoves: 5, RefusedWindowSeconds: 1800})
		if got := r.Classes(); !cmp.Equal(got, []string{"research"}) {
			t.Errorf("classes that move %v, want [research]", got)
		}
		if got := r.Platform().Rerouting; got.EveryMinutes != 10 || got.MaxMovesPerMinute != 5 {
			t.Errorf("bundled bounds %+v, want every 10 minutes, 5 moves a minute", got)
		}
	})
	found := false
	for _, fn := range findResources(tpl, "AWS::Lambda::Function") {
		if get(fn, "Properties.FunctionName") != "trainq-rerouter" {
			continue
		}
		found = true
		if got := get(fn, "Properties.Timeout"); got != float64(590) {
			t.Errorf("timeout %v, want 590 s (10 minutes less 10 s)", got)
		}
	}
	if !found {
		t.Fatal("no function trainq-rerouter")
	}
	for _, rule := range findResources(tpl, "AWS::Events::Rule") {
		if got := get(rule, "Properties.ScheduleExpression"); got != "rate(10 minutes)" {
			t.Errorf("schedule %v, want rate(10 minutes)", got)
		}
	}
	alarms := map[string]any{}
	for _, a := range findResources(tpl, "AWS::CloudWatch::Alarm") {
		alarms[get(a, "Properties.AlarmName").(string)] = a
	}
	throttles := alarms["team-"+tq.AlarmRerouterThrottles]
	if get(throttles, "Properties.Period") != float64(600) || get(throttles, "Properties.EvaluationPeriods") != float64(3) || get(throttles, "Properties.DatapointsToAlarm") != float64(3) {
		t.Errorf("throttles alarm %v, want 3 of 3 periods of 600 s", get(throttles, "Properties"))
	}
	refused := alarms["team-"+tq.AlarmReroutesRefused]
	if get(refused, "Properties.Threshold") != float64(5) || get(refused, "Properties.TreatMissingData") != "notBreaching" {
		t.Errorf("refused-moves alarm %v, want threshold 5, missing data not breaching", get(refused, "Properties"))
	}
	var reasons []string
	for _, q := range asList(get(refused, "Properties.Metrics")) {
		if get(q, "MetricStat.Metric.MetricName") != metrics.ReroutesRefused.Name {
			continue
		}
		if get(q, "MetricStat.Period") != float64(1800) || get(q, "MetricStat.Stat") != "Sum" {
			t.Errorf("refused moves read as %v, want Sum over 1800 s", get(q, "MetricStat"))
		}
		for _, d := range asList(get(q, "MetricStat.Metric.Dimensions")) {
			if get(d, "Name") == metrics.Reason {
				reasons = append(reasons, get(d, "Value").(string))
			}
		}
	}
	if diff := cmp.Diff([]string{metrics.RefusedSubmit, metrics.RefusedTerminate}, reasons); diff != "" {
		t.Errorf("the refused-moves alarm pages on reasons (-want +got):\n%s", diff)
	}
	if _, ok := alarms["team-"+tq.AlarmRerouterErrors]; !ok {
		t.Errorf("no alarm team-%s", tq.AlarmRerouterErrors)
	}
	// One job running twice pages at once: ReroutesRefused with reason
	// BOTH_STARTED, at least 1 in 5 minutes.
	twice := alarms["team-"+tq.AlarmRerouteRanTwice]
	if get(twice, "Properties.Threshold") != float64(1) || get(twice, "Properties.MetricName") != metrics.ReroutesRefused.Name || get(twice, "Properties.Period") != float64(300) {
		t.Errorf("ran-twice alarm %v, want ReroutesRefused >= 1 over 300 s", get(twice, "Properties"))
	}
	var twiceReason any
	for _, d := range asList(get(twice, "Properties.Dimensions")) {
		if get(d, "Name") == metrics.Reason {
			twiceReason = get(d, "Value")
		}
	}
	if twiceReason != metrics.RefusedBothStarted {
		t.Errorf("ran-twice alarm's reason %v, want %s", twiceReason, metrics.RefusedBothStarted)
	}
}
