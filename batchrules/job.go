package batchrules

// RunnableSince is when a service job last became RUNNABLE, considering only
// moments at or before before (Unix milliseconds): the latest of moments,
// which are its createdAt and the stoppedAt of each of its attempts and
// recently preempted attempts (nil ones are skipped). A job is RUNNABLE once
// created, and again whenever an attempt stops and the job is retried (a
// failed attempt with retries left) or requeued (a preempted attempt)
// (https://docs.aws.amazon.com/batch/latest/userguide/service-job-states.html,
// https://docs.aws.amazon.com/batch/latest/userguide/preemption.html). The
// seconds a job spends SUBMITTED and PENDING count as RUNNABLE. found is
// false when no moment is at or before before.
func RunnableSince(before int64, moments ...*int64) (since int64, found bool) {
	for _, t := range moments {
		if t != nil && *t <= before && (!found || *t > since) {
			since, found = *t, true
		}
	}
	return since, found
}
