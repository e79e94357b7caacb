/*
Copyright 2026 The Knative Authors

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	apierrs "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"knative.dev/route-address/pkg/preview"
)

// ExitTimeout is status --watch's exit code when --timeout passes before
// every name has the configured mode's shape.
const ExitTimeout = 3

// ExitNotOwned is the exit code of plan, and of status --watch once the
// controller has nothing left to do, when names are held by objects their
// Routes do not control (NotOwned): the controller leaves those alone, so
// they keep answering whatever those objects say (they are listed).
const ExitNotOwned = 4

// passing reports whether a read failed for a reason that passes by
// itself: the apiserver unreachable, overloaded or failing (429, 5xx,
// timeouts).
func passing(err error) bool {
	var status apierrs.APIStatus
	switch {
	case apierrs.IsTooManyRequests(err), apierrs.IsServerTimeout(err), apierrs.IsTimeout(err),
		apierrs.IsServiceUnavailable(err), apierrs.IsInternalError(err):
		return true
	case errors.As(err, &status) && status.Status().Code >= 500:
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout() ||
		utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err)
}

// sleep waits d or until ctx is done; tests replace it.
var sleep = func(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// isTerminal reports whether w is a terminal (a character device); tests
// replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// watchOptions are status --watch's flags.
type watchOptions struct {
	interval, timeout time.Duration
	perNamespace      bool
}

// watchLine is one -o json line of status --watch.
type watchLine struct {
	*preview.Progress
	// WritesPerSecond is the rate at which the operations left went down
	// since the watch started.
	WritesPerSecond float64 `json:"writesPerSecond"`
	// SecondsLeft estimates the time left at that rate (absent while
	// unknown).
	SecondsLeft *float64 `json:"secondsLeft,omitempty"`
}

// maxRetryDelay bounds the wait before reading again after a read failed
// for a passing reason.
const maxRetryDelay = 30 * time.Second

// watch follows a switch until every name has the configured mode's shape
// (nil), or until o.timeout passes, counted from its start, whatever it is
// doing then (ExitTimeout, with the names left when it has read them). The
// objects in scope are listed once and then watched (preview.Watch); every
// o.interval, the configuration is read and the caches planned. A read that
// fails for a passing reason (passing) is retried after o.interval,
// doubling with each failure in a row up to maxRetryDelay, with a warning on
// stderr, as is a watch that fails so; any other failure ends the watch.
func watch(ctx context.Context, clients preview.Clients, scope preview.Scope, o watchOptions, output string, w, stderr io.Writer) error {
	r := &renderer{w: w, json: output == outputJSON, terminal: output != outputJSON && isTerminal(w), perNamespace: o.perNamespace}
	start := clients.Now
	if start == nil {
		start = time.Now
	}
	began := start()
	var cancel context.CancelFunc
	if o.timeout > 0 {
		// Also while the objects are listed the first time and while reads
		// fail: the watch never outlives its timeout.
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	// timedOut ends a watch whose timeout passed before it could read the
	// names (err says why).
	timedOut := func(err error) error {
		if !r.json {
			fmt.Fprintf(w, "timed out after %s before the names could be read: %v\n", o.timeout, err)
		}
		return exitError{ExitTimeout}
	}
	objects, err := clients.Watch(ctx, scope, func(err error) {
		fmt.Fprintf(stderr, "warning: %v; watching again\n", err)
	})
	if o.timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
		return timedOut(errors.New("the objects in scope were not listed yet"))
	}
	if err != nil {
		return err
	}
	var first *preview.Progress
	delay := o.interval
	for {
		p, err := objects.Progress(ctx)
		if err != nil {
			if !passing(err) {
				return err
			}
			if o.timeout > 0 && start().Sub(began) >= o.timeout {
				return timedOut(err)
			}
			fmt.Fprintf(stderr, "warning: %v; reading again in %v\n", err, delay)
			if err := sleep(ctx, delay); err != nil {
				if o.timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
					return timedOut(errors.New("the last read failed"))
				}
				return err
			}
			delay = min(2*delay, maxRetryDelay)
			continue
		}
		delay = o.interval
		if first == nil {
			first = p
		}
		line := watchLine{Progress: p}
		if dt := p.Time.Sub(first.Time).Seconds(); dt > 0 && first.OperationsLeft > p.OperationsLeft {
			line.WritesPerSecond = float64(first.OperationsLeft-p.OperationsLeft) / dt
			left := float64(p.OperationsLeft) / line.WritesPerSecond
			line.SecondsLeft = &left
		}
		late := o.timeout > 0 && p.Time.Sub(began) >= o.timeout
		if err := r.frame(line, p.Converged() || late); err != nil {
			return err
		}
		switch {
		case p.Converged() && p.Blocked > 0:
			r.held(p)
			return exitError{ExitNotOwned}
		case p.Converged():
			return nil
		case late:
			r.stuck(p, o.timeout)
			return exitError{ExitTimeout}
		}
		if err := sleep(ctx, o.interval); err != nil {
			if o.timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
				r.stuck(p, o.timeout)
				return exitError{ExitTimeout}
			}
			return err
		}
	}
}

// renderer draws status --watch: a progress bar redrawn in place on a
// terminal, one plain line per interval otherwise, JSON lines for -o json.
type renderer struct {
	w                            io.Writer
	json, terminal, perNamespace bool
	// drawn is the number of lines the terminal shows of the last frame.
	drawn int
}

func (r *renderer) frame(l watchLine, last bool) error {
	if r.json {
		if !last {
			l.Progress = withoutLeft(l.Progress)
		}
		if !r.perNamespace {
			p := *l.Progress
			p.Namespaces = nil
			l.Progress = &p
		}
		return json.NewEncoder(r.w).Encode(l)
	}
	p := l.Progress
	rate, eta := "", ""
	if l.WritesPerSecond > 0 {
		rate = fmt.Sprintf(", %.1f writes/s", l.WritesPerSecond)
	}
	switch {
	case p.Converged():
		eta = ", done"
	case l.SecondsLeft != nil && *l.SecondsLeft < 1:
		eta = ", under a second left"
	case l.SecondsLeft != nil:
		eta = ", about " + (time.Duration(*l.SecondsLeft) * time.Second).Round(time.Second).String() + " left"
	case p.OperationsLeft == 0:
		eta = ", waiting"
	}
	if p.Blocked > 0 {
		eta += fmt.Sprintf(", %d held by objects their Routes do not control", p.Blocked)
	}
	summary := fmt.Sprintf("%d/%d names done (route-address-mode=%s), %d operations left%s%s", p.Done, p.Names, p.Mode, p.OperationsLeft, rate, eta)
	var lines []string
	if r.terminal {
		lines = append(lines, bar(p.Done, p.Names, 30)+" "+summary)
	} else {
		lines = append(lines, p.Time.UTC().Format(time.RFC3339)+" "+summary)
	}
	if r.perNamespace {
		for _, ns := range p.Namespaces {
			line := fmt.Sprintf("  %s %d/%d", ns.Namespace, ns.Done, ns.Names)
			if ns.Mode != p.Mode {
				line += fmt.Sprintf(" (route-address-mode=%s, its annotation)", ns.Mode)
			}
			lines = append(lines, line)
		}
	}
	if r.terminal {
		// Back to the first line of the last frame, clearing each.
		var b strings.Builder
		if r.drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", r.drawn)
		}
		for _, l := range lines {
			b.WriteString("\r\x1b[2K" + l + "\n")
		}
		r.drawn = len(lines)
		_, err := io.WriteString(r.w, b.String())
		return err
	}
	_, err := io.WriteString(r.w, strings.Join(lines, "\n")+"\n")
	return err
}

// held lists the names objects their Routes do not control hold, once
// everything else is done.
func (r *renderer) held(p *preview.Progress) {
	if r.json {
		return
	}
	fmt.Fprintf(r.w, "%d names are held by objects their Routes do not control (NotOwned); route-address leaves them alone:\n", p.Blocked)
	for _, n := range p.Left {
		fmt.Fprintf(r.w, "  %s/%s %s: %s\n", n.Namespace, n.Route, n.Service, n.Left)
	}
}

// stuck lists the names still not done when --timeout passed.
func (r *renderer) stuck(p *preview.Progress, timeout time.Duration) {
	if r.json {
		return
	}
	fmt.Fprintf(r.w, "timed out after %s: %d names are not done (route-address-mode=%s):\n", timeout, p.Names-p.Done, p.Mode)
	for _, n := range p.Left {
		fmt.Fprintf(r.w, "  %s/%s %s: %s\n", n.Namespace, n.Route, n.Service, n.Left)
	}
}

// bar is a progress bar width characters wide.
func bar(done, total, width int) string {
	filled := width
	if total > 0 {
		filled = done * width / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat("-", width-filled) + "]"
}

func withoutLeft(p *preview.Progress) *preview.Progress {
	c := *p
	c.Left = nil
	return &c
}
