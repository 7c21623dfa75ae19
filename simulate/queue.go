package simulate

// The engine's ordered sets, written out so that pushing and popping do not
// allocate and cost O(log n):
//   - qheap: waiting jobs in queue order (waitLess) or submission order
//     (fifoLess);
//   - sizedQueue: one share's waiting jobs of one instance type, a qheap per
//     gang size, so that "the first job in queue order that fits in r
//     instances" looks at one head per distinct size instead of walking the
//     queue;
//   - endHeap: running jobs by the end of their attempt, indexed so that a
//     preempted attempt leaves it at once.

// qent is a waiting job with its ordering key.
type qent struct {
	submit int64
	order  int64
	prio   int32
	idx    int32
}

// waitLess is the queue order within a share: higher scheduling priority
// first (R11), then earlier submission, then trace order.
func waitLess(a, b qent) bool {
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	return fifoLess(a, b)
}

// fifoLess is submission order: earlier submission first, then trace order.
// It orders the FIFO baseline's single queue (R19) and borrowers of
// different quota shares (R6).
func fifoLess(a, b qent) bool {
	if a.submit != b.submit {
		return a.submit < b.submit
	}
	return a.order < b.order
}

// qheap is a binary min-heap of waiting jobs under waitLess, or fifoLess
// when fifo is set. Each job knows its position (job.qpos), so that a job
// the re-router moves leaves its queue at once.
type qheap struct {
	s    []qent
	fifo bool
	jobs *[]job
}

func (h *qheap) less(a, b qent) bool {
	if h.fifo {
		return fifoLess(a, b)
	}
	return waitLess(a, b)
}

func (h *qheap) len() int { return len(h.s) }

func (h *qheap) head() qent { return h.s[0] }

func (h *qheap) set(i int, x qent) {
	h.s[i] = x
	(*h.jobs)[x.idx].qpos = int32(i)
}

func (h *qheap) up(i int) {
	x := h.s[i]
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(x, h.s[p]) {
			break
		}
		h.set(i, h.s[p])
		i = p
	}
	h.set(i, x)
}

func (h *qheap) down(i int) {
	n := len(h.s)
	x := h.s[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if l+1 < n && h.less(h.s[l+1], h.s[l]) {
			m = l + 1
		}
		if !h.less(h.s[m], x) {
			break
		}
		h.set(i, h.s[m])
		i = m
	}
	h.set(i, x)
}

func (h *qheap) push(x qent) {
	h.s = append(h.s, x)
	h.up(len(h.s) - 1)
}

func (h *qheap) pop() qent { return h.removeAt(0) }

// removeAt takes the entry at position i out of the heap.
func (h *qheap) removeAt(i int) qent {
	x := h.s[i]
	(*h.jobs)[x.idx].qpos = -1
	n := len(h.s) - 1
	if i != n {
		last := h.s[n]
		h.s = h.s[:n]
		h.set(i, last)
		h.down(i)
		h.up(int((*h.jobs)[last.idx].qpos))
	} else {
		h.s = h.s[:n]
	}
	if cap(h.s) > 64 && len(h.s) < cap(h.s)/4 {
		// Give memory back after a backlog drains.
		h.s = append(make([]qent, 0, cap(h.s)/2), h.s...)
	}
	return x
}

// sizedQueue holds one share's waiting jobs of one instance type, a heap per
// gang size (sizes ascending).
type sizedQueue struct {
	sizes []int32
	heaps []qheap
	n     int
	jobs  *[]job
}

func (q *sizedQueue) push(k int32, x qent) {
	i := 0
	for i < len(q.sizes) && q.sizes[i] < k {
		i++
	}
	if i == len(q.sizes) || q.sizes[i] != k {
		q.sizes = append(q.sizes, 0)
		q.heaps = append(q.heaps, qheap{})
		copy(q.sizes[i+1:], q.sizes[i:])
		copy(q.heaps[i+1:], q.heaps[i:])
		q.sizes[i], q.heaps[i] = k, qheap{jobs: q.jobs}
	}
	q.heaps[i].push(x)
	q.n++
}

func (q *sizedQueue) pop(bucket int) qent {
	q.n--
	return q.heaps[bucket].pop()
}

// remove takes waiting job x (of k instances, at position pos of its heap)
// out of the queue.
func (q *sizedQueue) remove(k int32, pos int32) {
	for i, s := range q.sizes {
		if s == k {
			q.heaps[i].removeAt(int(pos))
			q.n--
			return
		}
	}
}

// firstFit returns the bucket whose head comes first in queue order among
// the heads of size at most room.
func (q *sizedQueue) firstFit(room int) (int, bool) {
	best := -1
	for i, k := range q.sizes {
		if int(k) > room {
			break
		}
		if q.heaps[i].len() > 0 && (best < 0 || waitLess(q.heaps[i].head(), q.heaps[best].head())) {
			best = i
		}
	}
	return best, best >= 0
}

// endHeap holds running jobs (indices into engine.jobs) by the end of their
// attempt, then trace order; each job knows its position (job.endPos).
type endHeap struct {
	s    []int32
	jobs *[]job
}

func (h *endHeap) less(a, b int32) bool {
	ja, jb := &(*h.jobs)[a], &(*h.jobs)[b]
	if ja.end != jb.end {
		return ja.end < jb.end
	}
	return ja.order < jb.order
}

func (h *endHeap) set(i int, x int32) {
	h.s[i] = x
	(*h.jobs)[x].endPos = int32(i)
}

func (h *endHeap) up(i int) {
	x := h.s[i]
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(x, h.s[p]) {
			break
		}
		h.set(i, h.s[p])
		i = p
	}
	h.set(i, x)
}

func (h *endHeap) down(i int) {
	n := len(h.s)
	x := h.s[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if l+1 < n && h.less(h.s[l+1], h.s[l]) {
			m = l + 1
		}
		if !h.less(h.s[m], x) {
			break
		}
		h.set(i, h.s[m])
		i = m
	}
	h.set(i, x)
}

func (h *endHeap) push(x int32) {
	h.s = append(h.s, x)
	h.up(len(h.s) - 1)
}

// remove takes job x out of the heap.
func (h *endHeap) remove(x int32) {
	i := int((*h.jobs)[x].endPos)
	n := len(h.s) - 1
	(*h.jobs)[x].endPos = -1
	if i != n {
		last := h.s[n]
		h.s = h.s[:n]
		h.set(i, last)
		h.down(i)
		h.up(int((*h.jobs)[last].endPos))
		return
	}
	h.s = h.s[:n]
}

func (h *endHeap) len() int { return len(h.s) }

func (h *endHeap) top() int32 { return h.s[0] }

// fenwick sums running instances by scheduling-priority rank, so that the
// instances of a share's jobs below a priority (what in-share preemption
// could free) cost O(log ranks).
type fenwick []int32

func (f fenwick) add(rank int, d int32) {
	for i := rank + 1; i < len(f); i += i & -i {
		f[i] += d
	}
}

// below sums the ranks less than rank.
func (f fenwick) below(rank int) int {
	s := int32(0)
	for i := rank; i > 0; i -= i & -i {
		s += f[i]
	}
	return int(s)
}
