package ledger

import "time"

// The table's shape, which the ledger construct creates and this package
// reads and writes: one item per job, keyed by its Batch job id.
const (
	// KeyJobID is the partition key (S): the Batch job id.
	KeyJobID = "jobId"
	// IndexByEnd is the global secondary index the reads use: every job by
	// the UTC day it ended (KeyEndDay), or OpenDay while it lives, sorted
	// by job id. A read of jobs alive in [since, until] queries OpenDay and
	// each day from since's to today, one partition each, so no read scans
	// the table and none misses a job that ran in the window.
	IndexByEnd = "byEnd"
	// KeyEndDay is the index's partition key (S): YYYY-MM-DD or OpenDay.
	KeyEndDay = "endDay"
	// OpenDay is KeyEndDay of a job that has not ended.
	OpenDay = "open"
	// AttrExpiresAt is the table's time-to-live attribute (N, Unix
	// seconds): DynamoDB deletes an item some time after it (usually
	// within days, Time to Live documentation).
	AttrExpiresAt = "expiresAt"
	// AttrRevision (N) counts the item's writes; every write is
	// conditional on the revision it read.
	AttrRevision = "rev"
)

// DefaultRetention is how long the ledger keeps a job after it ended (or
// was last seen) when the platform file says nothing: about 13 months
// (400 days), so that a month can be compared with the same month a year
// before.
const DefaultRetention = 400 * 24 * time.Hour

// Day is the UTC day of a Unix-millisecond moment, as KeyEndDay spells it.
func Day(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.DateOnly) }
