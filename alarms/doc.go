// Package alarms holds every trainq alarm's rule once: its name, severity
// (page or ticket), what it watches, its threshold, its M-of-N evaluation,
// how missing data counts, what firing means and its runbook section. The
// alarm constructs (package constructs) turn each rule into a CloudWatch
// alarm, and the simulator's alarm-noise evaluation (package simulate)
// evaluates the same rules over the metric series it emits, with
// Rule.Evaluate, which follows CloudWatch's evaluation of an alarm.
//
// It is run-time code: it must never import the AWS CDK, jsii or
// constructs.
package alarms
