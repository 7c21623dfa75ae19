package test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tq "github.com/trainq/trainq/constructs"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
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
	m         float64
}

// paging are the alarms that page on the default platform, by hand:
// production's platform-caused failures and its waits with room, a blocked
// queue, both heartbeats, failed submissions and a job that runs twice.
var paging = map[string]bool{
	"job-failed-production": true, "oldest-wait-production": true, "queue-blocked": true,
	"observer-heartbeat": true, "poller-heartbeat": true, "submitter-errors": true, "reroute-ran-twice": true,
}

func TestEveryAlarmWatchesWhatThePlatformSays(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			p, mon := s.platform, s.platform.Monitoring
			q := p.JobQueueName()
			topics := map[string]string{}
			for _, id := range s.template.ofType("AWS::SNS::Topic") {
				switch s.template.Resources[id].Properties["DisplayName"] {
				case "trainq " + p.Name + " pages":
					topics["page"] = id
				case "trainq " + p.Name + " tickets":
					topics["ticket"] = id
				}
			}
			if len(topics) != 2 {
				t.Fatalf("topics by severity %v, want a page topic and a ticket topic", topics)
			}
			want := map[string]alarmWant{}
			for _, c := range mon.FailureAlarmClasses {
				want[p.Name+"-"+tq.AlarmJobFailed(c)] = alarmWant{metrics.JobsFailed, map[string]string{"Queue": q, "Class": c, "Fault": "PLATFORM"}, "Sum", 60, 1, "GreaterThanOrEqualToThreshold", 1, 1}
				// The job's own failures in 3 of 6 hours.
				want[p.Name+"-"+tq.AlarmJobCodeFailed(c)] = alarmWant{metrics.JobsFailed, map[string]string{"Queue": q, "Class": c, "Fault": "JOB"}, "Sum", 3600, 1, "GreaterThanOrEqualToThreshold", 6, 3}
			}
			for _, c := range p.Classes {
				// Past the class's limit in 3 of 5 minutes.
				want[p.Name+"-"+tq.AlarmOldestWait(c.Name)] = alarmWant{metrics.OldestRunnableSeconds, map[string]string{"Queue": q, "Class": c.Name, "Quota": "ROOM"}, "Maximum", 60, float64(mon.MaxWaitSeconds[c.Name]), "GreaterThanThreshold", 5, 3}
				// On a full quota, four times the limit.
				want[p.Name+"-"+tq.AlarmQuotaFullWait(c.Name)] = alarmWant{metrics.OldestRunnableSeconds, map[string]string{"Queue": q, "Class": c.Name, "Quota": "FULL"}, "Maximum", 60, float64(4 * mon.MaxWaitSeconds[c.Name]), "GreaterThanThreshold", 5, 3}
			}
			want[p.Name+"-"+tq.AlarmEventsRejected] = alarmWant{metrics.EventsRejected, map[string]string{"Queue": q}, "Sum", 300, 1, "GreaterThanOrEqualToThreshold", 3, 2}
			// Heartbeats: fewer than one in 2 of 3 five-minute periods.
			want[p.Name+"-"+tq.AlarmObserverHeartbeat] = alarmWant{metrics.ObserverHeartbeats, map[string]string{"Queue": q}, "Sum", 300, 1, "LessThanThreshold", 3, 2}
			want[p.Name+"-"+tq.AlarmPollerHeartbeat] = alarmWant{metrics.RunnableJobs, map[string]string{"Queue": q}, "SampleCount", 300, 1, "LessThanThreshold", 3, 2}

			alarms := map[string]map[string]any{}
			for _, id := range s.template.ofType("AWS::CloudWatch::Alarm") {
				props := s.template.Resources[id].Properties
				name := props["AlarmName"].(string)
				short := strings.TrimPrefix(name, p.Name+"-")
				alarms[name] = props
				// Every alarm notifies its severity's topic when it fires and when
				// it clears, and treats missing data deliberately.
				sev := "ticket"
				if paging[short] {
					sev = "page"
				}
				for _, k := range []string{"AlarmActions", "OKActions"} {
					if !jsonEqual(props[k], []any{ref(topics[sev])}) {
						t.Errorf("%s: %s = %v, want the %s topic", name, k, props[k], sev)
					}
				}
				missing := "notBreaching"
				if strings.HasSuffix(short, "-heartbeat") {
					missing = "breaching"
				}
				if props["TreatMissingData"] != missing {
					t.Errorf("%s: TreatMissingData = %v, want %s", name, props["TreatMissingData"], missing)
				}
				d, _ := props["AlarmDescription"].(string)
				if !strings.Contains(d, "Missing data") || !strings.Contains(d, "Severity: "+sev+".") {
					t.Errorf("%s: description %q does not say its severity %s and how missing data counts", name, d, sev)
				}
				// The runbook section is the alarm's name, or its family's for an alarm per class.
				section := short
				for _, family := range []string{"job-failed", "job-code-failed", "oldest-wait", "quota-full-wait"} {
					if strings.HasPrefix(short, family+"-") {
						section = family
					}
				}
				if !strings.HasSuffix(d, "Runbook: "+mon.RunbookURL+"#"+section) {
					t.Errorf("%s: description %q does not end with its runbook link (#%s)", name, d, section)
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
					got["Threshold"].(float64), got["ComparisonOperator"].(string), got["EvaluationPeriods"].(float64), got["DatapointsToAlarm"].(float64)}
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
			// Fires after 25 of 30 one-minute datapoints (five sixths of idleAlarmSeconds).
			if got, want := idle["EvaluationPeriods"], float64(mon.IdleAlarmSeconds/60); got != want {
				t.Errorf("idle alarm evaluation periods %v, want %v", got, want)
			}
			if n := mon.IdleAlarmSeconds / 60; idle["DatapointsToAlarm"] != float64(n-n/6) {
				t.Errorf("idle alarm datapoints to alarm %v, want %d of %d (five sixths)", idle["DatapointsToAlarm"], n-n/6, n)
			}
			// One term per instance type: a type idle while its own jobs wait.
			expr := fmt.Sprint(get(idle, "Metrics.0.Expression"))
			for i := range p.InstanceTypes() {
				if term := fmt.Sprintf("IF(r%d > 0 AND u%d < %d, 1, 0)", i, i, mon.UtilizationTargetPercent); !strings.Contains(expr, term) {
					t.Errorf("idle alarm expression %q lacks %q", expr, term)
				}
			}
			typesWatched := map[string]bool{}
			for _, m := range asList(idle["Metrics"]) {
				for _, d := range asList(get(m, "MetricStat.Metric.Dimensions")) {
					if get(d, "Name") == metrics.InstanceType {
						typesWatched[get(d, "Value").(string)] = true
					}
				}
			}
			if len(typesWatched) != len(p.InstanceTypes()) {
				t.Errorf("idle alarm watches types %v, want each of %v", typesWatched, p.InstanceTypes())
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
				tq.AlarmObserverErrors, tq.AlarmPollerErrors, tq.AlarmPollerThrottles, tq.AlarmEventDeadLetters, tq.AlarmQueueBlocked} {
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
	runbooks := ""
	for i, w := range asList(body["widgets"]) {
		title := fmt.Sprint(get(w, "properties.title"))
		if get(w, "type") == "text" {
			// A text widget's title is its Markdown's first heading.
			runbooks = fmt.Sprint(get(w, "properties.markdown"))
			title = strings.TrimLeft(strings.SplitN(runbooks, "\n", 2)[0], "# ")
		}
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
	// Every alarm is listed with the link to its runbook section.
	for _, id := range s.template.ofType("AWS::CloudWatch::Alarm") {
		name := strings.TrimPrefix(s.template.Resources[id].Properties["AlarmName"].(string), s.platform.Name+"-")
		if !strings.Contains(runbooks, "["+name+"]("+s.platform.Monitoring.RunbookURL+"#") {
			t.Errorf("the dashboard's runbooks widget does not link alarm %s to its runbook", name)
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

func TestAlarmTopicsAreEncryptedAndSubscribeThePlatformsEmails(t *testing.T) {
	s := synth(t, fairSharePlatform)
	mon := s.platform.Monitoring
	want := map[string][]string{
		"trainq " + s.platform.Name + " pages":   append(append([]string{}, mon.AlarmEmails...), mon.Page.Emails...),
		"trainq " + s.platform.Name + " tickets": append(append([]string{}, mon.AlarmEmails...), mon.Ticket.Emails...),
	}
	got := map[string][]string{}
	keys := map[string]bool{}
	for _, id := range s.template.ofType("AWS::SNS::Topic") {
		topic := s.template.Resources[id].Properties
		name, _ := topic["DisplayName"].(string)
		var keyID string
		for _, k := range s.template.ofType("AWS::KMS::Key") {
			if jsonEqual(topic["KmsMasterKeyId"], getAtt(k, "Arn")) {
				keyID = k
			}
		}
		if keyID == "" || s.template.Resources[keyID].Properties["EnableKeyRotation"] != true {
			t.Errorf("topic %s: key %v, want a rotating key of the stack", name, topic["KmsMasterKeyId"])
		}
		keys[keyID] = true
		got[name] = []string{}
		for _, sid := range s.template.ofType("AWS::SNS::Subscription") {
			p := s.template.Resources[sid].Properties
			if p["Protocol"] == "email" && jsonEqual(p["TopicArn"], ref(id)) {
				got[name] = append(got[name], p["Endpoint"].(string))
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("email subscriptions by topic (-want +got):\n%s", diff)
	}
	if len(keys) != 2 {
		t.Errorf("%d keys for the two topics, want one each", len(keys))
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

// TestDashboardShowsEachTeamsInstanceHoursPerDay: the usage row turns the
// poller's minute samples into instance-hours per day for every team. The
// poller writes InstancesInUse{Queue,Team} (and, with quota shares,
// BorrowedInstances{Queue,Team}) once a minute, all instance types
// together, so a day's Sum is instance-minutes: a team holding 4 instances
// all day gives 1,440 samples of 4, a Sum of 5,760, and 5,760/60 = 96
// instance-hours. Borrowing exists only with quota shares.
func TestDashboardShowsEachTeamsInstanceHoursPerDay(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			_, d := s.template.one(t, "AWS::CloudWatch::Dashboard")
			body := dashboardBody(t, d.Properties["DashboardBody"])
			quota := s.platform.Scheduling.Mode == platform.ModeQuota
			check := func(titlePrefix string, metric metrics.Metric, want bool) {
				var widget any
				for _, w := range asList(body["widgets"]) {
					if strings.HasPrefix(fmt.Sprint(get(w, "properties.title")), titlePrefix) {
						widget = w
					}
				}
				if widget == nil {
					if want {
						t.Errorf("no widget %q", titlePrefix)
					}
					return
				}
				if !want {
					t.Errorf("widget %q on a platform without quota shares: nothing is borrowed there", titlePrefix)
					return
				}
				exprs := map[string]map[string]any{} // id -> expression line, by the id it divides
				samples := map[string][]any{}        // id -> metric line
				for _, line := range asList(get(widget, "properties.metrics")) {
					arr := asList(line)
					if len(arr) == 1 {
						e := arr[0].(map[string]any)
						id := strings.TrimSuffix(fmt.Sprint(e["expression"]), "/60")
						exprs[id] = e
						continue
					}
					opts := arr[len(arr)-1].(map[string]any)
					samples[fmt.Sprint(opts["id"])] = arr
				}
				for _, team := range s.platform.TeamNames() {
					found := false
					for id, e := range exprs {
						if e["label"] != team {
							continue
						}
						found = true
						if e["expression"] != id+"/60" || e["period"] != float64(86400) {
							t.Errorf("%s: team %s's line is %v over %v s, want a day's (86400 s) Sum of minute samples divided by 60", titlePrefix, team, e["expression"], e["period"])
						}
						m := samples[id]
						opts, _ := m[len(m)-1].(map[string]any)
						if len(m) < 2 || m[1] != metric.Name || !slices.Contains(m, any(team)) || slices.Contains(m, any(metrics.InstanceType)) || opts["stat"] != "Sum" || opts["period"] != float64(86400) {
							t.Errorf("%s: team %s's samples are %v, want %s{Queue,Team=%s}, Sum over 86400 s", titlePrefix, team, m, metric.Name, team)
						}
					}
					if !found {
						t.Errorf("%s: no line for team %s", titlePrefix, team)
					}
				}
			}
			check("Instance-hours per day by team", metrics.InstancesInUse, true)
			check("Borrowed instance-hours per day by team", metrics.BorrowedInstances, quota)
		})
	}
}
