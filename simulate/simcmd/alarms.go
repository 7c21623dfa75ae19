package simcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/trainq/trainq/simulate"
)

// writeJSONWithAlarms writes the report's JSON with the alarm noise of each
// platform run added as "alarms".
func writeJSONWithAlarms(w io.Writer, rep *simulate.Report, noise []*simulate.AlarmNoise) error {
	var buf bytes.Buffer
	if err := simulate.WriteJSON(&buf, rep); err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		return fmt.Errorf("alarm noise: %w", err)
	}
	doc["alarms"] = noise
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
