package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	yaml "go.yaml.in/yaml/v3"
)

// A Setting is a default that commands take, when their flag is not given,
// from an environment variable or else from the selected profile of the
// config file — as the AWS CLI does with AWS_REGION and its profiles, and
// kubectl with its contexts. A flag given on the command line always wins.
type Setting struct {
	// Flag is the flag it fills (without dashes), Env its environment
	// variable and Key its key in a profile.
	Flag, Env, Key string
	// Doc says what it is; Unset what an unset value means.
	Doc, Unset string
}

// Settings are every setting, in the order trainq config shows them.
var Settings = []Setting{
	{Flag: "platform", Env: "TRAINQ_PLATFORM", Key: "platform", Doc: "platform file (YAML or JSON); in the config file, relative to the file",
		Unset: "the embedded default platform (platform/default.yaml)"},
	{Flag: "class", Env: "TRAINQ_CLASS", Key: "class", Doc: "priority class of the job commands", Unset: "give --class"},
	{Flag: "team", Env: "TRAINQ_TEAM", Key: "team", Doc: "team of the job commands", Unset: "give --team"},
	{Flag: "region", Env: "TRAINQ_REGION", Key: "region", Doc: "AWS region of the platform",
		Unset: "the AWS SDK's: AWS_REGION, else the AWS profile's region"},
	{Flag: "aws-profile", Env: "TRAINQ_AWS_PROFILE", Key: "awsProfile", Doc: "AWS shared-config profile whose credentials the job commands use",
		Unset: "the AWS SDK's: AWS_PROFILE, else the default profile"},
	{Flag: "function", Env: "TRAINQ_FUNCTION", Key: "function", Doc: "submission function's name",
		Unset: "the platform's: <name>-submit"},
	{Flag: "endpoint", Env: "TRAINQ_ENDPOINT", Key: "endpoint", Doc: "submission function's URL",
		Unset: "invoke the function by name through the Lambda API"},
}

// Environment variables that choose the config file and its profile.
const (
	EnvConfig  = "TRAINQ_CONFIG"
	EnvProfile = "TRAINQ_PROFILE"
)

// ConfigFile is the config file's shape:
//
//	profile: ranking            # used when neither --profile nor TRAINQ_PROFILE names one
//	profiles:
//	  ranking:
//	    platform: platforms/acme.yaml
//	    class: research
//	    team: search-ranking
//	    region: us-east-1
//	    awsProfile: ml-pipelines
type ConfigFile struct {
	Profile  string                       `yaml:"profile,omitempty" json:"profile,omitempty"`
	Profiles map[string]map[string]string `yaml:"profiles" json:"profiles"`
}

// DefaultConfigPath is where the config file is when TRAINQ_CONFIG does not
// say: trainq/config.yaml under the user's configuration directory
// ($XDG_CONFIG_HOME or ~/.config on Linux).
func DefaultConfigPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "trainq", "config.yaml")
}

// Config is the config file read and the profile selected, with each
// setting's value and where it came from; flags are applied by Defaults.
type Config struct {
	// Path is the config file; Found whether it exists.
	Path  string `json:"file"`
	Found bool   `json:"fileFound"`
	// Profile is the selected profile ("" none) and ProfileFrom what
	// selected it.
	Profile     string   `json:"profile,omitempty"`
	ProfileFrom string   `json:"profileFrom,omitempty"`
	Profiles    []string `json:"profiles"`
	values      map[string]Value
}

// Value is a setting's value and its origin: a flag ("--team"), an
// environment variable ("TRAINQ_TEAM") or a profile ("profile ranking in
// FILE"); From is "" when the setting is unset.
type Value struct {
	Value string `json:"value,omitempty"`
	From  string `json:"from,omitempty"`
}

