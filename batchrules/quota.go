package batchrules

// The quota rules implement the AWS Batch user guide's quota management
// (https://docs.aws.amazon.com/batch/latest/userguide/quota-management.html),
// quota shares and their resource sharing strategies
// (https://docs.aws.amazon.com/batch/latest/userguide/quota-shares.html) and
// the API's QuotaShareResourceSharingConfiguration
// (https://docs.aws.amazon.com/batch/latest/APIReference/API_QuotaShareResourceSharingConfiguration.html).
// Capacity is counted in instances of one instance type: for service jobs,
// Batch's capacity unit is the instance type.

// Strategy is a quota share's resource sharing strategy, in AWS Batch's
// spelling.
type Strategy string

const (
	// Reserve keeps the share's idle capacity for its own jobs: it neither
	// lends nor borrows, and no other share may use its idle quota.
	Reserve Strategy = "RESERVE"
	// Lend lends the share's idle capacity to other shares; the share never
	// borrows.
	Lend Strategy = "LEND"
	// LendAndBorrow lends idle capacity and borrows other shares' idle
	// capacity, up to the borrow limit.
	LendAndBorrow Strategy = "LEND_AND_BORROW"
)

// UnlimitedBorrow is the borrow limit that means no limit, Batch's default
// borrowLimit (-1).
const UnlimitedBorrow = -1

// Limit is a quota share's capacity limit for one instance type and what
// the share may do with idle capacity.
type Limit struct {
	Strategy Strategy
	// Capacity is the share's capacity limit (maxCapacity) of the type: the
	// instances it is guaranteed, reclaiming them by preemption when lent.
	Capacity int
	// BorrowLimitPercent caps borrowing (LEND_AND_BORROW only) as a
	// percentage of Capacity; UnlimitedBorrow for no cap.
	BorrowLimitPercent int
}

// MaxBorrowed is how many instances beyond Capacity the share may hold, in a
// pool of pool instances: none unless it lends and borrows; pool when its
// borrow limit is unlimited; else borrowLimit percent of its capacity,
// rounded down ("if the borrowLimit is 200, the quota share can borrow up to
// 200% of its configured maxCapacity for each capacity unit",
// https://docs.aws.amazon.com/batch/latest/APIReference/API_QuotaShareResourceSharingConfiguration.html).
func (l Limit) MaxBorrowed(pool int) int {
	switch {
	case l.Strategy != LendAndBorrow:
		return 0
	case l.BorrowLimitPercent < 0:
		return pool
	}
	return l.Capacity * l.BorrowLimitPercent / 100
}

// Ceiling is the most instances the share may hold at once in a pool of
// pool instances, by its own limits: Capacity + MaxBorrowed(pool).
func (l Limit) Ceiling(pool int) int { return l.Capacity + l.MaxBorrowed(pool) }

// ShareState is one share's limit and usage of one instance type.
type ShareState struct {
	Limit
	// Used is the instances of the type the share's jobs hold.
	Used int
}

// Borrowed is how many instances the share holds beyond its capacity.
func (s ShareState) Borrowed() int { return max(0, s.Used-s.Capacity) }

// idleQuota is the share's unused capacity.
func (s ShareState) idleQuota() int { return max(0, s.Capacity-s.Used) }

// TypeState is one instance type of a quota-managed job queue at one
// moment: the pool, what is in use, and every quota share of the queue.
type TypeState struct {
	// Pool is the instances of the type the service environment has.
	Pool int
	// InUse is the instances of the type the queue's jobs hold.
	InUse int
	// Shares are every quota share of the queue; a share that holds none
	// of the type has Used 0.
	Shares []ShareState
}

// Free is the pool's idle instances.
func (q TypeState) Free() int { return q.Pool - q.InUse }

// Room is what a share could get of one instance type now.
type Room struct {
	// Idle is how many instances the share could start on idle capacity,
	// without preempting anything.
	Idle int
	// Reclaim is how many instances the share could get within its own
	// capacity limit, counting capacity Batch takes back from shares that
	// borrow it (cross-share preemption).
	Reclaim int
}

// Headroom is the largest job (in instances) that fits: max(Idle, Reclaim).
func (r Room) Headroom() int { return max(r.Idle, r.Reclaim) }

// Fit is whether a job can start now, and how.
type Fit int

