package simulate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// WriteReport writes report.json into dir (created when missing) and
// returns the paths written.
func WriteReport(dir string, r *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "report.json")
	if err := os.WriteFile(path, js.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	return []string{path}, nil
}
