package contract

import "strings"

// What the re-router and the submission function share about moved jobs
// and checkpoints. A move submits the same training job again on another
// instance type, as a new Batch job, and then terminates the old one; the
// new job carries its lineage in two tags.
const (
	// TagReroutedFrom holds the id of the job a moved job replaced.
	TagReroutedFrom = TagPrefix + "rerouted-from"
	// TagMoves holds how many times the job's lineage has moved (1 for the
	// first move), in decimal, so that moves stay bounded per job
	// (platform's reroute.maxMoves) across any number of moves.
	TagMoves = TagPrefix + "moves"
	// TagMove holds the re-router's decision to move the job it is on,
	// written (TagResource) before the replacement is submitted:
	// "<move>/<instance type>/<scheduling priority>/<Unix seconds>/<tags
	// sum>", with "/refused" appended once the decision is closed (its
	// request can never be sent). The replacement's request is built from the old job's fixed
	// fields and this record alone, so every retry sends the identical
	// request with the same clientToken. Only the re-router may write it
	// (or TagReroutedFrom, TagMoves): a job carrying it is one the
	// re-router decided to move.
	TagMove = TagPrefix + "move"
)

// LineageTags lists the tag keys only the re-router may set, on a
// submission or by tagging: its decision and a replacement's lineage.
func LineageTags() []string { return []string{TagMove, TagReroutedFrom, TagMoves} }

// LaterTags lists the tag keys trainq may add to a job after its
// submission, or to the job that replaces it: who re-prioritized it and
// its lineage. Callers' tags leave room for them (MaxCallerTags).
// TagMove is not among them: it is written on the job that moves, whose
// replacement never carries it, and a job with no room left for it (the
// most caller tags, a lineage and a re-prioritization) is not moved.
func LaterTags() []string { return []string{TagReprioritizedBy, TagReroutedFrom, TagMoves} }

// Environment of the functions for checkpoints and re-routing.
const (
	// EnvCheckpointBucket names the bucket (the platform's artifacts bucket)
	// under whose team prefixes the submission function puts each job's
	// checkpoints: s3://BUCKET/<team>/checkpoints/<job name>/. Unset: no
	// checkpoint location is set.
	EnvCheckpointBucket = "TRAINQ_CHECKPOINT_BUCKET"
)

// The status reasons the re-router gives AWS Batch when it terminates a job
// (TerminateServiceJob's reason, which Batch keeps as the job's
// statusReason). Both start with RerouteReasonPrefix, so that the observer
// can tell a move from a failure or a cancel: a job ended with such a
// reason was neither (its work goes on in the job that replaced it, or in
// the job it was to replace).
const (
	// RerouteReasonPrefix starts every reason the re-router gives.
	RerouteReasonPrefix = "trainq: reroute"
	// ReroutedReasonPrefix starts the reason of an old job a move ended:
	// "trainq: rerouted to <new job id> on <instance type>".
	ReroutedReasonPrefix = RerouteReasonPrefix + "d to "
	// RerouteAbandonedReasonPrefix starts the reason of a replacement the
	// re-router ended because the job it was to replace started (or ended)
	// first: "trainq: reroute abandoned: <old job id> is <status>".
	RerouteAbandonedReasonPrefix = RerouteReasonPrefix + " abandoned: "
)

// ReroutedReason is the status reason of an old job that moved to newJobID
// on instanceType.
func ReroutedReason(newJobID, instanceType string) string {
	return ReroutedReasonPrefix + newJobID + " on " + instanceType
}

// ParseReroutedReason reads a ReroutedReason back: the job that replaced
// the one it ended, and its instance type.
func ParseReroutedReason(reason string) (newJobID, instanceType string, ok bool) {
	rest, ok := strings.CutPrefix(reason, ReroutedReasonPrefix)
	if !ok {
		return "", "", false
	}
	newJobID, instanceType, ok = strings.Cut(rest, " on ")
	if !ok || newJobID == "" || instanceType == "" {
		return "", "", false
	}
	return newJobID, instanceType, true
}

// RerouteAbandonedReason is the status reason of a replacement ended
// because the job it was to replace, oldJobID, is in status (RUNNING…).
func RerouteAbandonedReason(oldJobID, status string) string {
	return RerouteAbandonedReasonPrefix + oldJobID + " is " + status
}
