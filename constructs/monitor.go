package constructs

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/platform"
)

// MonitorProps configure a Monitor. MonitorPropsFromPlatform fills them
// from a platform description.
type MonitorProps struct {
	// Queue is the queue to watch. Required.
	Queue ITrainingQueue
	// Submitter, when given, gets alarms on its failures, throttles and
	// dead-letter queue, and dashboard widgets. Default: none.
	Submitter ISubmitter
	// Rerouter, when given, gets alarms on its errors, throttles and refused
	// moves, and a dashboard row. Default: none.
	Rerouter Rerouter
	// RerouterThresholds are when the re-router's alarms fire; only with
	// Rerouter. Default: every RerouterAlarmThresholds default.
	RerouterThresholds *RerouterAlarmThresholds
	// PlatformProps describe the platform for the pipeline's functions and
	// for the alarms' and widgets' breakdowns. Default: the Submitter's
	// description, when Submitter is one of this app's.
	PlatformProps
	// Thresholds are when the queue's alarms fire. Default: every
	// QueueAlarmThresholds default.
	Thresholds *QueueAlarmThresholds
	// AlarmActions is what every alarm does: NotifyTopic(your topic), for
	// example, unless its severity's own actions are set. Default: alarms
	// of severity page notify a new page topic (id "AlarmTopic", with its
	// key "AlarmKey"), those of severity ticket a new ticket topic (id
	// "TicketAlarmTopic", key "TicketAlarmKey").
	AlarmActions IAlarmActionStrategy
	// PageActions and TicketActions are what alarms of each severity do.
	// Default: AlarmActions, else the new topic of the severity.
	PageActions, TicketActions IAlarmActionStrategy
	// PageTopicArn and TicketTopicArn name an SNS topic of yours (a paging
	// service's integration) that alarms of the severity notify, in place
	// of a new topic; its policy must let cloudwatch.amazonaws.com publish.
	// Default: none.
	PageTopicArn, TicketTopicArn string
	// AlarmEmails are subscribed to both new topics. Default: none.
	AlarmEmails []string
	// PageEmails and TicketEmails are subscribed to the new topic of their
	// severity. Default: none.
	PageEmails, TicketEmails []string
	// RunbookURL is the runbooks page each alarm's description links.
	// Default: platform.DefaultRunbookURL.
	RunbookURL string
	// AlarmNamePrefix starts every alarm's name. Default: PlatformName + "-".
	AlarmNamePrefix string
	// DashboardName names the dashboard. Default: PlatformName.
	DashboardName string
	// ObserverFunctionName and PollerFunctionName name the pipeline's
	// functions. Default: PlatformName + "-observer", "-poller".
	ObserverFunctionName, PollerFunctionName string
	// ObserverCode and PollerCode are prebuilt function code. Default: built
	// during synthesis from trainq's own module.
	ObserverCode, PollerCode awslambda.Code
	// Ledger is the job ledger the pipeline's observer writes. Default:
	// none.
	Ledger Ledger
}

// MonitorPropsFromPlatform returns the props of p's monitor of queue, with
// alarms on sub (nil for none) and p's thresholds, alarm e-mails and names.
// Set Rerouter for a platform that reroutes.
func MonitorPropsFromPlatform(p *platform.Platform, queue ITrainingQueue, sub ISubmitter) *MonitorProps {
	return &MonitorProps{
		Queue:                queue,
		Submitter:            sub,
		PlatformProps:        PlatformPropsFromPlatform(p),
		Thresholds:           QueueAlarmThresholdsFromPlatform(p),
		AlarmEmails:          append([]string(nil), p.Monitoring.AlarmEmails...),
		PageEmails:           append([]string(nil), p.Monitoring.Page.Emails...),
		TicketEmails:         append([]string(nil), p.Monitoring.Ticket.Emails...),
		PageTopicArn:         p.Monitoring.Page.TopicARN,
		TicketTopicArn:       p.Monitoring.Ticket.TopicARN,
		RunbookURL:           p.Monitoring.RunbookURL,
		AlarmNamePrefix:      p.Name + "-",
		DashboardName:        p.Name,
		ObserverFunctionName: p.ObserverFunctionName(),
		PollerFunctionName:   p.PollerFunctionName(),
	}
}

