package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/trainq/trainq/batchrules"
)

// Actions a request may name in its action field.
const (
	ActionSubmit       = "submit"
	ActionDescribe     = "describe"
	ActionCancel       = "cancel"
	ActionReprioritize = "reprioritize"
)

// Actions lists every action, the default (submit) first.
func Actions() []string {
	return []string{ActionSubmit, ActionDescribe, ActionCancel, ActionReprioritize, ActionQueue, ActionUsage, ActionHistory, ActionExport, ActionBudgets}
}

// Request is what callers send to the submission function. Field names are
// a public contract, documented in docs/submission.md.
type Request struct {
	// Action is submit (the default), describe, cancel, reprioritize or
	// queue (ActionQueue, in queue.go).
	Action string `json:"action,omitempty"`
	// JobID names the job of describe, cancel and reprioritize.
	JobID string `json:"jobId,omitempty"`
	// JobName is the job's name (submit; required).
	JobName string `json:"jobName,omitempty"`
	// Team is the team whose share the job uses (submit; required).
	Team string `json:"team,omitempty"`
	// Class is the priority class. Required when the function is invoked
	// unqualified; through a (class, team) alias it may be omitted and must
	// otherwise equal the alias's.
	Class string `json:"class,omitempty"`
	// Priority (0–99) places the job inside its class's band
	// (submit, reprioritize). Default: 50.
	Priority *int `json:"priority,omitempty"`
	// IdempotencyKey makes retries safe: the same key (for the same team)
	// never yields two jobs. Default: the Lambda request id.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// InstanceTypes is a fallback order; the first with headroom is used.
	InstanceTypes []string `json:"instanceTypes,omitempty"`
	// TrainingJob is a SageMaker CreateTrainingJob request (submit; required).
	TrainingJob json.RawMessage `json:"trainingJob,omitempty"`
	// MaxRuntimeSeconds lowers the class's maximum runtime of one attempt.
	MaxRuntimeSeconds *int `json:"maxRuntimeSeconds,omitempty"`
	// Retries lowers the class's number of retries after a failure.
	Retries *int `json:"retries,omitempty"`
	// Tags are added to the Batch job (keys starting with trainq: or aws: are
	// reserved).
	Tags map[string]string `json:"tags,omitempty"`
	// Reason is recorded when a job is cancelled.
	Reason string `json:"reason,omitempty"`
	// Since and Until bound the window of usage (RFC 3339, or a UTC day
	// 2006-01-02), Period cuts it by day or month (usage.go).
	Since  string `json:"since,omitempty"`
	Until  string `json:"until,omitempty"`
	Period string `json:"period,omitempty"`
	// Teams, Classes and States keep the history's jobs of these teams,
	// classes and outcomes (each at most MaxHistoryFilters; empty: all);
	// Cursor asks for the page after the one whose Next it is (history,
	// export; ledger.go).
	Teams   []string `json:"teams,omitempty"`
	Classes []string `json:"classes,omitempty"`
	States  []string `json:"states,omitempty"`
	Cursor  string   `json:"cursor,omitempty"`
}

// Response answers every action. Submit fills the first eight fields;
// describe adds the job's status and times.
type Response struct {
	JobID              string `json:"jobId"`
	JobARN             string `json:"jobArn,omitempty"`
	JobName            string `json:"jobName,omitempty"`
	JobQueue           string `json:"jobQueue,omitempty"`
	Team               string `json:"team,omitempty"`
	Class              string `json:"class,omitempty"`
	SchedulingPriority int    `json:"schedulingPriority"`
	InstanceType       string `json:"instanceType,omitempty"`
	// Existing is true when an earlier submission with the same idempotency
	// key already created the job, which is returned instead of a new one.
	Existing bool `json:"existing,omitempty"`
	// Status and the times are set by describe (and cancel).
	Status       string `json:"status,omitempty"`
	StatusReason string `json:"statusReason,omitempty"`
	CreatedAt    string `json:"createdAt,omitempty"`
	StartedAt    string `json:"startedAt,omitempty"`
	StoppedAt    string `json:"stoppedAt,omitempty"`
	// ReroutedFrom and Moves are a described job's lineage when the
	// re-router made it: the id of the job it replaced and how many times
	// its lineage has moved (tags TagReroutedFrom, TagMoves).
	ReroutedFrom string `json:"reroutedFrom,omitempty"`
	Moves        int    `json:"moves,omitempty"`
	// MovedTo and MovedToInstanceType are, for a job the re-router ended
	// because it moved, the job that replaced it and its instance type
	// (read from its status reason, ReroutedReason).
	MovedTo             string `json:"movedTo,omitempty"`
	MovedToInstanceType string `json:"movedToInstanceType,omitempty"`
	// Explanation says why a described job waits (queue.go).
	Explanation *Explanation `json:"explanation,omitempty"`
	// Queue is the queue action's answer (queue.go).
	Queue *QueueView `json:"queue,omitempty"`
	// Usage is the usage action's answer (usage.go).
	Usage *UsageView `json:"usage,omitempty"`
	// History and Trace are the history and export actions' answers
	// (ledger.go).
	History *HistoryView `json:"history,omitempty"`
	Trace   *TraceView   `json:"trace,omitempty"`
	// Budgets are, in a submission's answer, the team's budgets that count
	// the job's instance type (budget.go); BudgetAction what they did to
	// it past 100% (alarm or lower-priority: a refused job gets an
	// OverBudget error instead).
	Budgets      []BudgetView `json:"budgets,omitempty"`
	BudgetAction string       `json:"budgetAction,omitempty"`
}

