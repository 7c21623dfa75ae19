package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
)

const validateUsage = `Usage: trainq validate [--output table|json] FILE…

Check platform files (YAML or JSON) and list every problem of each. Every file
is checked, unreadable ones included. Exits 1 when a file is invalid or cannot
be read. "--" ends the flags, so that a file named like a flag can be checked.

Flags:
`

// ValidateSchema names the JSON that validate --output json prints.
const ValidateSchema = "trainq.validate/v1"

// validateReport is validate's --output json.
type validateReport struct {
	Schema string         `json:"schema"`
	Files  []validateFile `json:"files"`
	// Invalid counts the files that are invalid or unreadable.
	Invalid int `json:"invalid"`
}

// validateFile is one file's verdict: ok with the platform's summary, or
// the problems (or the read error) that make it invalid.
type validateFile struct {
	File     string             `json:"file"`
	OK       bool               `json:"ok"`
	Error    string             `json:"error,omitempty"`
	Problems platform.Problems  `json:"problems,omitempty"`
	Platform *validatedPlatform `json:"platform,omitempty"`
}

type validatedPlatform struct {
	Name          string `json:"name"`
	Scheduling    string `json:"scheduling"`
	InstanceTypes int    `json:"instanceTypes"`
	Instances     int    `json:"instances"`
	Classes       int    `json:"classes"`
	Teams         int    `json:"teams"`
}

// validate checks each platform file and lists every problem of each.
func validate(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("trainq validate", flag.ContinueOnError)
	output := flags.String("output", "table", "output format: table or json")
	// Flags may come before, between or after the files, up to "--".
	var files []string
	for {
		if err := parse(flags, args, stdout, validateUsage); err != nil {
			return err
		}
		rest := flags.Args()
		if len(rest) == 0 {
			break
		}
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			files = append(files, rest...)
			break
		}
		files, args = append(files, rest[0]), rest[1:]
	}
	if err := checkOutput(*output); err != nil {
		return err
	}
	if len(files) == 0 {
		return &badUsage{"no platform file given; usage: trainq validate FILE…"}
	}
	rep := validateReport{Schema: ValidateSchema}
	for _, f := range files {
		v := validateFile{File: f}
		data, err := os.ReadFile(f)
		if err == nil {
			var p *platform.Platform
			p, err = platformfile.Parse(data)
			if err == nil {
				v.OK = true
				v.Platform = &validatedPlatform{Name: p.Name, Scheduling: string(p.Scheduling.Mode), InstanceTypes: len(p.Pools),
					Instances: p.TotalInstances(), Classes: len(p.Classes), Teams: len(p.Teams)}
			}
		}
		var ve *platform.ValidationError
		var pe *fs.PathError
		switch {
		case err == nil:
		case errors.As(err, &pe):
			v.Error = "cannot read: " + pe.Err.Error()
		case errors.As(err, &ve):
			v.Error, v.Problems = err.Error(), ve.Problems
		default:
			v.Error = err.Error()
		}
		if !v.OK {
			rep.Invalid++
		}
		rep.Files = append(rep.Files, v)
		if *output == "table" {
			if v.OK {
				fmt.Fprintf(stdout, "%s: ok: platform %q, %s scheduling, %d instance types (%d instances), %d classes, %d teams\n",
					f, v.Platform.Name, v.Platform.Scheduling, v.Platform.InstanceTypes, v.Platform.Instances, v.Platform.Classes, v.Platform.Teams)
			} else {
				fmt.Fprintf(stdout, "%s: %s\n", f, v.Error)
			}
		}
	}
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	if rep.Invalid > 0 {
		return fmt.Errorf("%d of %d platform files are invalid", rep.Invalid, len(files))
	}
	return nil
}
