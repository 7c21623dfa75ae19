package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

const versionUsage = `Usage: trainq version [--output table|json]

Show the version trainq was built from, as Go recorded it in the binary: the
module version (v1.2.3 from go install …@v1.2.3, "(devel)" from a checkout),
the VCS revision and time and whether the tree had local changes, and the Go
version.

Flags:
`

// buildVersion is what trainq version prints.
type buildVersion struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
}

// readVersion reads the build information of the running binary.
func readVersion(read func() (*debug.BuildInfo, bool)) buildVersion {
	bi, ok := read()
	if !ok {
		return buildVersion{Module: "github.com/trainq/trainq", Version: "unknown (no build information in the binary)"}
	}
	v := buildVersion{Module: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func (v buildVersion) String() string {
	s := "trainq " + v.Version
	if v.Revision != "" {
		s += ", revision " + v.Revision
		if v.Modified {
			s += " with local changes"
		}
	}
	if v.Time != "" {
		s += ", " + v.Time
	}
	if v.GoVersion != "" {
		s += ", " + v.GoVersion
	}
	return s
}

func version(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("trainq version", flag.ContinueOnError)
	output := fs.String("output", "table", "output format: table or json")
	if err := parse(fs, args, stdout, versionUsage); err != nil {
		return err
	}
	if err := checkOutput(*output); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &badUsage{fmt.Sprintf("unexpected arguments %q (version takes flags only)", fs.Args())}
	}
	v := readVersion(debug.ReadBuildInfo)
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(stdout, v)
	return err
}
