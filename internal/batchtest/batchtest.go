// Package batchtest is the local AWS Batch endpoint of every trainq test
// and benchmark: the service-job operations the functions use (and
// TagResource on service jobs), on the REST-JSON wire format the AWS SDK
// speaks, with
// every request recorded so that tests can check what went over the wire
// (RecordAll collects the requests of every server of a test binary, e.g.
// for a check against AWS's service models). It models what the Batch API
// reference documents and can misbehave on demand: throttling (a
// submissions-per-second limit, or scripted), 500s, slow answers and answers
// lost after the job was created.
//
// Idempotency model: a SubmitServiceJob repeating an earlier clientToken with
// an identical request is rejected with a ClientException (400), as the API
// reference says ("the second request is rejected"). A repeated token with a
// different request is undocumented; the fake takes the worst case and
// creates a second job, so that callers cannot rely on the token alone.
//
// GetJobQueueSnapshot reports the usage SetUsed and SetShareUsed give and
// the front of the queue and of each quota share SetFront gives.
// ListServiceJobs honours jobStatus (without a filter, and without jobStatus
// only RUNNING jobs, as the API reference says), the JOB_NAME,
// QUOTA_SHARE_NAME and SHARE_IDENTIFIER filters, maxResults and nextToken,
// and answers each job as Batch's ServiceJobSummary does (capacityUsage from
// the payload's ResourceConfig once the job is SCHEDULED or later, the
// share, statusReason, startedAt).
//
// A test may replace the fake's own answer to an operation (Handle), e.g. to
// serve recorded answers from files; the call is still recorded and its
// scripted faults still apply.
//
// It is test support: only tests, benchmarks and the end-to-end harness
// import it. It must never import the AWS CDK, jsii or constructs.
package batchtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trainq/trainq/batchrules"
)

// Fault is a scripted misbehaviour for one call.
type Fault struct {
	// Status answers with this HTTP status and no effect (429 is sent as
	// TooManyRequestsException, 403 as AccessDeniedException, 5xx as
	// ServerException) unless Code names another error code.
	Status int
	// Code is the error code sent with Status (X-Amzn-ErrorType).
	Code string
	// Release, when set, holds the call until the channel is closed; the
	// call then takes effect even if the client has given up (a slow answer
	// whose timing the test controls).
	Release <-chan struct{}
	// Done, when set, is closed once the call has been answered and
	// recorded.
	Done chan<- struct{}
	// Delay holds the answer back; the call takes effect after the delay
	// even if the client has given up (a slow answer).
	Delay time.Duration
	// LoseAnswer makes the call take effect, then answers 500: the job
	// exists but the caller does not know it.
	LoseAnswer bool
	// Stale makes ListServiceJobs answer an empty list, as an eventually
	// consistent listing may just after a job was created.
	Stale bool
}

// Throttle and ServerError are the common faults.
var (
	Throttle    = Fault{Status: http.StatusTooManyRequests}
	ServerError = Fault{Status: http.StatusInternalServerError}
)

// Call is one request received.
type Call struct {
	// Op is the operation the path names ("" when it names none, answered
	// 404).
	Op string
	// Method and Path are the request's, the path escaped as on the wire.
	Method, Path string
	// PathParams are the path's labels, decoded (TagResource's
	// resourceArn).
	PathParams map[string]string
	// Query holds the query-string parameters, if any.
	Query map[string][]string
	// Body is the request body as received (JSON for every operation).
	Body   json.RawMessage
	Header http.Header
	// Answer is the HTTP status sent.
	Answer int
	// Label is the label of the server that received the call (see
	// SetLabel), filled in by Recorded.
	Label string
}

