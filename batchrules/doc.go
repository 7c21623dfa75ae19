// Package batchrules holds AWS Batch's rules that trainq depends on, each
// written once: whether a job fits a quota share now and how much headroom a
// share has (capacity limits, the RESERVE, LEND and LEND_AND_BORROW sharing
// strategies, borrow limits, reclaiming lent capacity by preemption), the
// capacity usage a queue snapshot reports, the share a job runs in, and the
// names and ARNs Batch and IAM accept.
//
// Each rule's doc comment links the AWS page it implements. The submission
// function, the poller and the simulator call these rules, so that the
// submitter's instance-type fallback and the simulator agree on what fits;
// platform validation and the constructs' checks use the name patterns.
//
// It imports nothing of trainq and never the AWS SDK: callers convert their
// own types to the small input types here — a platform's teams by
// platform.Team.QuotaShare, a Batch SDK answer by the sub-package batchsdk,
// the one adapter the functions share. It is run-time code: it must never import the AWS CDK, jsii or
// constructs.
package batchrules
