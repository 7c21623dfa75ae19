package batchtest

import "net/http"

// Helpers for the re-router's tests: they change jobs as AWS Batch would
// between two calls (a job starts, an answer is followed by a change).

// SetStatus puts job id in status, as Batch's scheduler would; a job that
// reaches SCHEDULED, STARTING or RUNNING gets a StartedAt if it has none.
// It reports whether the job exists.
func (s *Server) SetStatus(id, status string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.find(id)
	if j == nil {
		return false
	}
	j.Status = status
	switch status {
	case "SCHEDULED", "STARTING", "RUNNING":
		if j.StartedAt == 0 {
			j.StartedAt = s.now().UnixMilli()
		}
	}
	return true
}

// Job returns a copy of job id, and whether it exists.
func (s *Server) Job(id string) (Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.find(id)
	if j == nil {
		return Job{}, false
	}
	return *j, true
}

// OnSubmit makes every later SubmitServiceJob that creates a job call
// then(created) once the job exists and before the answer is sent, so that
// a test can change the queue between a submission and the caller's next
// call (the old job starts while its replacement is being submitted, say).
// Scripted faults still apply (a LoseAnswer fault loses the answer after
// then ran); then may call the Server's methods.
func (s *Server) OnSubmit(then func(created Job)) {
	s.Handle("SubmitServiceJob", func(body []byte) (int, any) {
		s.mu.Lock()
		before := len(s.jobs)
		status, out := s.submit(body)
		var created *Job
		if status == http.StatusOK && len(s.jobs) > before {
			c := *s.jobs[len(s.jobs)-1]
			created = &c
		}
		s.mu.Unlock()
		if created != nil {
			then(*created)
		}
		return status, out
	})
}

// Live returns the jobs that have not ended (neither SUCCEEDED nor
// FAILED), oldest first.
func (s *Server) Live() []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Job
	for _, j := range s.jobs {
		if j.Status != "SUCCEEDED" && j.Status != "FAILED" {
			out = append(out, *j)
		}
	}
	return out
}

// ClearScripts drops every fault scripted and not yet spent.
func (s *Server) ClearScripts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = map[string][]Fault{}
}

// SetStatusReason sets job id's statusReason; it reports whether the job
// exists.
func (s *Server) SetStatusReason(id, reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.find(id)
	if j == nil {
		return false
	}
	j.StatusReason = reason
	return true
}

// SetPriority sets job id's schedulingPriority, as UpdateServiceJob would;
// it reports whether the job exists.
func (s *Server) SetPriority(id string, priority int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.find(id)
	if j == nil {
		return false
	}
	j.Request.SchedulingPriority = &priority
	return true
}

// TagJob adds tags to job id, as TagResource would; it reports whether the
// job exists.
func (s *Server) TagJob(id string, tags map[string]string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.find(id)
	if j == nil {
		return false
	}
	merged := map[string]string{} // a new map: the token record shares the old one
	for k, v := range j.Request.Tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = v
	}
	j.Request.Tags = merged
	return true
}

// SetPayload replaces job id's serviceRequestPayload (a job another
// principal submitted with a payload of its own); it reports whether the
// job exists.
func (s *Server) SetPayload(id, payload string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.find(id)
	if j == nil {
		return false
	}
	j.Request.ServiceRequestPayload = payload
	return true
}

// Pending returns how many of the faults scripted for op (Script) are not
// spent yet.
func (s *Server) Pending(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults[op])
}
