package contract

import (
	"encoding/json"
	"fmt"
)

// WholeNumber reads a JSON number decoded with UseNumber as an int64.
func WholeNumber(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// ValueKind names a decoded JSON value for a message.
func ValueKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return Show(v)
	}
	return fmt.Sprint(v)
}
