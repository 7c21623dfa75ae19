package platformfile

import (
	"fmt"

	yaml3 "go.yaml.in/yaml/v3"

	"github.com/trainq/trainq/platform"
)

// checkDuplicateKeys reports every key written twice in one mapping of a
// YAML platform file, with both lines. Decoding keeps only the last
// of them, so a second "teams:" would silently replace the first list; a
// file that says a thing twice is refused instead. The path is written as
// checkShape writes it (teams[0].capacity). A document that does not parse
// is left to the decoder, which reports it. It returns the line of every
// key by that path, for the problems found later.
func checkDuplicateKeys(ps *platform.Problems, data []byte) map[string]int {
	var doc yaml3.Node
	if yaml3.Unmarshal(data, &doc) != nil {
		return nil
	}
	lines := map[string]int{}
	walkDuplicateKeys(ps, lines, "", &doc)
	return lines
}

func walkDuplicateKeys(ps *platform.Problems, lines map[string]int, path string, n *yaml3.Node) {
	switch n.Kind {
	case yaml3.DocumentNode:
		for _, c := range n.Content {
			walkDuplicateKeys(ps, lines, path, c)
		}
	case yaml3.SequenceNode:
		for i, c := range n.Content {
			walkDuplicateKeys(ps, lines, fmt.Sprintf("%s[%d]", path, i), c)
		}
	case yaml3.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml3.ScalarNode {
				continue // a complex key: the shape check refuses it
			}
			field := platform.FieldPath(path, k.Value)
			if line, seen := first[k.Value]; seen {
				ps.Addf(field, platform.Shown(fmt.Sprintf("given twice, at lines %d and %d", line, k.Line)),
					"each key once in a mapping (only the last would be kept)")
				continue
			}
			first[k.Value] = k.Line
			lines[field] = k.Line
			walkDuplicateKeys(ps, lines, field, v)
		}
	}
}
