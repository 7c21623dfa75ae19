package test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
)

const noMonitorPlatform = "testdata/nomonitor.yaml"

// logicalID returns the id of the only resource of typ whose property key
// equals value.
func (tpl template) find(t *testing.T, typ, key string, value any) (string, resource) {
	t.Helper()
	for _, id := range tpl.ofType(typ) {
		if jsonEqual(tpl.Resources[id].Properties[key], value) {
			return id, tpl.Resources[id]
		}
	}
	t.Fatalf("no %s with %s = %v", typ, key, value)
	return "", resource{}
}

func TestJobEventsOfThisQueueOnlyReachTheObserver(t *testing.T) {
	s := synth(t, "")
	queueID, _ := s.template.one(t, "AWS::Batch::JobQueue")
	obsID, _ := s.template.find(t, "AWS::Lambda::Function", "FunctionName", s.platform.ObserverFunctionName())
	var found bool
	for _, id := range s.template.ofType("AWS::Events::Rule") {
		r := s.template.Resources[id].Properties
		if r["EventPattern"] == nil {
			continue
		}
		found = true
		want := map[string]any{
			"source": []any{contract.BatchEventSource},
			// Job state changes, and AWS Batch's signal that the job at the
			// head of the queue blocks it (AWS Batch user guide, "Batch
			// Service Job Queue Blocked events").
			"detail-type": []any{"Batch Service Job State Change", "Batch Service Job Queue Blocked"},
			"detail":      map[string]any{"jobQueue": []any{getAtt(queueID, "JobQueueArn")}},
		}
		if diff := cmp.Diff(want, r["EventPattern"]); diff != "" {
			t.Errorf("event pattern (-want +got):\n%s", diff)
		}
		target := get(r, "Targets.0")
		if !jsonEqual(get(target, "Arn"), getAtt(obsID, "Arn")) {
			t.Errorf("rule target %v, want the observer %s", get(target, "Arn"), obsID)
		}
		if get(target, "DeadLetterConfig.Arn") == nil || get(target, "RetryPolicy.MaximumRetryAttempts") != float64(2) {
			t.Errorf("rule target without a dead-letter queue and 2 retries: %v", target)
		}
	}
	if !found {
		t.Fatal("no rule with an event pattern")
	}
}

func TestPollerRunsEveryMinute(t *testing.T) {
	s := synth(t, "")
	pollID, _ := s.template.find(t, "AWS::Lambda::Function", "FunctionName", s.platform.PollerFunctionName())
	_, rule := s.template.find(t, "AWS::Events::Rule", "ScheduleExpression", "rate(1 minute)")
	if !jsonEqual(get(rule.Properties, "Targets.0.Arn"), getAtt(pollID, "Arn")) {
		t.Errorf("schedule target %v, want the poller", get(rule.Properties, "Targets.0.Arn"))
	}
}

// alarmWant is what an alarm must say, computed from the platform.
type alarmWant struct {
	metric    metrics.Metric
	dims      map[string]string
	stat      string
	period    float64
	threshold float64
	op        string
	periods   float64
}