// LoadConfig reads the config file (TRAINQ_CONFIG, or DefaultConfigPath; a
// missing default file is no error, a missing TRAINQ_CONFIG is) and selects
// the profile named by profileFlag, else TRAINQ_PROFILE, else the file's
// profile key. A profile that is not in the file is an error naming the
// ones that are.
func LoadConfig(profileFlag string) (*Config, error) {
	c := &Config{Path: os.Getenv(EnvConfig), values: map[string]Value{}}
	explicit := c.Path != ""
	if !explicit {
		c.Path = DefaultConfigPath()
	}
	var file ConfigFile
	if c.Path != "" {
		data, err := os.ReadFile(c.Path)
		switch {
		case err == nil:
			c.Found = true
			if file, err = parseConfig(data); err != nil {
				return nil, fmt.Errorf("config file %s: %w", c.Path, err)
			}
		case errors.Is(err, fs.ErrNotExist) && !explicit:
		default:
			return nil, fmt.Errorf("config file (%s=%s): %w", EnvConfig, c.Path, err)
		}
	}
	for name := range file.Profiles {
		c.Profiles = append(c.Profiles, name)
	}
	slices.Sort(c.Profiles)
	switch {
	case profileFlag != "":
		c.Profile, c.ProfileFrom = profileFlag, "--profile"
	case os.Getenv(EnvProfile) != "":
		c.Profile, c.ProfileFrom = os.Getenv(EnvProfile), EnvProfile
	case file.Profile != "":
		c.Profile, c.ProfileFrom = file.Profile, "the config file's profile key"
	}
	profile, ok := file.Profiles[c.Profile]
	if c.Profile != "" && !ok {
		have := "it has none"
		if len(c.Profiles) > 0 {
			have = "its profiles: " + strings.Join(c.Profiles, ", ")
		}
		if !c.Found {
			have = "the file does not exist"
		}
		return nil, fmt.Errorf("profile %q (from %s): not in the config file %s; %s", c.Profile, c.ProfileFrom, c.Path, have)
	}
	for _, s := range Settings {
		if v := os.Getenv(s.Env); v != "" {
			c.values[s.Flag] = Value{Value: v, From: s.Env}
			continue
		}
		if v := profile[s.Key]; v != "" {
			if s.Flag == "platform" {
				v = relativeTo(filepath.Dir(c.Path), v)
			}
			c.values[s.Flag] = Value{Value: v, From: fmt.Sprintf("profile %s in %s", c.Profile, c.Path)}
		}
	}
	return c, nil
}

// parseConfig decodes the config file strictly: an unknown key, in the file
// or in a profile, is refused with its line.
func parseConfig(data []byte) (ConfigFile, error) {
	var f ConfigFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return f, err
	}
	keys := make([]string, len(Settings))
	for i, s := range Settings {
		keys[i] = s.Key
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	for name, p := range f.Profiles {
		for k := range p {
			if !slices.Contains(keys, k) {
				msg := fmt.Sprintf("profiles.%s.%s: unknown key, want one of %s", name, k, strings.Join(keys, ", "))
				if s := Suggest(k, keys); s != "" {
					msg += " (" + s + "?)"
				}
				if line := keyLine(&root, "profiles", name, k); line > 0 {
					msg = fmt.Sprintf("line %d: %s", line, msg)
				}
				return f, errors.New(msg)
			}
		}
	}
	return f, nil
}

// keyLine is the line of the key at path in a YAML document, or 0.
func keyLine(n *yaml.Node, path ...string) int {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, key := range path {
		found := false
		for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				if key == path[len(path)-1] {
					return n.Content[i].Line
				}
				n, found = n.Content[i+1], true
				break
			}
		}
		if !found {
			return 0
		}
	}
	return 0
}