// SubmitRequest is SubmitServiceJob's request body as the wire carries it.
type SubmitRequest struct {
	JobName                 string            `json:"jobName"`
	JobQueue                string            `json:"jobQueue"`
	ServiceJobType          string            `json:"serviceJobType"`
	ServiceRequestPayload   string            `json:"serviceRequestPayload"`
	ClientToken             string            `json:"clientToken,omitempty"`
	SchedulingPriority      *int              `json:"schedulingPriority,omitempty"`
	QuotaShareName          *string           `json:"quotaShareName,omitempty"`
	ShareIdentifier         *string           `json:"shareIdentifier,omitempty"`
	RetryStrategy           *RetryStrategy    `json:"retryStrategy,omitempty"`
	TimeoutConfig           *TimeoutConfig    `json:"timeoutConfig,omitempty"`
	PreemptionConfiguration *PreemptionConfig `json:"preemptionConfiguration,omitempty"`
	Tags                    map[string]string `json:"tags,omitempty"`
}

// RetryStrategy, TimeoutConfig and PreemptionConfig are wire sub-objects.
type RetryStrategy struct {
	Attempts int `json:"attempts"`
}
type TimeoutConfig struct {
	AttemptDurationSeconds int `json:"attemptDurationSeconds"`
}
type PreemptionConfig struct {
	PreemptionRetriesBeforeTermination *int `json:"preemptionRetriesBeforeTermination,omitempty"`
}

// Job is a job the fake holds.
type Job struct {
	ID, ARN      string
	Request      SubmitRequest
	Status       string
	StatusReason string
	CreatedAt    int64
	// StartedAt (Unix milliseconds) is reported when set.
	StartedAt  int64
	Terminated bool
}

// Front is one job of the snapshot's frontOfQueue or frontOfQuotaShares:
// its ARN and when it reached its position (Unix milliseconds).
type Front struct {
	JobARN                 string
	EarliestTimeAtPosition int64
}

// Server is the fake endpoint. Its zero value is not usable; call New.
type Server struct {
	*httptest.Server

	mu        sync.Mutex
	label     string
	jobs      []*Job
	byID      map[string]*Job
	tokens    map[string]SubmitRequest
	calls     []Call
	faults    map[string][]Fault
	used      map[string]float64
	shareUsed map[string]map[string]float64
	limit     float64
	tokensAt  time.Time
	available float64
	nextID    int
	now       func() time.Time
	handlers  map[string]Handler
	front     []Front
	frontOf   map[string][]Front
}

// Handler answers one operation in place of the fake's own model: body is
// the request body; the answer is a status and a value encoded as JSON, or
// an Error.
type Handler func(body []byte) (status int, answer any)

// Error is an error answer for a Handler: status, the error code sent as
// X-Amzn-ErrorType (e.g. ClientException) and a message.
func Error(status int, code, message string) (int, any) {
	return status, errorBody{code, message}
}

// Handle makes h answer every later call of op (e.g. "DescribeServiceJob")
// instead of the fake's model of it.
func (s *Server) Handle(op string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[op] = h
}

// New starts a fake on 127.0.0.1. submitsPerSecond > 0 throttles
// SubmitServiceJob like Batch's account limit (a token bucket as deep as
// one second of submissions). Close it when done.
func New(submitsPerSecond float64) *Server {
	s := &Server{byID: map[string]*Job{}, tokens: map[string]SubmitRequest{}, faults: map[string][]Fault{}, used: map[string]float64{}, handlers: map[string]Handler{},
		limit: submitsPerSecond, available: submitsPerSecond, now: time.Now}
	s.tokensAt = s.now()
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	all.mu.Lock()
	if all.on {
		all.servers = append(all.servers, s)
	}
	all.mu.Unlock()
	return s
}

// all is the process-wide record that RecordAll turns on.
var all struct {
	mu      sync.Mutex
	on      bool
	servers []*Server
}

// RecordAll makes every Server created from now on part of the record that
// Recorded returns. A test binary calls it in TestMain, before m.Run, to
// check every request its tests sent; servers are then kept until the
// process ends, so load tests should not call it.
func RecordAll() {
	all.mu.Lock()
	defer all.mu.Unlock()
	all.on = true
}