func TestEveryAlarmWatchesWhatThePlatformSays(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			p, mon := s.platform, s.platform.Monitoring
			q := p.JobQueueName()
			topicID, _ := s.template.one(t, "AWS::SNS::Topic")
			want := map[string]alarmWant{}
			for _, c := range mon.FailureAlarmClasses {
				want[p.Name+"-"+tq.AlarmJobFailed(c)] = alarmWant{metrics.JobsFailed, map[string]string{"Queue": q, "Class": c}, "Sum", 60, 1, "GreaterThanOrEqualToThreshold", 1}
			}
			for _, c := range p.Classes {
				want[p.Name+"-"+tq.AlarmOldestWait(c.Name)] = alarmWant{metrics.OldestRunnableSeconds, map[string]string{"Queue": q, "Class": c.Name}, "Maximum", 60, float64(mon.MaxWaitSeconds[c.Name]), "GreaterThanThreshold", 1}
			}
			want[p.Name+"-"+tq.AlarmEventsRejected] = alarmWant{metrics.EventsRejected, map[string]string{"Queue": q}, "Sum", 300, 1, "GreaterThanOrEqualToThreshold", 1}

			alarms := map[string]map[string]any{}
			for _, id := range s.template.ofType("AWS::CloudWatch::Alarm") {
				props := s.template.Resources[id].Properties
				name := props["AlarmName"].(string)
				alarms[name] = props
				// Every alarm notifies the topic when it fires and when it clears,
				// and treats missing data deliberately.
				for _, k := range []string{"AlarmActions", "OKActions"} {
					if !jsonEqual(props[k], []any{ref(topicID)}) {
						t.Errorf("%s: %s = %v, want the alarm topic", name, k, props[k])
					}
				}
				if props["TreatMissingData"] != "notBreaching" {
					t.Errorf("%s: TreatMissingData = %v, want notBreaching", name, props["TreatMissingData"])
				}
				if d, _ := props["AlarmDescription"].(string); !strings.Contains(d, "Missing data") {
					t.Errorf("%s: description %q does not say how missing data counts", name, d)
				}
			}
			for name, w := range want {
				got, ok := alarms[name]
				if !ok {
					t.Errorf("no alarm %s", name)
					continue
				}
				dims := map[string]string{}
				for _, d := range asList(got["Dimensions"]) {
					dims[get(d, "Name").(string)] = fmt.Sprint(get(d, "Value"))
				}
				gotW := alarmWant{metrics.Metric{}, dims, fmt.Sprint(got["Statistic"]), got["Period"].(float64),
					got["Threshold"].(float64), got["ComparisonOperator"].(string), got["EvaluationPeriods"].(float64)}
				if got["Namespace"] != metrics.Namespace || got["MetricName"] != w.metric.Name {
					t.Errorf("%s watches %v/%v, want %s/%s", name, got["Namespace"], got["MetricName"], metrics.Namespace, w.metric.Name)
				}
				w.metric = metrics.Metric{}
				if diff := cmp.Diff(w, gotW, cmp.AllowUnexported(alarmWant{})); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}

			idle, ok := alarms[p.Name+"-"+tq.AlarmIdleCapacity]
			if !ok {
				t.Fatalf("no idle-capacity alarm")
			}
			// Fires after idleAlarmSeconds of one-minute datapoints.
			if got, want := idle["EvaluationPeriods"], float64(mon.IdleAlarmSeconds/60); got != want {
				t.Errorf("idle alarm evaluation periods %v, want %v", got, want)
			}
			expr := fmt.Sprint(get(idle, "Metrics.0.Expression"))
			if !strings.Contains(expr, fmt.Sprintf("utilization < %d", mon.UtilizationTargetPercent)) || !strings.Contains(expr, "runnable > 0") {
				t.Errorf("idle alarm expression %q, want utilization below %d%% while jobs are runnable", expr, mon.UtilizationTargetPercent)
			}
			// Submission errors page only for failures on AWS's side.
			subErr, ok := alarms[p.Name+"-"+tq.AlarmSubmitterErrors]
			if !ok {
				t.Fatalf("no submitter-errors alarm")
			}
			var kinds []string
			for _, q := range asList(subErr["Metrics"]) {
				if get(q, "MetricStat.Metric.MetricName") != metrics.SubmissionErrors.Name {
					continue
				}
				for _, d := range asList(get(q, "MetricStat.Metric.Dimensions")) {
					if get(d, "Name") == metrics.ErrorType {
						kinds = append(kinds, get(d, "Value").(string))
					}
				}
			}
			sort.Strings(kinds)
			if diff := cmp.Diff([]string{"Throttled", "UpstreamError"}, kinds); diff != "" {
				t.Errorf("submitter-errors pages on errorTypes (-want +got):\n%s", diff)
			}
			for _, name := range []string{tq.AlarmSubmitterErrors, tq.AlarmSubmitterThrottles, tq.AlarmSubmitterDeadLetters,
				tq.AlarmObserverErrors, tq.AlarmPollerErrors, tq.AlarmEventDeadLetters, tq.AlarmQueueBlocked} {
				if _, ok := alarms[p.Name+"-"+name]; !ok {
					t.Errorf("no alarm %s-%s", p.Name, name)
				}
			}
			// A blocked queue pages on the first event of 5 minutes; no
			// event, no data, is not blocked.
			blocked := alarms[p.Name+"-"+tq.AlarmQueueBlocked]
			for key, want := range map[string]any{
				"MetricName": metrics.QueueBlocked.Name, "Namespace": metrics.Namespace, "Statistic": "Sum", "Period": float64(300),
				"Threshold": float64(1), "ComparisonOperator": "GreaterThanOrEqualToThreshold", "EvaluationPeriods": float64(1),
				"TreatMissingData": "notBreaching",
			} {
				if got := blocked[key]; got != want {
					t.Errorf("queue-blocked alarm %s = %v, want %v", key, got, want)
				}
			}
			if dims := asList(blocked["Dimensions"]); len(dims) != 1 || get(dims[0], "Name") != metrics.Queue || get(dims[0], "Value") != p.JobQueueName() {
				t.Errorf("queue-blocked alarm dimensions %v, want Queue=%s only", blocked["Dimensions"], p.JobQueueName())
			}
		})
	}
}

// dashboardBody rebuilds the dashboard JSON from its Fn::Join, with tokens
// replaced by a placeholder.
func dashboardBody(t *testing.T, body any) map[string]any {
	t.Helper()
	var sb strings.Builder
	if s, ok := body.(string); ok {
		sb.WriteString(s)
	} else {
		parts := get(body, "Fn::Join.1")
		for _, part := range asList(parts) {
			if s, ok := part.(string); ok {
				sb.WriteString(s)
			} else {
				sb.WriteString("TOKEN")
			}
		}
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(sb.String()), &out); err != nil {
		t.Fatalf("dashboard body is not JSON: %v\n%s", err, sb.String())
	}
	return out
}

