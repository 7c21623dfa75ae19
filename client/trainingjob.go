package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
)

// The CLI's own checks of a SageMaker CreateTrainingJob request, before
// anything is invoked. The submission function checks the payload fully,
// against SageMaker's model; these catch, with the file and the line, the
// mistakes people bring from the SageMaker Python SDK: snake_case names
// (sagemaker-core's shapes and ModelTrainer's configs spell the API's
// members that way) and hyperparameters that are numbers or booleans (the
// SDK turns them into strings; the API takes strings only).

// stringMaps are the members of CreateTrainingJobRequest, at any level,
// whose values are maps of strings (botocore's SageMaker model: shapes
// HyperParameters, TrainingEnvironmentMap, HookParameters,
// CollectionParameters, RuleParameters, ProfilingParameters). Their keys are
// the user's own names, snake_case included; their values must be strings.
var stringMaps = map[string]bool{
	"HyperParameters":      true,
	"Environment":          true,
	"HookParameters":       true,
	"CollectionParameters": true,
	"RuleParameters":       true,
	"ProfilingParameters":  true,
}

// jsonProblem is one problem of a training job, at a byte offset of it.
type jsonProblem struct {
	contract.Problem
	offset int64
}

// checkTrainingJob returns what is wrong with data as a training job:
// text that is not JSON, something other than an object, a member name
// given twice, names that are not SageMaker's PascalCase, and values of the
// string maps that are not strings. A syntax error stops the walk; every
// other problem is collected.
func checkTrainingJob(data []byte) []jsonProblem {
	w := &tjWalker{dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	tok, err := w.dec.Token()
	if err != nil {
		return []jsonProblem{w.syntax(err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return []jsonProblem{{contract.Problem{Field: "trainingJob", Value: describeToken(tok), Allowed: "a JSON object (a SageMaker CreateTrainingJob request)"}, 0}}
	}
	if err := w.object("", false); err != nil {
		return append(w.ps, w.syntax(err))
	}
	if _, err := w.dec.Token(); !errors.Is(err, io.EOF) {
		return append(w.ps, jsonProblem{contract.Problem{Field: "trainingJob", Value: "more text after the object", Allowed: "one JSON object"}, w.dec.InputOffset()})
	}
	return w.ps
}

type tjWalker struct {
	dec *json.Decoder
	ps  []jsonProblem
}

func (w *tjWalker) syntax(err error) jsonProblem {
	off := w.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "the text ends before the JSON does"
	}
	return jsonProblem{contract.Problem{Field: "trainingJob", Value: "text that is not JSON (" + msg + ")", Allowed: "a JSON object"}, off}
}

func (w *tjWalker) add(path string, off int64, value, allowed string) {
	w.ps = append(w.ps, jsonProblem{contract.Problem{Field: "trainingJob." + path, Value: value, Allowed: allowed}, off})
}

// object walks the members of an object whose '{' has been read. In a
// string map (strings true) the names are free and the values strings.
func (w *tjWalker) object(path string, free bool) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		off := max(w.dec.InputOffset()-int64(len(name))-2, 0) // where the name starts (without escapes)
		member := joinMember(path, name)
		if seen[name] {
			w.add(member, off, "a member given twice", "each member once (the last would not silently win)")
		}
		seen[name] = true
		meant := name
		if !free {
			if want, bad := pascal(name); bad {
				msg := fmt.Sprintf("SageMaker's PascalCase member name (%q?); the SDK's argument names are not CreateTrainingJob's fields, see docs/submission.md", want)
				if sdk, ok := door.SDKMember(name); ok && path == "" {
					// The mapping of docs/submission.md, not a case
					// conversion: image_uri is AlgorithmSpecification.TrainingImage.
					msg = fmt.Sprintf("CreateTrainingJob's %s (docs/submission.md maps the SageMaker Python SDK's arguments to its members)", sdk)
					meant = sdk
				}
				w.add(member, off, contract.Show(name), msg)
			}
		}
		tok, err = w.dec.Token()
		if err != nil {
			return err
		}
		if free {
			if _, ok := tok.(string); !ok {
				w.add(member, off, describeToken(tok), fmt.Sprintf("a string, such as %s: SageMaker's %s are strings (the SageMaker Python SDK converts them; the API does not)", quoted(tok), lastName(path)))
			}
		}
		// A string map's keys are the caller's own (epochs, lr), also
		// under a misspelt name of the map.
		if err := w.value(tok, member, (stringMaps[name] || path == "" && door.StringMap(meant)) && !free); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return err
}

// value walks what follows tok, a value already read, when it opens an
// object or a list.
func (w *tjWalker) value(tok json.Token, path string, stringMap bool) error {
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		return w.object(path, stringMap)
	case '[':
		for i := 0; w.dec.More(); i++ {
			t, err := w.dec.Token()
			if err != nil {
				return err
			}
			if err := w.value(t, fmt.Sprintf("%s[%d]", path, i), false); err != nil {
				return err
			}
		}
		_, err := w.dec.Token() // ']'
		return err
	}
	return nil
}

func joinMember(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func lastName(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// describeToken names a JSON value for a message; objects and lists by
// their kind.
func describeToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return "a list"
	case nil:
		return "null"
	case string:
		return contract.Show(contract.Cut(t, contract.MaxShownChars))
	}
	return fmt.Sprint(tok)
}

// quoted is tok as the string SageMaker wants: 10 → "10", true → "true".
func quoted(tok json.Token) string {
	switch t := tok.(type) {
	case json.Number, bool:
		return fmt.Sprintf("%q", fmt.Sprint(t))
	}
	return `"…"`
}

// pascal reports whether name is not spelled as SageMaker spells members
// (PascalCase: a capital first, no '_'), with the PascalCase name meant:
// instance_count → InstanceCount, volume_size_in_gb → VolumeSizeInGB,
// instanceType → InstanceType.
func pascal(name string) (string, bool) {
	first, _ := utf8.DecodeRuneInString(name)
	if !strings.Contains(name, "_") && !unicode.IsLower(first) {
		return name, false
	}
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		switch strings.ToLower(part) {
		case "":
		case "gb":
			b.WriteString("GB")
		default:
			r, n := utf8.DecodeRuneInString(part)
			b.WriteRune(unicode.ToUpper(r))
			b.WriteString(part[n:])
		}
	}
	return b.String(), true
}

// lineCol is the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// trainingJobError reports the problems of the training job read from
// file, each with its line when lines is set (the file is the training job
// itself, so offsets are its lines).
func trainingJobError(file string, data []byte, ps []jsonProblem, lines bool) error {
	out := make(contract.Problems, len(ps))
	for i, p := range ps {
		out[i] = p.Problem
		if lines {
			line, col := lineCol(data, p.offset)
			out[i].Field = fmt.Sprintf("%s:%d:%d: %s", file, line, col, p.Field)
		}
	}
	return errors.New(out.Report("training job " + file))
}