// relativeTo resolves a path given in the config file: ~/ is the home
// directory, a relative path is relative to the file's directory.
func relativeTo(dir, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// Get is a setting's value and origin from the environment or the profile.
func (c *Config) Get(flag string) Value { return c.values[flag] }

// Defaults fills a command's flags from the environment and the config
// file's profile, after parsing, for the flags the command names and the
// command line did not give. It also adds --profile to the command.
type Defaults struct {
	fs      *flag.FlagSet
	flags   []string
	profile string
	from    map[string]string
}

// Bind adds --profile to fs and returns the Defaults that Apply fills the
// named flags from (each must be a Setting's Flag).
func Bind(fs *flag.FlagSet, flags ...string) *Defaults {
	d := &Defaults{fs: fs, flags: flags, from: map[string]string{}}
	fs.StringVar(&d.profile, "profile", "", "profile of trainq's config file to take defaults from (default: "+EnvProfile+", else the file's profile key; see trainq config)")
	return d
}

// Apply, called after the command line is parsed, sets each bound flag the
// command line did not give from its environment variable or the profile,
// except those in skip, and records where each value came from.
func (d *Defaults) Apply(skip ...string) error {
	given := map[string]bool{}
	d.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	c, err := LoadConfig(d.profile)
	if err != nil {
		return err
	}
	for _, name := range d.flags {
		if given[name] {
			d.from[name] = "--" + name
			continue
		}
		v := c.Get(name)
		if v.From == "" || d.fs.Lookup(name) == nil || slices.Contains(skip, name) {
			continue
		}
		if err := d.fs.Set(name, v.Value); err != nil {
			return Usagef("%s: %v", v.From, err)
		}
		d.from[name] = v.From
	}
	return nil
}

// From is where a bound flag's value came from ("--team", "TRAINQ_TEAM",
// "profile ranking in FILE"), or "" when it is unset.
func (d *Defaults) From(flag string) string { return d.from[flag] }

// PlatformSource says which platform a command used, for its errors: the
// file and where it was named, or that the embedded default was used
// because nothing named one.
func (d *Defaults) PlatformSource(file string) string {
	if file == "" {
		return "the embedded default platform: no --platform, " + settingEnv("platform") + " or profile platform names a file"
	}
	from := d.From("platform")
	if from == "" || from == "--platform" {
		return "platform file " + file
	}
	return "platform file " + file + " (from " + from + ")"
}

func settingEnv(flag string) string {
	for _, s := range Settings {
		if s.Flag == flag {
			return s.Env
		}
	}
	return ""
}

// ConfigSchema names the JSON that trainq config --output json prints.
const ConfigSchema = "trainq.config/v1"

const configUsage = `Usage: trainq config [--profile NAME] [--output table|json]

Show the defaults trainq's commands take when a flag is not given: each
setting's value and where it comes from. A flag on the command line wins, then
the setting's environment variable, then the selected profile of the config
file; a setting still unset keeps its built-in meaning (last column).

The config file is $TRAINQ_CONFIG, else trainq/config.yaml in your
configuration directory (~/.config on Linux). Its profile is --profile, else
$TRAINQ_PROFILE, else the file's "profile" key. An example:

  profile: ranking
  profiles:
    ranking:
      platform: platforms/acme.yaml   # relative to the config file
      class: research
      team: search-ranking
      region: us-east-1
      awsProfile: ml-pipelines
      function: acme-submit

Flags:
`

// ConfigReport is what trainq config prints with --output json.
type ConfigReport struct {
	Schema string `json:"schema"`
	*Config
	Settings []ConfigSetting `json:"settings"`
}

// ConfigSetting is one setting in ConfigReport.
type ConfigSetting struct {
	Flag  string `json:"flag"`
	Env   string `json:"env"`
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	From  string `json:"from,omitempty"`
	Unset string `json:"unset,omitempty"`
}

// ConfigCommand runs trainq config.
func ConfigCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("trainq config", flag.ContinueOnError)
	profile := fs.String("profile", "", "profile to show (default: "+EnvProfile+", else the file's profile key)")
	output := fs.String("output", "table", "output format: table or json")
	if err := Parse(fs, args, stdout, func(w io.Writer) { fmt.Fprint(w, configUsage); PrintDefaults(fs, w) }); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if *output != "table" && *output != "json" {
		return Usagef("--output: got %q, want table or json", *output)
	}
	c, err := LoadConfig(*profile)
	if err != nil {
		return err
	}
	rep := ConfigReport{Schema: ConfigSchema, Config: c}
	for _, s := range Settings {
		v := c.Get(s.Flag)
		cs := ConfigSetting{Flag: "--" + s.Flag, Env: s.Env, Key: s.Key, Value: v.Value, From: v.From}
		if v.From == "" {
			cs.Unset = s.Unset
		}
		rep.Settings = append(rep.Settings, cs)
	}
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	file := c.Path
	if !c.Found {
		file += " (not found: no profile; settings come from flags and the environment)"
	}
	fmt.Fprintf(stdout, "config file  %s\n", file)
	switch {
	case c.Profile != "":
		fmt.Fprintf(stdout, "profile      %s (from %s)\n", c.Profile, c.ProfileFrom)
	case len(c.Profiles) > 0:
		fmt.Fprintf(stdout, "profile      none selected (set %s, --profile or the file's profile key)\n", EnvProfile)
	}
	if len(c.Profiles) > 0 {
		fmt.Fprintf(stdout, "profiles     %s\n", strings.Join(c.Profiles, ", "))
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tENVIRONMENT\tVALUE\tFROM")
	for _, s := range rep.Settings {
		value, from := s.Value, s.From
		if from == "" {
			value, from = "-", "unset: "+s.Unset
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Flag, s.Env, value, from)
	}
	return tw.Flush()
}