// Monitor composes trainq's monitoring layers for one queue: the pipeline
// that produces the metrics (MonitoringPipeline), alarms on the queue, the
// submitter, the pipeline and the re-router (AlarmFactory) with one action
// strategy, and a
// dashboard of the widgets (CapacityWidgets, BacklogWidgets, …). Use the
// layers alone for another arrangement: alarms without a dashboard, a second
// dashboard over the same metrics, alarms on your own topic.
type Monitor interface {
	constructs.Construct
	// Pipeline turns Batch events and queue snapshots into metrics.
	Pipeline() MonitoringPipeline
	// AlarmFactory made the alarms; add alarms of your own with it.
	AlarmFactory() *AlarmFactory
	// Alarms are the monitor's alarms by name (the Alarm… constants and
	// functions).
	Alarms() map[string]awscloudwatch.Alarm
	// AlarmTopic is the topic alarms of severity page notify when the
	// monitor created or imported it, else nil (they follow the props'
	// actions).
	AlarmTopic() awssns.ITopic
	// TicketTopic is the topic alarms of severity ticket notify when the
	// monitor created or imported it, else nil.
	TicketTopic() awssns.ITopic
	// Dashboard is the monitor's dashboard.
	Dashboard() awscloudwatch.Dashboard
}

type monitor struct {
	constructs.Construct
	pipeline  MonitoringPipeline
	factory   *AlarmFactory
	topic     awssns.ITopic
	ticket    awssns.ITopic
	dashboard awscloudwatch.Dashboard
}

