// Package plan says what deploying one synthesized template over another
// would do in AWS, without an account: which resources CloudFormation adds,
// updates in place, replaces (a create-only property changes, or a resource
// it depends on for one is replaced), deletes or keeps, and which changes
// AWS refuses (a scheduling policy's kind, a custom-named resource that
// must be replaced) — riskiest first, each with what it does to the jobs of
// the queue, from AWS's documentation. `trainq plan` prints it.
//
// Which properties are create-only comes from the CloudFormation registry
// schemas (createonly.go). It is run-time code: it must never import the
// AWS CDK, jsii or constructs, nor anything of trainq.
package plan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Template is the part of a CloudFormation template a plan reads.
type Template struct {
	Resources map[string]Resource `json:"Resources"`
}

// Resource is one resource of a template.
type Resource struct {
	Type                string         `json:"Type"`
	Properties          map[string]any `json:"Properties"`
	DeletionPolicy      string         `json:"DeletionPolicy"`
	UpdateReplacePolicy string         `json:"UpdateReplacePolicy"`
}

// ParseTemplate reads a CloudFormation template in JSON.
func ParseTemplate(data []byte) (*Template, error) {
	var t Template
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	if len(t.Resources) == 0 {
		return nil, fmt.Errorf("read template: no Resources")
	}
	return &t, nil
}

// Action is what CloudFormation does to a resource.
type Action string

// Actions, from riskiest to safest.
const (
	Refused   Action = "refused"
	Replace   Action = "replace"
	Delete    Action = "delete"
	Retain    Action = "retain"
	Update    Action = "update"
	Add       Action = "add"
	Unchanged Action = "unchanged"
)

// Change is what happens to one resource.
type Change struct {
	LogicalID string `json:"logicalId"`
	Type      string `json:"type"`
	Action    Action `json:"action"`
	// Properties are the properties whose values differ.
	Properties []string `json:"properties,omitempty"`
	// Why says why it is replaced or refused.
	Why string `json:"why,omitempty"`
	// Effect is what the change does to jobs or data, from AWS's
	// documentation, where it matters.
	Effect string `json:"effect,omitempty"`
	// risk orders the changes: lower first.
	risk int
	// gone marks a deletion shown as its replacement's.
	gone bool
}

// Plan is every change of a deployment, riskiest first, and how many
// resources stay as they are.
type Plan struct {
	Changes   []Change       `json:"changes"`
	Unchanged int            `json:"unchanged"`
	Counts    map[Action]int `json:"counts"`
}

// Refuses reports whether AWS would refuse part of the change.
func (p *Plan) Refuses() bool { return p.Counts[Refused] > 0 }

