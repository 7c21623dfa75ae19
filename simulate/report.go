package simulate

// WriteReport writes plots into dir and returns the files written.
func WriteReport(dir string, r *Report) ([]string, error) { return nil, nil }
