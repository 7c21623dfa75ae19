package dynamo

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// Item is one item, or one key, by attribute name.
type Item = map[string]Value

// Value is one attribute value as DynamoDB's JSON protocol writes it
// (AttributeValue in the API reference): exactly one member is set. The
// ledger writes strings, numbers, booleans, lists and maps; a value of
// another type (binary, sets, null) decodes with no member set, which the
// ledger's codec reports as unreadable.
type Value struct {
	S    *string          `json:"S,omitempty"`
	N    *string          `json:"N,omitempty"`
	BOOL *bool            `json:"BOOL,omitempty"`
	L    []Value          `json:"L,omitempty"`
	M    map[string]Value `json:"M,omitempty"`
}

// S is a string value.
func S(v string) Value { return Value{S: &v} }

// N is a whole-number value.
func N(v int64) Value {
	s := strconv.FormatInt(v, 10)
	return Value{N: &s}
}

// Bool is a boolean value.
func Bool(v bool) Value { return Value{BOOL: &v} }

// L is a list value; L() is the empty list.
func L(vs ...Value) Value {
	if vs == nil {
		vs = []Value{}
	}
	return Value{L: vs}
}

// M is a map value; M(nil) is the empty map.
func M(m map[string]Value) Value {
	if m == nil {
		m = map[string]Value{}
	}
	return Value{M: m}
}

// errNoType is the error of a value with no member set, or more than one.
var errNoType = errors.New("dynamo: an attribute value needs exactly one of S, N, BOOL, L and M")

// MarshalJSON writes v as {"<type>": value}. It is written by hand because
// the struct's tags cannot say that an empty list or map is still a value
// ({"L":[]}), while an absent one is not.
func (v Value) MarshalJSON() ([]byte, error) {
	set := 0
	for _, ok := range []bool{v.S != nil, v.N != nil, v.BOOL != nil, v.L != nil, v.M != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, errNoType
	}
	var b bytes.Buffer
	var member any
	switch {
	case v.S != nil:
		b.WriteString(`{"S":`)
		member = *v.S
	case v.N != nil:
		b.WriteString(`{"N":`)
		member = *v.N
	case v.BOOL != nil:
		b.WriteString(`{"BOOL":`)
		member = *v.BOOL
	case v.L != nil:
		b.WriteString(`{"L":`)
		member = v.L
	default:
		b.WriteString(`{"M":`)
		member = v.M
	}
	enc, err := json.Marshal(member)
	if err != nil {
		return nil, err
	}
	b.Write(enc)
	b.WriteByte('}')
	return b.Bytes(), nil
}
