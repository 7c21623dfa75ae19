package batchrules

// ShareOfJob is the share a service job runs in: its quotaShareName on a
// queue with a quota-share policy, else its shareIdentifier on a fair-share
// queue; "" on a FIFO queue. A job has at most one of the two: SubmitServiceJob
// requires the one its queue's policy uses and refuses the other
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_SubmitServiceJob.html).
func ShareOfJob(quotaShareName, shareIdentifier string) string {
	if quotaShareName != "" {
		return quotaShareName
	}
	return shareIdentifier
}
