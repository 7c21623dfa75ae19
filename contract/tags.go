package contract

// Tags trainq sets on every job it submits. Callers may not set keys that
// start with TagPrefix (nor aws:).
const (
	// TagPrefix starts every tag trainq sets.
	TagPrefix = "trainq:"
	// TagTeam holds the job's team.
	TagTeam = TagPrefix + "team"
	// TagClass holds the job's priority class.
	TagClass = TagPrefix + "class"
	// TagToken holds the job's clientToken, so that a retried submission
	// can recognise the job it already created.
	TagToken = TagPrefix + "token"
	// TagPlatform holds the platform's name, so that IAM can limit who may
	// terminate or update the platform's jobs with
	// aws:ResourceTag/trainq:platform.
	TagPlatform = TagPrefix + "platform"
	// TagReprioritizedBy holds who last re-prioritized the job
	// (ChangedBy), set when the priority changes.
	TagReprioritizedBy = TagPrefix + "reprioritized-by"
)

// Tags lists every tag key trainq sets on a job, in a fixed order.
func Tags() []string { return []string{TagTeam, TagClass, TagToken, TagPlatform} }

// SubmitterTags lists the tag keys the submission function sets: at
// submission (Tags) and when it re-prioritizes a job (TagReprioritizedBy).
// Every tag key trainq sets is in SubmitterTags or LineageTags (the
// re-router's alone, which IAM refuses to the submission function and,
// with every trainq: key, to GrantSubmitServiceJob's grantees).
func SubmitterTags() []string { return append(Tags(), TagReprioritizedBy) }
