package submit

import (
	"context"
	"fmt"
	"time"

	"github.com/trainq/trainq/contract"
)

// The queue's recent past, for the CLI's likely start: the queue action
// carries a bounded summary (contract.History) read from a HistorySource —
// the job ledger in production. Without one it says so (NoHistory), and the
// CLI prints the latest start alone.

// HistorySource summarizes the jobs of the days before now: per class and
// team, how many were submitted (and in which hour of the day) and the most
// recent completed ones. It may return more than the contract's bounds;
// the handler cuts.
type HistorySource interface {
	History(ctx context.Context, from, to time.Time) (*contract.History, error)
}

// noHistorySource is what the queue answer says without a HistorySource.
const noHistorySource = "no job ledger is configured for the submission function"

// history reads the summary of the DefaultHistoryDays before now into view;
// a failure leaves the answer without it, saying why (the queue itself was
// read).
func (h *Handler) history(ctx context.Context, now time.Time, view *contract.QueueView) {
	if h.cfg.History == nil {
		view.NoHistory = noHistorySource
		return
	}
	hs, err := h.cfg.History.History(ctx, now.Add(-contract.DefaultHistoryDays*24*time.Hour), now)
	if err != nil || hs == nil {
		h.log.Warn("queue: history not read; the answer carries none", "error", err)
		view.NoHistory = "the job ledger could not be read"
		return
	}
	view.History = boundHistory(hs)
}

// boundHistory cuts a summary to the contract's bounds: MaxHistoryGroups
// groups of MaxHistorySamples jobs, every string at MaxShownChars.
func boundHistory(hs *contract.History) *contract.History {
	out := &contract.History{Source: contract.Cut(hs.Source, contract.MaxShownChars), From: contract.Cut(hs.From, contract.MaxShownChars),
		To: contract.Cut(hs.To, contract.MaxShownChars), Groups: []contract.HistoryGroup{}, Note: contract.Cut(hs.Note, contract.MaxShownChars)}
	var cut []string
	if n := len(hs.Groups); n > contract.MaxHistoryGroups {
		cut = append(cut, fmt.Sprintf("%d of %d class and team groups", contract.MaxHistoryGroups, n))
	}
	for i, g := range hs.Groups {
		if i == contract.MaxHistoryGroups {
			break
		}
		b := contract.HistoryGroup{Class: contract.Cut(g.Class, contract.MaxShownChars), Team: contract.Cut(g.Team, contract.MaxShownChars),
			Submitted: g.Submitted, Batches: min(max(0, g.Batches), max(0, g.Submitted)), Completed: g.Completed, Jobs: []contract.HistoryJob{}}
		if len(g.SubmittedByHour) == 24 {
			b.SubmittedByHour = append([]int(nil), g.SubmittedByHour...)
		}
		for k, j := range g.Jobs {
			if k == contract.MaxHistorySamples {
				break
			}
			j.InstanceType = contract.Cut(j.InstanceType, contract.MaxShownChars)
			b.Jobs = append(b.Jobs, j)
		}
		out.Groups = append(out.Groups, b)
	}
	if len(cut) > 0 {
		out.Note = contract.Cut(fmt.Sprintf("cut to %s; %s", cut[0], out.Note), contract.MaxShownChars)
	}
	return out
}
