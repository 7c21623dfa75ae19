package contract

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"
)

// Bounded output. Every string that trainq's functions write into a log
// line, a metric line or an error message — a value received in a request
// or an event, an answer of AWS Batch, an error's text — passes through Cut
// at one of these lengths, so that no input can make a line longer than
// CloudWatch Logs keeps in one event (262,144 bytes) nor split a UTF-8
// character. Lengths are in characters (Unicode code points), as AWS counts
// them.
const (
	// MaxShownChars bounds a value quoted in an error message (a problem's
	// field and value).
	MaxShownChars = 256
	// MaxLoggedChars bounds a string property of a metric line or a log
	// line (a statusReason, a job id, an error's text), and what a problem
	// says is allowed.
	MaxLoggedChars = 1024
	// MaxProblemsShown bounds the problems an error message lists; the
	// message says how many more there are.
	MaxProblemsShown = 25
	// Ellipsis ends a string Cut shortened.
	Ellipsis = "…"
)

// Cut returns s with at most max characters: s itself when it is short
// enough, else its first max-1 characters followed by Ellipsis. It never
// splits a UTF-8 character, and an invalid UTF-8 sequence in s becomes
// U+FFFD, so that the result is always valid UTF-8. A max below 1 is taken
// as 1.
func Cut(s string, max int) string {
	if max < 1 {
		max = 1
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= max { // at most max bytes: at most max characters
		return s
	}
	n, end := 0, 0
	for i := range s {
		if n == max-1 {
			end = i
		}
		n++
		if n > max {
			return s[:end] + Ellipsis
		}
	}
	return s
}

// CutAll applies Cut to every string value of m (a metric line's or log
// line's properties), in place, and returns m.
func CutAll(m map[string]any, max int) map[string]any {
	for k, v := range m {
		if s, ok := v.(string); ok {
			m[k] = Cut(s, max)
		}
	}
	return m
}

// Report lists problems under heading like Problems.Report, bounded: each
// field and value cut at MaxShownChars, what is allowed at MaxLoggedChars,
// and at most MaxProblemsShown problems, the count saying how many more
// there are. Every error message of the submission function is built by it.
func Report(heading string, ps Problems) string {
	shown := ps
	if len(shown) > MaxProblemsShown {
		shown = shown[:MaxProblemsShown]
	}
	var b strings.Builder
	noun := "problems"
	if len(ps) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(&b, "%s (%d %s", Cut(heading, MaxLoggedChars), len(ps), noun)
	if len(shown) < len(ps) {
		fmt.Fprintf(&b, ", the first %d shown", len(shown))
	}
	b.WriteString("):")
	for _, p := range shown {
		fmt.Fprintf(&b, "\n  - %s: got %s, want %s", Cut(p.Field, MaxShownChars), Cut(p.Value, MaxShownChars), Cut(p.Allowed, MaxLoggedChars))
	}
	if len(shown) < len(ps) {
		fmt.Fprintf(&b, "\n  - … and %d more", len(ps)-len(shown))
	}
	return b.String()
}

// BoundedLog wraps h so that every string attribute (and every error's or
// Stringer's text) of a record is cut at MaxLoggedChars, and the message
// too: a log line's length then depends on the code that writes it, never
// on what was received. The functions wrap their loggers with it when they
// are built.
func BoundedLog(h slog.Handler) slog.Handler {
	if b, ok := h.(boundedHandler); ok {
		return b
	}
	return boundedHandler{h}
}

type boundedHandler struct{ next slog.Handler }

func (b boundedHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return b.next.Enabled(ctx, l)
}

func (b boundedHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Cut(r.Message, MaxLoggedChars), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(boundAttr(a))
		return true
	})
	return b.next.Handle(ctx, out)
}

func (b boundedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	bounded := make([]slog.Attr, len(as))
	for i, a := range as {
		bounded[i] = boundAttr(a)
	}
	return boundedHandler{b.next.WithAttrs(bounded)}
}

func (b boundedHandler) WithGroup(name string) slog.Handler {
	return boundedHandler{b.next.WithGroup(Cut(name, MaxShownChars))}
}

// boundAttr cuts a's key and string value; a group's attributes in turn;
// any other value (an error, a Stringer, a pointer) by its text.
func boundAttr(a slog.Attr) slog.Attr {
	a.Key = Cut(a.Key, MaxShownChars)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Cut(v.String(), MaxLoggedChars))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, x := range g {
			out[i] = boundAttr(x)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case nil:
			return slog.Any(a.Key, nil)
		case error:
			return slog.String(a.Key, Cut(x.Error(), MaxLoggedChars))
		case fmt.Stringer:
			return slog.String(a.Key, Cut(x.String(), MaxLoggedChars))
		default:
			return slog.String(a.Key, Cut(fmt.Sprint(derefAny(x)), MaxLoggedChars))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// derefAny prints a pointer to a scalar (such as the SDK's *int32) as its
// value, and nil pointers as nil.
func derefAny(x any) any {
	switch p := x.(type) {
	case *string:
		if p == nil {
			return nil
		}
		return *p
	case *int32:
		if p == nil {
			return nil
		}
		return *p
	case *int64:
		if p == nil {
			return nil
		}
		return *p
	case *int:
		if p == nil {
			return nil
		}
		return *p
	case *float64:
		if p == nil {
			return nil
		}
		return *p
	case *bool:
		if p == nil {
			return nil
		}
		return *p
	}
	return x
}