// Limits of a request.
const (
	// MaxRequestBytes bounds the whole request read by the function.
	MaxRequestBytes = 64 * 1024
	// JobNameSuffixLength is the number of hex digits of the idempotency
	// token that the function appends (after a '-') to a job's name.
	JobNameSuffixLength = 8
	// MaxJobNameLength leaves room for the idempotency suffix in AWS Batch's
	// 128-character job names: 128 - 1 - 8 = 119.
	MaxJobNameLength = batchrules.MaxNameLength - len("-") - JobNameSuffixLength
	// MaxIdempotencyKeyLength bounds idempotency keys.
	MaxIdempotencyKeyLength = 256
	// MaxCallerTags leaves room in AWS Batch's 50 tags for trainq's own
	// four (Tags) and the three it may add later (LaterTags: who
	// re-prioritized the job, and a moved job's lineage): 50 - 4 - 3 = 43.
	MaxCallerTags = batchrules.MaxTags - 4 - 3
)

// requestFields maps each JSON key of a request to its Go field index. It
// is built at its first use: of the functions that link this package, only
// the submission function decodes requests.
var requestFields = sync.OnceValue(func() map[string]int {
	t := reflect.TypeOf(Request{})
	out := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = i
	}
	return out
})

// DecodeRequest decodes a request strictly, naming every unknown key and
// every value of the wrong JSON type at once. Member names are
// case-sensitive, a name given twice (at any level, the training job's
// included) is refused, and the request may nest at most MaxRequestDepth
// levels (CheckJSON). It never fails on well-formed JSON whose fields are
// merely wrong; those come back as problems.
func DecodeRequest(data []byte) (Request, Problems) {
	var ps Problems
	var req Request
	if len(data) > MaxRequestBytes {
		ps.Addf("request", fmt.Sprintf("%d bytes", len(data)), "at most %d bytes", MaxRequestBytes)
		return req, ps
	}
	if p := CheckJSON(data, MaxRequestDepth); p != nil {
		field := p.Path
		if field == "" {
			field = "request"
		}
		if strings.HasPrefix(p.What, "JSON nested") {
			ps.Addf(field, Shown(p.What), "at most %d levels of nesting", MaxRequestDepth)
			return req, ps
		}
		if p.Text {
			// Decoding would put U+FFFD in its place: the job would run
			// with a value the caller never sent.
			ps.Add(field, Shown(p.What), "valid Unicode text (UTF-8, surrogate escapes only in pairs), never repaired silently")
			return req, ps
		}
		ps.Add(field, Shown(p.What), "each member once (names are case-sensitive; a repeated one is never silently dropped)")
	}
	members, err := SplitObject(data)
	if err != nil || !json.Valid(data) {
		ps.Add("request", Shown(DescribeJSON(data)), "a JSON object such as {\"jobName\": ..., \"team\": ..., \"trainingJob\": {...}}")
		return req, ps
	}
	sort.SliceStable(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	v := reflect.ValueOf(&req).Elem()
	for _, m := range members {
		k := m.Name
		i, ok := requestFields()[k]
		if !ok {
			known := make([]string, 0, len(requestFields()))
			for name := range requestFields() {
				known = append(known, name)
			}
			sort.Strings(known)
			ps.Addf(k, Shown("an unknown field"), "one of: %s", strings.Join(known, ", "))
			continue
		}
		f := v.Field(i)
		raw := bytes.TrimSpace(m.Value)
		if bytes.Equal(raw, []byte("null")) {
			continue
		}
		if k == "trainingJob" {
			if !bytes.HasPrefix(raw, []byte("{")) {
				ps.Add(k, Shown(DescribeJSON(raw)), wantedJSON(f.Type()))
				continue
			}
			req.TrainingJob = append(json.RawMessage(nil), raw...)
			continue
		}
		if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
			f.Set(reflect.Zero(f.Type()))
			ps.Add(k, Shown(DescribeJSON(raw)), wantedJSON(f.Type()))
		}
	}
	return req, ps
}

// DescribeJSON names the kind of a JSON value for a message: "an object",
// "a list", a quoted string (cut at MaxShownChars), "null", the number or
// literal itself (cut at 40 characters), "JSON nested more than
// MaxRequestDepth levels deep", or "text that is not JSON".
func DescribeJSON(data []byte) string {
	if p := CheckJSON(data, MaxRequestDepth); p != nil && strings.HasPrefix(p.What, "JSON nested") {
		return p.What
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber() // 1e400 is JSON, if beyond any float64
	if err := d.Decode(&v); err != nil || d.More() {
		return "text that is not JSON"
	}
	switch v := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return Show(Cut(v, MaxShownChars))
	case nil:
		return "null"
	}
	return Cut(string(bytes.TrimSpace(data)), 40)
}

func wantedJSON(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(json.RawMessage{}):
		return "a JSON object (a SageMaker CreateTrainingJob request)"
	case reflect.TypeOf(map[string]string{}):
		return "an object of string values"
	case reflect.TypeOf([]string{}):
		return "a list of strings"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "an integer written with digits only, such as 50"
	case reflect.String:
		return "a string"
	}
	return t.String()
}
