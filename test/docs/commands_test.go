// Package docs holds the test that keeps the command examples of the README
// and docs/*.md true: it runs them against the built trainq CLI and CDK app
// and compares the output they show.
package docs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// An example is one command of a fenced block, where it was written, and the
// output shown after it (console blocks only; nil when none is shown).
type example struct {
	file  string
	line  int
	argv  []string
	shown []string
	// stdout is the file a "> FILE" redirection names, if any.
	stdout string
}

func (e example) String() string {
	return fmt.Sprintf("%s:%d: %s", e.file, e.line, strings.Join(e.argv, " "))
}

// repoRoot is the module's root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// documents are the pages whose examples are run.
func documents(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	for _, pattern := range []string{"docs/*.md", "examples/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			files = append(files, rel)
		}
	}
	return files
}

// examples reads the sh, bash and console blocks of a page. In sh and bash
// blocks every line is a command (a trailing backslash continues it, an
// unquoted # starts a comment). In console blocks a line starting with "$ "
// is a command and the lines after it, up to the next command, are its
// shown output.
func examples(t *testing.T, root, file string) []example {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "```")
		if !ok || (lang != "sh" && lang != "bash" && lang != "console") {
			continue
		}
		console := lang == "console"
		var cur *example
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			text, start := lines[i], i+1
			if console {
				cmd, isCmd := strings.CutPrefix(text, "$ ")
				if !isCmd {
					if cur != nil {
						cur.shown = append(cur.shown, strings.TrimRight(text, " "))
					}
					continue
				}
				text = cmd
			}
			for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
			}
			argv, err := split(text)
			if err != nil {
				t.Errorf("%s:%d: %v", file, start, err)
				continue
			}
			if len(argv) == 0 {
				continue
			}
			e := example{file: file, line: start}
			if k := slices.Index(argv, ">"); k >= 0 && k == len(argv)-2 {
				e.stdout, argv = argv[k+1], argv[:k]
			}
			e.argv = argv
			if console {
				e.shown = []string{}
			}
			out = append(out, e)
			cur = &out[len(out)-1]
		}
	}
	return out
}