// Diff plans deploying next over prev.
func Diff(prev, next *Template) *Plan {
	changes := map[string]*Change{}
	var ids []string
	for id := range prev.Resources {
		ids = append(ids, id)
	}
	for id := range next.Resources {
		if _, ok := prev.Resources[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		o, inOld := prev.Resources[id]
		n, inNew := next.Resources[id]
		c := &Change{LogicalID: id, Type: n.Type}
		switch {
		case !inOld:
			c.Action = Add
		case !inNew:
			c.Type, c.Action = o.Type, Delete
			if o.DeletionPolicy == "Retain" || o.DeletionPolicy == "RetainExceptOnCreate" {
				c.Action = Retain
				c.Effect = "DeletionPolicy " + o.DeletionPolicy + ": removed from the stack, kept in the account (delete it by hand when no longer needed)"
			}
		case o.Type != n.Type:
			c.Action, c.Why = Replace, fmt.Sprintf("its type changes from %s", o.Type)
		default:
			c.Properties = changedProperties(o.Properties, n.Properties)
			c.Action = Unchanged
			if len(c.Properties) > 0 {
				c.Action = Update
			}
			if p := changedCreateOnly(n.Type, o.Properties, n.Properties); len(p) > 0 {
				c.Action, c.Why = Replace, "create-only "+plural("property", p)+" "+strings.Join(p, ", ")+" changes"
			}
		}
		changes[id] = c
	}
	propagate(prev, next, changes)
	refuse(prev, next, changes)
	pairRenames(ids, changes)
	plan := &Plan{Counts: map[Action]int{}}
	for _, id := range ids {
		c := changes[id]
		if c.gone {
			continue
		}
		if c.Action == Unchanged {
			plan.Unchanged++
			continue
		}
		if c.Effect == "" {
			c.Effect = effect(c.Type, c.Action)
		}
		c.risk = risk(c)
		plan.Counts[c.Action]++
		plan.Changes = append(plan.Changes, *c)
	}
	plan.Counts[Unchanged] = plan.Unchanged
	sort.SliceStable(plan.Changes, func(i, j int) bool { return plan.Changes[i].risk < plan.Changes[j].risk })
	return plan
}

// pairRenames shows a resource whose logical id changes (a team or class
// renamed) as the replacement it is: when a type has exactly one deletion
// and one addition, CloudFormation creates the new one and deletes the old.
func pairRenames(ids []string, changes map[string]*Change) {
	deleted, added := map[string][]string{}, map[string][]string{}
	for _, id := range ids {
		switch c := changes[id]; c.Action {
		case Delete:
			deleted[c.Type] = append(deleted[c.Type], id)
		case Add:
			added[c.Type] = append(added[c.Type], id)
		}
	}
	for typ, d := range deleted {
		if a := added[typ]; len(d) == 1 && len(a) == 1 {
			c := changes[a[0]]
			c.Action, c.Why = Replace, fmt.Sprintf("its logical id changes from %s (a renamed team, class or construct): the new one is created, then %s is deleted", d[0], d[0])
			changes[d[0]].Action = Unchanged
			changes[d[0]].gone = true
		}
	}
}

// propagate replaces a resource whose create-only property refers to a
// replaced one (its physical id changes, so the value does), and updates
// one whose other properties do; until nothing more changes.
func propagate(prev, next *Template, changes map[string]*Change) {
	for changed := true; changed; {
		changed = false
		for id, c := range changes {
			if c.Action != Unchanged && c.Action != Update {
				continue
			}
			n := next.Resources[id]
			for prop, v := range n.Properties {
				for _, dep := range refs(v) {
					d, ok := changes[dep]
					if !ok || d.Action != Replace {
						continue
					}
					if isCreateOnly(n.Type, prop) {
						c.Action, c.Why = Replace, fmt.Sprintf("create-only property %s refers to %s, which is replaced", prop, dep)
					} else if c.Action == Unchanged {
						c.Action, c.Why = Update, fmt.Sprintf("%s refers to %s, which is replaced", prop, dep)
						c.Properties = append(c.Properties, prop)
					}
					changed = true
				}
			}
		}
	}
}

// refuse marks the changes AWS refuses.
func refuse(prev, next *Template, changes map[string]*Change) {
	for id, c := range changes {
		o, n := prev.Resources[id], next.Resources[id]
		// A scheduling policy's kind is permanent.
		if c.Type == "AWS::Batch::SchedulingPolicy" && (c.Action == Update || c.Action == Replace) {
			if ok, nk := policyKind(o), policyKind(n); ok != "" && nk != "" && ok != nk {
				c.Action = Refused
				c.Why = fmt.Sprintf("the scheduling policy changes from %s to %s: AWS Batch keeps a policy's kind (UpdateSchedulingPolicy: "+
					"\"Once set during creation, a quotaSharePolicy cannot be removed or changed to a fairsharePolicy\", and the reverse); "+
					"a new kind needs a new queue: deploy the new platform under another name, move the teams over, then destroy the old stack", ok, nk)
			}
		}
		// A queue's policy can be replaced, not removed.
		if c.Type == "AWS::Batch::JobQueue" && c.Action == Update && o.Properties["SchedulingPolicyArn"] != nil && n.Properties["SchedulingPolicyArn"] == nil {
			c.Action = Refused
			c.Why = "the queue loses its scheduling policy: AWS Batch lets a queue's scheduling policy be replaced, never removed (UpdateJobQueue)"
		}
		// CloudFormation cannot replace a resource whose custom name stays.
		if c.Action == Replace {
			if name := sameCustomName(c.Type, o, n); name != "" {
				c.Why += fmt.Sprintf("; but its name %s stays, and CloudFormation cannot replace a resource with a custom name (the new one would need the name first): "+
					"give it a new name, or delete it in one deployment and add it in the next", name)
				c.Action = Refused
			}
		}
	}
}

// sameCustomName is the create-only name property (…Name) that both
// versions give the same literal value, or "".
func sameCustomName(typ string, o, n Resource) string {
	for _, ptr := range createOnlyOf(typ) {
		prop := strings.TrimPrefix(ptr, "/properties/")
		if !strings.HasSuffix(prop, "Name") || strings.Contains(prop, "/") {
			continue
		}
		ov, nv := o.Properties[prop], n.Properties[prop]
		if s, ok := nv.(string); ok && reflect.DeepEqual(ov, nv) {
			return fmt.Sprintf("%s %q", prop, s)
		}
	}
	return ""
}

// policyKind is "fair share" or "quota share" for a scheduling policy.
func policyKind(r Resource) string {
	switch {
	case r.Properties["FairsharePolicy"] != nil:
		return "fair share"
	case r.Properties["QuotaSharePolicy"] != nil:
		return "quota share"
	}
	return ""
}

func changedProperties(o, n map[string]any) []string {
	var out []string
	for k, v := range n {
		if !reflect.DeepEqual(o[k], v) {
			out = append(out, k)
		}
	}
	for k := range o {
		if _, ok := n[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// changedCreateOnly lists the create-only properties whose values differ
// (a pointer below a property, /properties/A/B, compares A.B).
func changedCreateOnly(typ string, o, n map[string]any) []string {
	var out []string
	for _, ptr := range createOnlyOf(typ) {
		path := strings.Split(strings.TrimPrefix(ptr, "/properties/"), "/")
		if !reflect.DeepEqual(at(o, path), at(n, path)) {
			out = append(out, strings.Join(path, "."))
		}
	}
	return out
}

func at(v any, path []string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func isCreateOnly(typ, prop string) bool {
	return slices.ContainsFunc(createOnlyOf(typ), func(ptr string) bool {
		return ptr == "/properties/"+prop || strings.HasPrefix(ptr, "/properties/"+prop+"/")
	})
}

// refs are the logical ids a value refers to with Ref, Fn::GetAtt or
// Fn::Sub.
func refs(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["Ref"].(string); ok && len(v) == 1 {
				out = append(out, r)
				return
			}
			if g, ok := v["Fn::GetAtt"].([]any); ok && len(g) > 0 {
				if s, ok := g[0].(string); ok {
					out = append(out, s)
				}
				return
			}
			if s, ok := v["Fn::Sub"].(string); ok {
				for _, part := range strings.Split(s, "${")[1:] {
					name, _, _ := strings.Cut(part, "}")
					name, _, _ = strings.Cut(name, ".")
					out = append(out, name)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return out
}

func plural(noun string, xs []string) string {
	if len(xs) == 1 {
		return noun
	}
	if strings.HasSuffix(noun, "y") {
		return strings.TrimSuffix(noun, "y") + "ies"
	}
	return noun + "s"
}

// risk orders changes: refused; the queue's, its shares', policy's and
// pool's replacements and deletions (jobs end); data's; other
// replacements; deletions; kept; updates; additions.
func risk(c *Change) int {
	gone := c.Action == Replace || c.Action == Delete
	switch {
	case c.Action == Refused:
		return 0
	case gone && strings.HasPrefix(c.Type, "AWS::Batch::"):
		return 1
	case gone && slices.Contains(dataTypes, c.Type):
		return 2
	case c.Action == Replace && c.Type == "AWS::Lambda::Version":
		return 7
	case c.Action == Replace:
		return 3
	case c.Action == Delete:
		return 4
	case c.Action == Retain:
		return 5
	case c.Action == Update && strings.HasPrefix(c.Type, "AWS::Batch::"):
		return 6
	case c.Action == Update:
		return 7
	}
	return 8
}

// dataTypes hold data that a deletion loses.
var dataTypes = []string{"AWS::S3::Bucket", "AWS::KMS::Key", "AWS::Logs::LogGroup", "AWS::DynamoDB::Table", "AWS::SQS::Queue"}

// effect is what replacing or deleting a resource of a type does, from
// AWS's documentation.
func effect(typ string, a Action) string {
	if a != Replace && a != Delete {
		if typ == "AWS::Batch::QuotaShare" && a == Update {
			return "in place: the share's capacity, strategy or preemption change for waiting and running jobs alike"
		}
		return ""
	}
	switch typ {
	case "AWS::Batch::JobQueue":
		return "every job of the old queue, waiting or running, ends: \"All jobs in the queue are eventually terminated when you delete a job queue\" (DeleteJobQueue); resubmit them to the new queue"
	case "AWS::Batch::QuotaShare":
		return "every job of the old share, waiting or running, ends: \"All jobs in the share are eventually terminated when you delete a quota share\" (DeleteQuotaShare); resubmit them"
	case "AWS::Batch::SchedulingPolicy":
		return "the queue is pointed at the new policy (a queue's policy can be replaced, not removed: UpdateJobQueue)"
	case "AWS::Batch::ServiceEnvironment":
		return "the queue moves to the new service environment and its capacity limits"
	case "AWS::S3::Bucket":
		return "CloudFormation deletes only an empty bucket: the deletion fails while it holds objects (checkpoints, model artifacts)"
	case "AWS::KMS::Key":
		return "the key is scheduled for deletion after its waiting period; what it encrypted becomes unreadable then"
	case "AWS::Logs::LogGroup":
		return "the log group and its logs are deleted"
	case "AWS::IAM::Role":
		return "jobs already submitted name the old role's ARN, which no longer exists once the old role is deleted"
	case "AWS::Lambda::Version":
		return "a new version of the function is published with the new platform file or code, and its aliases move to it; the old version is deleted"
	case "AWS::Lambda::Alias":
		return "callers of the old alias get ResourceNotFoundException until they use the new one"
	case "AWS::DynamoDB::Table":
		return "the table and its items are deleted"
	}
	return ""
}

// createOnlyOf are typ's create-only properties; a custom resource type
// (Custom::NAME) is AWS::CloudFormation::CustomResource under a name of the
// template's choosing (CloudFormation user guide, "Custom resources").
func createOnlyOf(typ string) []string {
	if strings.HasPrefix(typ, "Custom::") {
		typ = "AWS::CloudFormation::CustomResource"
	}
	return createOnly[typ]
}