// NewMonitor creates the monitoring pipeline, the alarms and the dashboard
// of a queue. Its children keep the ids of earlier releases: the pipeline is
// the default child ("Default", which CDK leaves out of logical ids), the
// alarms are "Alarm-NAME", the topic "AlarmTopic", the dashboard
// "Dashboard".
func NewMonitor(scope constructs.Construct, id string, props *MonitorProps) Monitor {
	if props == nil {
		props = &MonitorProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	m := &monitor{Construct: c}
	pp := props.PlatformProps
	if s, ok := props.Submitter.(Submitter); ok && isZeroPlatformProps(pp) {
		if p := s.Platform(); p != nil {
			pp = PlatformPropsFromPlatform(p)
		}
	}
	m.pipeline = NewMonitoringPipeline(c, "Default", &MonitoringPipelineProps{
		Queue: props.Queue, PlatformProps: pp,
		ObserverFunctionName: props.ObserverFunctionName, PollerFunctionName: props.PollerFunctionName,
		ObserverCode: props.ObserverCode, PollerCode: props.PollerCode, Ledger: props.Ledger,
	})
	if props.Queue == nil {
		return m
	}
	prefix := props.AlarmNamePrefix
	if prefix == "" {
		prefix = pp.name() + "-"
	}
	if props.AlarmActions != nil && len(props.AlarmEmails) > 0 {
		addError(c, "trainq.Monitor: AlarmEmails has %d addresses but AlarmActions is set; subscribe them to your own topic, or leave AlarmActions unset", len(props.AlarmEmails))
	}
	// severityActions are the actions of one severity: given, else a topic
	// of yours by ARN, else a new topic (ids keyID, topicID) with the
	// severity's and AlarmEmails subscribed.
	severityActions := func(given IAlarmActionStrategy, arn, name, keyID, topicID string, emails []string) (IAlarmActionStrategy, awssns.ITopic) {
		if given == nil {
			given = props.AlarmActions
		}
		switch {
		case given != nil:
			if len(emails) > 0 || arn != "" {
				addError(c, "trainq.Monitor: %s e-mails or topic ARN are set but so are its actions; subscribe them to your own topic, or leave the actions unset", name)
			}
			return given, nil
		case arn != "":
			topic := awssns.Topic_FromTopicArn(c, jsii.String(topicID+"Import"), jsii.String(arn))
			return NotifyTopic(topic), topic
		}
		topic, _, notify := newAlarmTopic(c, keyID, topicID, "Encrypts the trainq "+pp.name()+" "+name+" topic", &AlarmTopicProps{DisplayName: "trainq " + pp.name() + " " + name + "s",
			Emails: append(append([]string{}, props.AlarmEmails...), emails...),
		})
		return notify, topic
	}
	page, pageTopic := severityActions(props.PageActions, props.PageTopicArn, SeverityPage, "AlarmKey", "AlarmTopic", props.PageEmails)
	ticket, ticketTopic := severityActions(props.TicketActions, props.TicketTopicArn, SeverityTicket, "TicketAlarmKey", "TicketAlarmTopic", props.TicketEmails)
	m.topic, m.ticket = pageTopic, ticketTopic
	m.factory = NewAlarmFactory(c, &AlarmFactoryProps{AlarmNamePrefix: prefix, PageActions: page, TicketActions: ticket, RunbookURL: props.RunbookURL})

	var w *WidgetProps
	var classes []string
	if p := m.pipeline.Platform(); p != nil {
		w = WidgetPropsFromPlatform(p)
		classes = p.ClassNames()
	}
	thresholds := props.Thresholds
	if w != nil && (thresholds == nil || thresholds.InstanceTypes == nil) {
		t := QueueAlarmThresholds{}
		if thresholds != nil {
			t = *thresholds
		}
		t.InstanceTypes = w.InstanceTypes
		thresholds = &t
	}
	m.factory.AddQueueAlarms(props.Queue, classes, thresholds)
	if props.Submitter != nil {
		m.factory.AddSubmitterAlarms(props.Queue, props.Submitter)
	}
	m.factory.AddPipelineAlarms(m.pipeline)
	if p := m.pipeline.Platform(); p != nil {
		m.factory.AddBudgetAlarms(props.Queue, p)
	}
	if props.Rerouter != nil {
		m.factory.AddRerouterAlarms(props.Rerouter, props.RerouterThresholds)
	} else if props.RerouterThresholds != nil {
		addError(c, "trainq.Monitor: RerouterThresholds is set but Rerouter is not; give the Rerouter, or leave RerouterThresholds unset")
	}

	outcomes := append(OutcomeWidgets(props.Queue, w), AlarmStatusWidget("Alarms", m.factory.Ordered()))
	last := []awscloudwatch.IWidget{PipelineWidget(m.pipeline)}
	if props.Submitter != nil {
		last = append(SubmitterWidgets(props.Queue, props.Submitter), last...)
	}
	rows := [][]awscloudwatch.IWidget{CapacityWidgets(props.Queue, w), BacklogWidgets(props.Queue, w),
		WhoWaitsWidgets(props.Queue, w), UsageWidgets(props.Queue, w, quotaMode(m.pipeline.Platform()))}
	if p := m.pipeline.Platform(); p != nil {
		rows = append(rows, BudgetWidgets(props.Queue, p)...)
	}
	rows = append(rows, WhyWidgets(props.Queue, w), outcomes, last)
	if props.Rerouter != nil {
		rows = append(rows, RerouterWidgets(props.Rerouter))
	}
	rows = append(rows, []awscloudwatch.IWidget{RunbookWidget(m.factory)})
	widgets := make([]*[]awscloudwatch.IWidget, len(rows))
	for i := range rows {
		widgets[i] = &rows[i]
	}
	name := props.DashboardName
	if name == "" {
		name = pp.name()
	}
	m.dashboard = awscloudwatch.NewDashboard(c, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String(name),
		Widgets:       &widgets,
	})
	claimName(m.dashboard, "CloudWatch dashboard", name, "DashboardName")
	return m
}

func isZeroPlatformProps(pp PlatformProps) bool {
	return pp.PlatformName == "" && pp.Classes == nil && pp.Teams == nil && pp.InstanceTypes == nil && pp.LogRetentionDays == 0 &&
		pp.Budgets == nil && pp.HourlyPrices == nil && pp.LedgerRetentionDays == 0
}

func (m *monitor) Pipeline() MonitoringPipeline { return m.pipeline }
func (m *monitor) AlarmFactory() *AlarmFactory  { return m.factory }
func (m *monitor) AlarmTopic() awssns.ITopic    { return m.topic }
func (m *monitor) TicketTopic() awssns.ITopic   { return m.ticket }
func (m *monitor) Dashboard() awscloudwatch.Dashboard {
	return m.dashboard
}

func (m *monitor) Alarms() map[string]awscloudwatch.Alarm {
	if m.factory == nil {
		return nil
	}
	return m.factory.Alarms()
}

// quotaMode reports whether p schedules by quota shares (nil: not known, so
// no).
func quotaMode(p *platform.Platform) bool {
	return p != nil && p.Scheduling.Mode == platform.ModeQuota
}