func TestDashboardWidgetsShowMetricsTheObserverEmits(t *testing.T) {
	for _, file := range []string{"", examplePlatform} {
		t.Run(describe(file), func(t *testing.T) { dashboardShowsEmittedMetrics(t, synth(t, file)) })
	}
}

// dashboardShowsEmittedMetrics: every line of s's dashboard is a metric
// trainq emits, by a dimension set it is emitted with, and the dashboard
// shows the metrics on-call reads (the re-router's when a class reroutes).
func dashboardShowsEmittedMetrics(t *testing.T, s *synthesized) {
	_, d := s.template.one(t, "AWS::CloudWatch::Dashboard")
	if d.Properties["DashboardName"] != s.platform.Name {
		t.Errorf("dashboard name %v, want %s", d.Properties["DashboardName"], s.platform.Name)
	}
	body := dashboardBody(t, d.Properties["DashboardBody"])
	known := map[string]metrics.Metric{}
	for _, m := range metrics.All() {
		known[m.Name] = m
	}
	shown := map[string]bool{}
	rows := map[float64]float64{}
	for i, w := range asList(body["widgets"]) {
		title := fmt.Sprint(get(w, "properties.title"))
		if title == "" || title == "<nil>" {
			t.Errorf("widget %d has no title", i)
		}
		rows[get(w, "y").(float64)] += get(w, "width").(float64)
		for _, line := range asList(get(w, "properties.metrics")) {
			arr := asList(line)
			if len(arr) < 2 || arr[0] != metrics.Namespace {
				continue
			}
			name := arr[1].(string)
			m, ok := known[name]
			if !ok {
				t.Errorf("widget %q shows %s, which trainq never emits", title, name)
				continue
			}
			var dims []string
			for j := 2; j+1 < len(arr); j += 2 {
				if k, ok := arr[j].(string); ok {
					dims = append(dims, k)
				}
			}
			if !m.HasDimensions(dims...) {
				t.Errorf("widget %q shows %s by %v, which is not a dimension set it is emitted with (%v)", title, name, dims, m.DimensionSets)
			}
			shown[name] = true
		}
	}
	for y, width := range rows {
		if width > 24 {
			t.Errorf("row at y=%v is %v columns wide; the grid has 24", y, width)
		}
	}
	want := []metrics.Metric{metrics.CapacityUtilization, metrics.RunnableJobs, metrics.OldestRunnableSeconds,
		metrics.WaitSeconds, metrics.JobsStarted, metrics.JobsFailed, metrics.JobsCancelled, metrics.JobsPreempted,
		metrics.BorrowedInstances, metrics.JobsSubmitted, metrics.SubmissionErrors}
	if s.platform.Reroutes() {
		want = append(want, metrics.RerouterMetrics()...)
	}
	for _, m := range want {
		if !shown[m.Name] {
			t.Errorf("the dashboard does not show %s", m.Name)
		}
	}
}

func TestAlarmTopicIsEncryptedAndSubscribesThePlatformsEmails(t *testing.T) {
	s := synth(t, fairSharePlatform)
	keyID, key := s.template.one(t, "AWS::KMS::Key")
	if key.Properties["EnableKeyRotation"] != true {
		t.Errorf("alarm key rotation off")
	}
	_, topic := s.template.one(t, "AWS::SNS::Topic")
	if !jsonEqual(topic.Properties["KmsMasterKeyId"], getAtt(keyID, "Arn")) {
		t.Errorf("topic key %v, want the alarm key", topic.Properties["KmsMasterKeyId"])
	}
	var emails []string
	for _, id := range s.template.ofType("AWS::SNS::Subscription") {
		p := s.template.Resources[id].Properties
		if p["Protocol"] == "email" {
			emails = append(emails, p["Endpoint"].(string))
		}
	}
	if diff := cmp.Diff(s.platform.Monitoring.AlarmEmails, emails); diff != "" {
		t.Errorf("email subscriptions (-want +got):\n%s", diff)
	}
}

func TestMonitoringCanBeTurnedOff(t *testing.T) {
	s := synth(t, noMonitorPlatform)
	for _, typ := range []string{"AWS::CloudWatch::Alarm", "AWS::CloudWatch::Dashboard", "AWS::SNS::Topic", "AWS::Events::Rule"} {
		if n := len(s.template.ofType(typ)); n != 0 {
			t.Errorf("monitoring is off but the stack has %d %s", n, typ)
		}
	}
	// The submitter is still there.
	s.template.find(t, "AWS::Lambda::Function", "FunctionName", s.platform.SubmitFunctionName())
	for _, e := range s.errors {
		t.Errorf("error annotation: %s", e)
	}
}