const (
	// Wait: the job cannot start now.
	Wait Fit = iota
	// FitsByReclaim: the job stays within its share's capacity limit, and
	// starts once Batch preempts jobs that borrow the share's capacity.
	FitsByReclaim
	// FitsIdle: the job starts on idle capacity its share may use.
	FitsIdle
)

func (f Fit) String() string {
	switch f {
	case FitsIdle:
		return "fits on idle capacity"
	case FitsByReclaim:
		return "fits by reclaiming lent capacity"
	}
	return "waits"
}

// Fit says whether a job of instances instances fits the room: on idle
// capacity, else by reclaiming, else not.
func (r Room) Fit(instances int) Fit {
	switch {
	case instances <= r.Idle:
		return FitsIdle
	case instances <= r.Reclaim:
		return FitsByReclaim
	}
	return Wait
}

// Room is what share s could get of the type now:
//
//	Idle    = min(ceiling − used, free − idle quota of the other RESERVE shares)
//	Reclaim = min(capacity − used, free − idle quota of the other RESERVE shares
//	                               + instances the other shares borrow)
//
// (each at least 0). A share may use idle capacity up to its ceiling
// (capacity plus what it may borrow); idle capacity is the pool's idle
// instances except other RESERVE shares' unused quota, which "should be
// reserved for only its jobs" — while a LEND or LEND_AND_BORROW share's
// unused quota, and the pool's instances no share is guaranteed, are there
// to borrow. Within its own capacity a share also gets back what others
// borrow: "AWS Batch will perform cross-share preemption to restore borrowed
// capacity back to a quota share when jobs arrive"
// (https://docs.aws.amazon.com/batch/latest/userguide/quota-shares.html).
// A job partly within and partly beyond its share's capacity fits only on
// idle capacity. When the capacities of all shares add up to at most the
// pool (platform validation checks it), Reclaim is capacity − used.
func (q TypeState) Room(s int) Room {
	me := q.Shares[s]
	idle := q.Free()
	borrowed := 0
	for r, other := range q.Shares {
		if r == s {
			continue
		}
		if other.Strategy == Reserve {
			idle -= other.idleQuota()
		}
		borrowed += other.Borrowed()
	}
	return Room{
		Idle:    max(0, min(me.Ceiling(q.Pool)-me.Used, idle)),
		Reclaim: max(0, min(me.idleQuota(), idle+borrowed)),
	}
}

// Fit says whether a job of instances instances of share s fits now:
// q.Room(s).Fit(instances).
func (q TypeState) Fit(s, instances int) Fit { return q.Room(s).Fit(instances) }

// MaxHeld is the most instances of the type share s could ever hold at
// once, whatever the others do: its ceiling, within the pool less the other
// RESERVE shares' capacity (which they never lend). A larger job never
// starts.
func (q TypeState) MaxHeld(s int) int {
	reserved := 0
	for r, other := range q.Shares {
		if r != s && other.Strategy == Reserve {
			reserved += other.Capacity
		}
	}
	return min(q.Pool-reserved, q.Shares[s].Ceiling(q.Pool))
}

// Share is a quota share (AWS::Batch::QuotaShare) of a job queue: its
// capacity limits per instance type (1 to 5) and its sharing configuration.
type Share struct {
	Name string
	// Capacity is the capacity limit per instance type, in instances.
	Capacity map[string]int
	Strategy Strategy
	// BorrowLimitPercent is the borrow limit (LEND_AND_BORROW only);
	// UnlimitedBorrow for none.
	BorrowLimitPercent int
}

// Limit is the share's limit for instanceType (capacity 0 when it has none).
func (s Share) Limit(instanceType string) Limit {
	return Limit{Strategy: s.Strategy, Capacity: s.Capacity[instanceType], BorrowLimitPercent: s.BorrowLimitPercent}
}

// StateOf builds the state of instanceType for shares from a queue's usage:
// pool instances, u.ByType's total in use and each share's u.ByShare (a
// share u does not list holds nothing). Fractional quantities count as
// whole instances (rounded up).
func StateOf(instanceType string, pool int, shares []Share, u *Usage) TypeState {
	q := TypeState{Pool: pool, InUse: u.TotalInstances(instanceType), Shares: make([]ShareState, len(shares))}
	for i, s := range shares {
		q.Shares[i] = ShareState{Limit: s.Limit(instanceType), Used: u.ShareInstances(s.Name, instanceType)}
	}
	return q
}
