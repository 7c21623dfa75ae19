package reroute_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/trainq/trainq/metrics/emftest"
)

func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

func emfValues(t testing.TB, out []byte) map[string][]float64 {
	return emftest.Values(emftest.Lines(t, out))
}