// split cuts a command line into words as a POSIX shell would for the
// forms the docs use: blanks, '…' and "…" quotes, and an unquoted # that
// starts a comment. Anything else a shell would expand ($, `, *, |, ;, &&)
// is refused: an example must be one literal command.
func split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c quote in %q", c, s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case strings.IndexByte("$`*|;&<[", c) >= 0:
			return nil, fmt.Errorf("%q is not one literal command (%q would be expanded by a shell, or is a placeholder): write the command a reader can paste", s, c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// needsAWS are the trainq commands that invoke the submission function: the
// docs test cannot run them without an account (their flags are tested
// against the built binary in bin/trainq).
var needsAWS = map[string]bool{"status": true, "cancel": true, "reprioritize": true, "queue": true, "usage": true, "history": true, "trace export": true}

// notRun are the other commands the docs show, and why they are not run
// here.
var notRun = map[string]string{
	"npx":           "deploys or bootstraps an AWS account",
	"aws":           "calls AWS",
	"go test":       "the test command: it is what runs this test",
	"go install":    "installs the CLI into GOBIN: TestGoInstallFromACheckout (bin/trainq) runs it",
	"go run .":      "the consumer example's app: test/consumer_test.go synthesizes it",
	"cd":            "changes directory: the commands after it are shown for another module",
	"cdk":           "the CDK CLI: .ci/run synthesizes through it",
	"tools/cdk/cdk": "the CDK CLI pinned by tools/cdk/package-lock.json: deploys or bootstraps an AWS account; .ci/run synthesizes through it",
	"curl":          "calls the network",
}

// TestDocumentedCommandsRun runs every command example of the README and
// docs/*.md that needs no AWS account — synth, validate, simulate, trace,
// --help, version, submit --dry-run — in a copy of the repository's layout,
// requires each to succeed (or, in a console block, to fail as shown), and
// compares the output a console block shows, line for line.
func TestDocumentedCommandsRun(t *testing.T) {
	root := repoRoot(t)
	bin := t.TempDir()
	trainq := filepath.Join(bin, "trainq")
	cdk := filepath.Join(bin, "cdk")
	for name, out := range map[string]string{"./bin/trainq": trainq, "./bin/cdk": cdk} {
		build := exec.Command("go", "build", "-o", out, name)
		build.Dir = root
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, b)
		}
	}
	// The commands run in a directory that links every top-level entry of
	// the repository, so that they read the shipped files by the paths
	// the docs give and write their outputs (jobs.csv, out/, cdk.out) into
	// the test's own directory; ../shared is linked beside it when present.
	work := filepath.Join(t.TempDir(), "main")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "cdk.out" || e.Name() == ".git" || e.Name() == ".tools" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	shared := filepath.Join(root, "..", "shared")
	if _, err := os.Stat(shared); err == nil {
		if err := os.Symlink(shared, filepath.Join(work, "..", "shared")); err != nil {
			t.Fatal(err)
		}
	}

	ran, skipped, missing := 0, map[string]int{}, map[string]bool{}
	for _, file := range documents(t, root) {
		for _, e := range examples(t, root, file) {
			argv := e.argv
			switch {
			case argv[0] == "trainq":
				if len(argv) > 1 && (needsAWS[argv[1]] || len(argv) > 2 && needsAWS[argv[1]+" "+argv[2]] ||
					(argv[1] == "submit" && !slices.Contains(argv, "--dry-run") && !slices.Contains(argv, "--help"))) {
					skipped["trainq "+argv[1]+" (invokes the submission function)"]++
					continue
				}
				if slices.ContainsFunc(argv, func(a string) bool { return strings.HasPrefix(a, "../shared/") || missing[a] }) {
					if _, err := os.Stat(shared); err != nil {
						// And the commands that read what this one writes.
						if k := slices.Index(argv, "--out"); k >= 0 && k+1 < len(argv) {
							missing[argv[k+1]] = true
						}
						skipped["examples on ../shared/traces (not beside this checkout)"]++
						continue
					}
				}
				run(t, e, work, trainq, argv[1:], nil)
			case len(argv) >= 3 && argv[0] == "go" && argv[1] == "run" && argv[2] == "./bin/cdk":
				// With or without --context platform=FILE: the platforms
				// the docs name are all called trainq.
				outdir := filepath.Join(work, "cdk.out")
				os.RemoveAll(outdir)
				run(t, e, work, cdk, argv[3:], []string{"CDK_OUTDIR=" + outdir})
				if _, err := os.Stat(filepath.Join(outdir, "Trainq-trainq.template.json")); err != nil {
					t.Errorf("%s: wrote no Trainq-trainq.template.json into cdk.out/: %v", e, err)
				}
			default:
				key := argv[0]
				if len(argv) > 1 && (argv[0] == "go") {
					key = argv[0] + " " + argv[1]
					if argv[1] == "run" && len(argv) > 2 {
						key += " " + argv[2]
					}
				}
				if why, ok := notRun[key]; ok {
					skipped[key+" ("+why+")"]++
					continue
				}
				t.Errorf("%s: a command the docs test does not know: run it here (TestDocumentedCommandsRun) or say in notRun why it is not run", e)
				continue
			}
			ran++
		}
	}
	t.Logf("ran %d documented commands; not run: %v", ran, skipped)
	// The docs show at least the README's synth, validate and dry-run
	// commands and the simulator's and trace's: a parser that finds
	// nothing must not pass.
	if ran < 10 {
		t.Errorf("ran %d documented commands, want at least 10: the block parser is out of date", ran)
	}
}

// run runs one example and checks it: a command of an sh block must exit 0;
// a console block's must print what the block shows (stdout and stderr as a
// terminal shows them, in order), whatever its exit status.
func run(t *testing.T, e example, dir, exe string, args, env []string) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if e.stdout != "" {
		f, err := os.Create(filepath.Join(dir, e.stdout))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdout = f
	}
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Errorf("%s: %v", e, err)
		return
	}
	if e.shown == nil {
		if err != nil {
			t.Errorf("%s: exit status %d, want 0\n%s", e, exit.ExitCode(), out.String())
		}
		return
	}
	got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	want := e.shown
	for len(want) > 0 && want[len(want)-1] == "" {
		want = want[:len(want)-1]
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: the output shown differs from the command's.\nshown:\n%s\nprinted:\n%s", e, strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// figure matches a measured speed, time or size as benchmarks report them:
// "16.4 ms", "56 µs", "1.81 s", "241,000 jobs/s", "18.4 MiB", "1.6 GB".
// Limits and settings ("10 KiB", "600 s", "64 KiB") are whole numbers of
// seconds or KiB, which it leaves out.
var figure = regexp.MustCompile(`\b\d[\d,]*(\.\d+)?\s?(ms|µs|ns/op|jobs/s|jobs/min|MiB|GiB|MB|GB)(\s|$|[.,;)|])|\b\d+\.\d+ s\b`)

// date is an ISO date, as a figure's measurement is dated.
var date = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)

// producer names what measured a figure: a script under bench/, a Go
// benchmark, or the command timed.
var producer = regexp.MustCompile("bench/|Benchmark[A-Z]|go test")

// TestPerformanceFiguresNameTheirBenchmarkAndDate: a section of the README
// or docs/*.md that gives a measured figure (a time in ms or µs, a rate, a
// size) also names what measured it and when, so that a reader can rerun it
// and knows how old it is.
func TestPerformanceFiguresNameTheirBenchmarkAndDate(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, file := range documents(t, root) {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range sections(string(b)) {
			m := strings.TrimRight(figure.FindString(sec.text), " \t\n.,;)|]")
			if m == "" {
				continue
			}
			checked++
			if !date.MatchString(sec.text) || !producer.MatchString(sec.text) {
				t.Errorf("%s:%d (section %q): gives %q but not both the benchmark (a bench/ script, a Benchmark… name or the go test command) and the date (YYYY-MM-DD) that measured it", file, sec.line, sec.title, m)
			}
		}
	}
	if checked == 0 {
		t.Error("found no section with a measured figure: the pattern is out of date (the docs measure cold starts and simulator speed)")
	}
}

type section struct {
	title string
	line  int
	text  string
}

// sections cuts a Markdown page at its headings (outside code blocks).
func sections(page string) []section {
	var out []section
	cur := section{title: "(top)", line: 1}
	fenced := false
	for i, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(l, "#") {
			out = append(out, cur)
			cur = section{title: strings.TrimSpace(strings.TrimLeft(l, "#")), line: i + 1}
			continue
		}
		cur.text += l + "\n"
	}
	return append(out, cur)
}