// Recorded returns the calls received by every Server created since
// RecordAll, server by server in order of creation, each call in order of
// answer and carrying its server's label.
func Recorded() []Call {
	all.mu.Lock()
	servers := append([]*Server(nil), all.servers...)
	all.mu.Unlock()
	var out []Call
	for _, s := range servers {
		s.mu.Lock()
		for _, c := range s.calls {
			c.Label = s.label
			out = append(out, c)
		}
		s.mu.Unlock()
	}
	return out
}

// SetLabel names the server (e.g. after the test that uses it) in the
// calls Recorded returns.
func (s *Server) SetLabel(label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.label = label
}

// Script queues faults for the next calls of op (e.g. "SubmitServiceJob").
func (s *Server) Script(op string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[op] = append(s.faults[op], faults...)
}

// SetUsed sets the instances in use per instance type that
// GetJobQueueSnapshot reports.
func (s *Server) SetUsed(used map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used = used
}

// SetShareUsed sets the instances in use per quota share and instance type
// that GetJobQueueSnapshot reports under
// queueUtilization.quotaShareUtilization.topCapacityUtilization; nil
// leaves the breakdown out of the answer.
func (s *Server) SetShareUsed(used map[string]map[string]float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shareUsed = used
}

// SetClock makes now the fake's clock: the createdAt of submitted jobs,
// Add's default CreatedAt, the snapshot's lastUpdatedAt and the rate limit.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
	s.tokensAt = now()
}

// SetFront sets the jobs GetJobQueueSnapshot lists under
// frontOfQueue.jobs (in order) and frontOfQuotaShares.quotaShares (by
// share); nil leaves each out of the answer.
func (s *Server) SetFront(queue []Front, shares map[string][]Front) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.front, s.frontOf = queue, shares
}

// Calls returns the requests received for op ("" for all, including those
// to paths that name no operation), in order of answer.
func (s *Server) Calls(op string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if op == "" || c.Op == op {
			out = append(out, c)
		}
	}
	return out
}

// Jobs returns copies of the jobs created, oldest first.
func (s *Server) Jobs() []Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Job, len(s.jobs))
	for i, j := range s.jobs {
		out[i] = *j
	}
	return out
}

// Add puts j among the fake's jobs, as if it had been submitted and had
// since reached j.Status, and returns it with its id and ARN (given ones
// are kept). Status defaults to SUBMITTED, CreatedAt to now.
func (s *Server) Add(j Job) Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	if j.ID == "" {
		j.ID = fmt.Sprintf("%08x-0000-4000-8000-%012x", s.nextID, s.nextID)
	}
	if j.ARN == "" {
		j.ARN = s.serviceJobARN(j.Request.JobQueue, j.ID)
	}
	if j.Status == "" {
		j.Status = "SUBMITTED"
	}
	if j.CreatedAt == 0 {
		j.CreatedAt = s.now().UnixMilli()
	}
	if j.Request.ServiceJobType == "" {
		j.Request.ServiceJobType = "SAGEMAKER_TRAINING"
	}
	added := j
	s.keep(&added)
	return j
}

// routes are the operations served, as the Batch API reference binds them
// (all POST): a path of literal segments and {labels}.
var routes = []struct{ op, path string }{
	{"SubmitServiceJob", "/v1/submitservicejob"},
	{"DescribeServiceJob", "/v1/describeservicejob"},
	{"ListServiceJobs", "/v1/listservicejobs"},
	{"TerminateServiceJob", "/v1/terminateservicejob"},
	{"UpdateServiceJob", "/v1/updateservicejob"},
	{"GetJobQueueSnapshot", "/v1/getjobqueuesnapshot"},
	{"TagResource", "/v1/tags/{resourceArn}"},
}

// route finds the operation at an escaped path and decodes its labels.
func route(escaped string) (string, map[string]string) {
	got := strings.Split(escaped, "/")
	for _, rt := range routes {
		want := strings.Split(rt.path, "/")
		if len(want) != len(got) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, seg := range want {
			if name, isLabel := strings.CutPrefix(seg, "{"); isLabel {
				v, err := url.PathUnescape(got[i])
				if err != nil || v == "" {
					ok = false
					break
				}
				params[strings.TrimSuffix(name, "}")] = v
			} else if seg != got[i] {
				ok = false
				break
			}
		}
		if ok {
			if len(params) == 0 {
				params = nil
			}
			return rt.op, params
		}
	}
	return "", nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	op, params := route(r.URL.EscapedPath())
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	call := Call{Op: op, Method: r.Method, Path: r.URL.EscapedPath(), PathParams: params, Body: body, Header: r.Header.Clone()}
	if q := r.URL.Query(); len(q) > 0 {
		call.Query = q
	}
	if op == "" || r.Method != http.MethodPost {
		s.record(call, http.StatusNotFound)
		writeError(w, http.StatusNotFound, "UnknownOperationException", "no operation at "+r.Method+" "+r.URL.Path)
		return
	}
	s.mu.Lock()
	var fault Fault
	if f := s.faults[op]; len(f) > 0 {
		fault, s.faults[op] = f[0], f[1:]
	}
	if op == "SubmitServiceJob" && fault.Status == 0 && !s.take() {
		fault = Throttle
	}
	s.mu.Unlock()

	if fault.Done != nil {
		defer close(fault.Done)
	}
	if fault.Delay > 0 {
		time.Sleep(fault.Delay)
	}
	if fault.Release != nil {
		<-fault.Release
	}
	if fault.Status != 0 {
		s.record(call, fault.Status)
		code := fault.Code
		switch {
		case code != "":
		case fault.Status == http.StatusTooManyRequests:
			code = "TooManyRequestsException"
		case fault.Status == http.StatusForbidden:
			code = "AccessDeniedException"
		default:
			code = "ServerException"
		}
		writeError(w, fault.Status, code, http.StatusText(fault.Status))
		return
	}
	status, out := s.do(op, params, body)
	if fault.Stale && op == "ListServiceJobs" && status == http.StatusOK {
		out = map[string]any{"jobSummaryList": []any{}}
	}
	if fault.LoseAnswer && status == http.StatusOK {
		status, out = http.StatusInternalServerError, errorBody{"ServerException", "answer lost"}
	}
	s.record(call, status)
	if e, ok := out.(errorBody); ok {
		writeError(w, status, e.code, e.message)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

func (s *Server) record(c Call, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Answer = status
	s.calls = append(s.calls, c)
}

// take spends one submission from the rate limit's bucket (mu held).
func (s *Server) take() bool {
	if s.limit <= 0 {
		return true
	}
	now := s.now()
	s.available += now.Sub(s.tokensAt).Seconds() * s.limit
	if s.available > s.limit {
		s.available = s.limit
	}
	s.tokensAt = now
	if s.available < 1 {
		return false
	}
	s.available--
	return true
}

type errorBody struct{ code, message string }

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": message})
}

func clientError(format string, args ...any) (int, any) {
	return http.StatusBadRequest, errorBody{"ClientException", fmt.Sprintf(format, args...)}
}

func (s *Server) do(op string, params map[string]string, body []byte) (int, any) {
	s.mu.Lock()
	h := s.handlers[op]
	s.mu.Unlock()
	if h != nil {
		return h(body)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch op {
	case "SubmitServiceJob":
		return s.submit(body)
	case "DescribeServiceJob":
		var in struct {
			JobID string `json:"jobId"`
		}
		if json.Unmarshal(body, &in) != nil {
			return clientError("malformed request")
		}
		j := s.find(in.JobID)
		if j == nil {
			return clientError("Job %s not found", in.JobID)
		}
		return http.StatusOK, describe(j)
	case "ListServiceJobs":
		return s.list(body)
	case "TerminateServiceJob":
		var in struct{ JobID, Reason string }
		if json.Unmarshal(body, &in) != nil || s.find(in.JobID) == nil {
			return clientError("Job %s not found", in.JobID)
		}
		j := s.find(in.JobID)
		j.Status, j.StatusReason, j.Terminated = "FAILED", in.Reason, true
		return http.StatusOK, map[string]any{}
	case "UpdateServiceJob":
		var in struct {
			JobID              string `json:"jobId"`
			SchedulingPriority *int   `json:"schedulingPriority"`
		}
		if json.Unmarshal(body, &in) != nil || s.find(in.JobID) == nil {
			return clientError("Job %s not found", in.JobID)
		}
		j := s.find(in.JobID)
		if j.Status == "SUCCEEDED" || j.Status == "FAILED" {
			return clientError("Job %s is in status %s and cannot be updated", in.JobID, j.Status)
		}
		j.Request.SchedulingPriority = in.SchedulingPriority
		return http.StatusOK, map[string]any{"jobId": j.ID, "jobArn": j.ARN, "jobName": j.Request.JobName}
	case "GetJobQueueSnapshot":
		usage := []map[string]any{}
		types := make([]string, 0, len(s.used))
		for t := range s.used {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			usage = append(usage, map[string]any{"capacityUnit": t, "quantity": s.used[t]})
		}
		qu := map[string]any{"totalCapacityUsage": usage, "lastUpdatedAt": s.now().UnixMilli()}
		if s.shareUsed != nil {
			shares := make([]string, 0, len(s.shareUsed))
			for name := range s.shareUsed {
				shares = append(shares, name)
			}
			sort.Strings(shares)
			top := []map[string]any{}
			for _, name := range shares {
				per := []map[string]any{}
				types := make([]string, 0, len(s.shareUsed[name]))
				for t := range s.shareUsed[name] {
					types = append(types, t)
				}
				sort.Strings(types)
				for _, t := range types {
					per = append(per, map[string]any{"capacityUnit": t, "quantity": s.shareUsed[name][t]})
				}
				top = append(top, map[string]any{"quotaShareName": name, "capacityUsage": per})
			}
			qu["quotaShareUtilization"] = map[string]any{"topCapacityUtilization": top}
		}
		out := map[string]any{"queueUtilization": qu}
		if s.front != nil {
			out["frontOfQueue"] = map[string]any{"jobs": fronts(s.front), "lastUpdatedAt": s.now().UnixMilli()}
		}
		if s.frontOf != nil {
			shares := map[string]any{}
			for name, list := range s.frontOf {
				shares[name] = fronts(list)
			}
			out["frontOfQuotaShares"] = map[string]any{"quotaShares": shares, "lastUpdatedAt": s.now().UnixMilli()}
		}
		return http.StatusOK, out
	case "TagResource":
		var in struct {
			Tags map[string]string `json:"tags"`
		}
		if json.Unmarshal(body, &in) != nil || len(in.Tags) == 0 {
			return clientError("tags: one to 50 tags are required")
		}
		j := s.findARN(params["resourceArn"])
		if j == nil {
			return clientError("Resource %s not found", params["resourceArn"])
		}
		tags := map[string]string{} // a new map: the token record shares the old one
		for k, v := range j.Request.Tags {
			tags[k] = v
		}
		for k, v := range in.Tags {
			tags[k] = v
		}
		j.Request.Tags = tags
		return http.StatusOK, map[string]any{}
	}
	return clientError("unsupported operation %s", op)
}

func (s *Server) submit(body []byte) (int, any) {
	var in SubmitRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return clientError("malformed request: %v", err)
	}
	if in.JobName == "" || in.JobQueue == "" || in.ServiceJobType != "SAGEMAKER_TRAINING" || in.ServiceRequestPayload == "" {
		return clientError("jobName, jobQueue, serviceJobType=SAGEMAKER_TRAINING and serviceRequestPayload are required")
	}
	if len(in.ServiceRequestPayload) > batchrules.MaxServiceRequestPayloadBytes {
		return clientError("serviceRequestPayload is %d bytes, over the 10 KiB limit", len(in.ServiceRequestPayload))
	}
	if len(in.ClientToken) > batchrules.MaxClientTokenLength {
		return clientError("clientToken is longer than 64 characters")
	}
	if (in.QuotaShareName == nil) == (in.ShareIdentifier == nil) {
		return clientError("exactly one of quotaShareName and shareIdentifier is required on this queue")
	}
	if in.ClientToken != "" {
		if prev, ok := s.tokens[in.ClientToken]; ok && reflect.DeepEqual(prev, in) {
			return clientError("Idempotent request with clientToken %s was already received", in.ClientToken)
		}
		s.tokens[in.ClientToken] = in
	}
	s.nextID++
	id := fmt.Sprintf("%08x-0000-4000-8000-%012x", s.nextID, s.nextID)
	j := &Job{ID: id, ARN: s.serviceJobARN(in.JobQueue, id), Request: in,
		Status: "SUBMITTED", CreatedAt: s.now().UnixMilli()}
	s.keep(j)
	return http.StatusOK, map[string]any{"jobId": j.ID, "jobArn": j.ARN, "jobName": in.JobName}
}

// serviceJobARN is the ARN of job id submitted to queue: in the queue's
// Region and account, or us-east-1 and 123456789012 for a queue given by
// name.
func (s *Server) serviceJobARN(queue, id string) string {
	q, err := batchrules.ParseJobQueueARN(queue)
	if err != nil {
		q = batchrules.JobQueueARN{Partition: "aws", Region: "us-east-1", Account: "123456789012"}
	}
	return q.ServiceJobARN(id)
}

func (s *Server) findARN(arn string) *Job {
	for _, j := range s.jobs {
		if j.ARN == arn {
			return j
		}
	}
	return nil
}

// keep adds j to the jobs, and to the index by id unless an earlier job
// has its id (find answers the first) (mu held).
func (s *Server) keep(j *Job) {
	s.jobs = append(s.jobs, j)
	if _, dup := s.byID[j.ID]; !dup {
		s.byID[j.ID] = j
	}
}

func (s *Server) find(id string) *Job { return s.byID[id] }

func fronts(list []Front) []map[string]any {
	out := []map[string]any{}
	for _, f := range list {
		out = append(out, map[string]any{"jobArn": f.JobARN, "earliestTimeAtPosition": f.EarliestTimeAtPosition})
	}
	return out
}

// list answers ListServiceJobs: the queue's jobs, most recent first, of
// jobStatus (RUNNING without one) unless a JOB_NAME filter is given (any
// status); QUOTA_SHARE_NAME and SHARE_IDENTIFIER filters combine with
// jobStatus, as the API reference says. Pages hold maxResults jobs (100
// without it); nextToken is the offset of the next page.
func (s *Server) list(body []byte) (int, any) {
	var in struct {
		JobQueue   string `json:"jobQueue"`
		JobStatus  string `json:"jobStatus"`
		MaxResults int    `json:"maxResults"`
		NextToken  string `json:"nextToken"`
		Filters    []struct {
			Name   string   `json:"name"`
			Values []string `json:"values"`
		} `json:"filters"`
	}
	if json.Unmarshal(body, &in) != nil || len(in.Filters) > 1 {
		return clientError("malformed request or more than one filter")
	}
	status := in.JobStatus
	if status == "" {
		status = "RUNNING"
	}
	var filter, value string
	if len(in.Filters) == 1 && len(in.Filters[0].Values) == 1 {
		filter, value = in.Filters[0].Name, in.Filters[0].Values[0]
	}
	if filter == "JOB_NAME" {
		status = ""
	}
	var out []*Job
	for i := len(s.jobs) - 1; i >= 0; i-- { // most recent first
		j := s.jobs[i]
		if in.JobQueue != "" && j.Request.JobQueue != in.JobQueue {
			continue
		}
		if status != "" && j.Status != status {
			continue
		}
		switch filter {
		case "JOB_NAME":
			v := strings.ToLower(value)
			name := strings.ToLower(j.Request.JobName)
			if p, ok := strings.CutSuffix(v, "*"); ok {
				if !strings.HasPrefix(name, p) {
					continue
				}
			} else if name != v {
				continue
			}
		case "QUOTA_SHARE_NAME":
			if j.Request.QuotaShareName == nil || *j.Request.QuotaShareName != value {
				continue
			}
		case "SHARE_IDENTIFIER":
			if j.Request.ShareIdentifier == nil || *j.Request.ShareIdentifier != value {
				continue
			}
		}
		out = append(out, j)
	}
	size := in.MaxResults
	if size <= 0 || size > 100 {
		size = 100
	}
	from := 0
	if in.NextToken != "" {
		n, err := strconv.Atoi(in.NextToken)
		if err != nil || n < 0 || n > len(out) {
			return clientError("nextToken %q is not one this endpoint gave", in.NextToken)
		}
		from = n
	}
	answer := map[string]any{}
	if to := from + size; to < len(out) {
		answer["nextToken"] = strconv.Itoa(to)
		out = out[from:to]
	} else {
		out = out[from:]
	}
	page := []map[string]any{}
	for _, j := range out {
		page = append(page, summary(j))
	}
	answer["jobSummaryList"] = page
	return http.StatusOK, answer
}

// summary is j as a ServiceJobSummary.
func summary(j *Job) map[string]any {
	out := map[string]any{"jobId": j.ID, "jobArn": j.ARN, "jobName": j.Request.JobName,
		"serviceJobType": "SAGEMAKER_TRAINING", "status": j.Status, "createdAt": j.CreatedAt}
	if j.StatusReason != "" {
		out["statusReason"] = j.StatusReason
	}
	if j.StartedAt != 0 {
		out["startedAt"] = j.StartedAt
	}
	if j.Request.QuotaShareName != nil {
		out["quotaShareName"] = *j.Request.QuotaShareName
	}
	if j.Request.ShareIdentifier != nil {
		out["shareIdentifier"] = *j.Request.ShareIdentifier
	}
	switch j.Status {
	case "SCHEDULED", "STARTING", "RUNNING":
		var tj struct {
			ResourceConfig struct {
				InstanceType  string
				InstanceCount float64
			}
		}
		if json.Unmarshal([]byte(j.Request.ServiceRequestPayload), &tj) == nil && tj.ResourceConfig.InstanceType != "" {
			out["capacityUsage"] = []map[string]any{{"capacityUnit": tj.ResourceConfig.InstanceType, "quantity": tj.ResourceConfig.InstanceCount}}
		}
	}
	return out
}

func describe(j *Job) map[string]any {
	r := j.Request
	out := map[string]any{
		"jobId": j.ID, "jobArn": j.ARN, "jobName": r.JobName, "jobQueue": r.JobQueue,
		"serviceJobType": r.ServiceJobType, "serviceRequestPayload": r.ServiceRequestPayload,
		"status": j.Status, "createdAt": j.CreatedAt, "isTerminated": j.Terminated, "tags": r.Tags,
	}
	if j.StatusReason != "" {
		out["statusReason"] = j.StatusReason
	}
	if j.StartedAt != 0 {
		out["startedAt"] = j.StartedAt
	}
	if r.SchedulingPriority != nil {
		out["schedulingPriority"] = *r.SchedulingPriority
	}
	if r.QuotaShareName != nil {
		out["quotaShareName"] = *r.QuotaShareName
	}
	if r.ShareIdentifier != nil {
		out["shareIdentifier"] = *r.ShareIdentifier
	}
	if r.RetryStrategy != nil {
		out["retryStrategy"] = r.RetryStrategy
	}
	if r.TimeoutConfig != nil {
		out["timeoutConfig"] = r.TimeoutConfig
	}
	if r.PreemptionConfiguration != nil {
		out["preemptionConfiguration"] = r.PreemptionConfiguration
	}
	return out
}
