package watcher

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxDrain bounds how many queued notifications are taken in one go before
// the loop looks at its other channels again. Draining lets one stat serve a
// burst of Write events on the same file (dd with 4 KiB blocks sends
// thousands).
const maxDrain = 4096

// loop is the state of the watcher's goroutine. Only run and its methods touch
// it, so none of it needs locking, and a single timer serves every pending
// path however many there are.
type loop struct {
	w *Watcher
	// known holds the last reported state of each present file (initially
	// the baseline scan): what Changed is decided against, and what is
	// reported Removed when it vanishes.
	known   map[string]fileState
	pending map[string]*pending
	touched map[string]fsnotify.Op // paths notified since the last flush, with their ops
	ready   []Event                // settled, not yet delivered; sorted when delivered
	readyAt map[string]int         // index into ready, to merge a path's later state
	lost    bool                   // the directory is gone; polling for it
}

// pending is a path that had an event and has not settled yet.
type pending struct {
	due    time.Time // when it will have been quiet long enough (see landed)
	sample fileState // its state at its last event (or last re-check)
	force  bool      // report Changed even if the state equals the known one
	// created and wrote record, since the path became pending, a Create
	// notification, and a Write or anything else that may have written the
	// file (a rescan, a change no notification announced).
	created, wrote bool
}

// landed reports whether the path looks like a file that arrived complete:
// a rename or a hard link into the directory notifies Create and nothing
// else, and the file is not empty. Such a path needs only a short quiet
// period; anything written in place needs Settle.
func (p *pending) landed() bool {
	return p.created && !p.wrote && p.sample.exists() && p.sample.fi.Size() > 0
}

func (w *Watcher) run(known map[string]fileState) {
	defer close(w.stopped)
	defer close(w.events)

	l := &loop{
		w:       w,
		known:   known,
		pending: make(map[string]*pending),
		touched: make(map[string]fsnotify.Op),
		readyAt: make(map[string]int),
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var timerAt time.Time // zero: timer stopped
	var poll *time.Ticker
	defer func() {
		timer.Stop()
		if poll != nil {
			poll.Stop()
		}
	}()

	for {
		if wake, ok := l.nextWake(); !ok {
			if !timerAt.IsZero() {
				timer.Stop()
				timerAt = time.Time{}
			}
		} else if !wake.Equal(timerAt) {
			timer.Reset(time.Until(wake))
			timerAt = wake
		}
		var pollC <-chan time.Time
		switch {
		case l.lost && poll == nil:
			poll = time.NewTicker(pollInterval)
		case !l.lost && poll != nil:
			poll.Stop()
			poll = nil
		}
		if poll != nil {
			pollC = poll.C
		}
		var out chan<- []Event
		if len(l.ready) > 0 {
			out = w.events
		}

		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok || !l.drain(ev) {
				w.log.Error("file system notifications stopped; no further changes will be reported")
				return
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				w.log.Error("file system notifications stopped; no further changes will be reported")
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.log.Warn("file system event queue overflowed; rescanning the plugin directory")
			} else {
				w.log.Warn("file system watch error; rescanning the plugin directory", "err", err)
			}
			l.rescanAll()
		case <-timer.C:
			timerAt = time.Time{}
			l.settle(time.Now())
		case <-pollC:
			if l.attach() {
				w.log.Info("plugin directory is back")
				l.lost = false
				l.rescanAll()
			}
		case out <- l.batch():
			l.ready = nil
			clear(l.readyAt)
		}
	}
}

// drain handles ev and every notification already queued behind it, then
// samples each touched path once. It returns false if fsnotify closed its
// channel.
func (l *loop) drain(ev fsnotify.Event) bool {
	l.note(ev)
	open := true
	for i := 0; open && i < maxDrain; i++ {
		select {
		case ev, open = <-l.w.fsw.Events:
			if open {
				l.note(ev)
			}
			continue
		default:
		}
		break // nothing more queued
	}
	l.flush(time.Now())
	return open
}

// flush samples each path noted since the last flush, once however many
// notifications it had.
func (l *loop) flush(now time.Time) {
	for p, ops := range l.touched {
		l.touch(p, statFile(p), ops, false, now)
	}
	clear(l.touched)
}

// note records that ev's path needs a look. Events for the directory itself
// matter only when it goes away; events for other names are noise (temporary
// files, subdirectories' names are filtered when stat'ed).
func (l *loop) note(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	if name == l.w.dir {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			l.dirGone()
		}
		return
	}
	if filepath.Dir(name) != l.w.dir || !l.w.match(filepath.Base(name)) {
		return
	}
	l.touched[name] |= ev.Op
}

// touch (re)starts path's quiet period with a fresh sample: the short one
// of a landed file, Settle otherwise. ops are the notifications that caused
// it; zero means none were seen (a rescan, the directory going away), which
// counts as a possible write.
func (l *loop) touch(path string, sample fileState, ops fsnotify.Op, force bool, now time.Time) {
	p := l.pending[path]
	if p == nil {
		p = &pending{}
		l.pending[path] = p
	}
	p.sample = sample
	p.force = p.force || force
	p.created = p.created || ops.Has(fsnotify.Create)
	p.wrote = p.wrote || ops == 0 || ops.Has(fsnotify.Write)
	quiet := l.w.settle
	if p.landed() {
		quiet = l.w.landed
	}
	p.due = now.Add(quiet)
}

// nextWake is when settle must next run: when every pending path has been
// quiet long enough (so the batch is complete), or when the earliest quiet
// path has waited hold for that, whichever comes first.
func (l *loop) nextWake() (time.Time, bool) {
	minDue, maxDue, ok := l.dueRange()
	if !ok {
		return time.Time{}, false
	}
	if wake := minDue.Add(l.w.hold); wake.Before(maxDue) {
		return wake, true
	}
	return maxDue, true
}

func (l *loop) dueRange() (minDue, maxDue time.Time, ok bool) {
	for _, p := range l.pending {
		if !ok || p.due.Before(minDue) {
			minDue = p.due
		}
		if !ok || p.due.After(maxDue) {
			maxDue = p.due
		}
		ok = true
	}
	return minDue, maxDue, ok
}

// settle examines the paths whose quiet period is over. Normally that is all
// of them (the directory went quiet); when other paths are still busy, only
// those that have waited hold beyond their own quiet period.
func (l *loop) settle(now time.Time) {
	_, maxDue, ok := l.dueRange()
	if !ok {
		return
	}
	all := !maxDue.After(now)
	for path, p := range l.pending {
		if p.due.After(now) || (!all && now.Sub(p.due) < l.w.hold) {
			continue
		}
		cur := statFile(path)
		if !cur.same(p.sample) {
			// It changed although no notification said so: still being
			// written through another path, or the notification is late.
			// Either way it is being written, so it needs Settle.
			p.sample = cur
			p.wrote = true
			p.due = now.Add(l.w.settle)
			continue
		}
		delete(l.pending, path)
		l.resolve(path, cur, p.force)
	}
}

// resolve turns a settled state into an event, if it is news.
func (l *loop) resolve(path string, cur fileState, force bool) {
	old, had := l.known[path]
	switch {
	case cur.exists():
		if had && !force && old.same(cur) {
			return
		}
		l.known[path] = cur
		l.emit(path, Changed)
	case had:
		delete(l.known, path)
		l.emit(path, Removed)
	}
}

func (l *loop) emit(path string, op Op) {
	l.w.log.Debug("plugin file "+strings.ToLower(op.String()), "path", path)
	if i, ok := l.readyAt[path]; ok {
		l.ready[i].Op = op // the consumer only needs the latest state
		return
	}
	l.readyAt[path] = len(l.ready)
	l.ready = append(l.ready, Event{Path: path, Op: op})
}

// batch returns the undelivered events sorted by path. ready is dropped as
// soon as it is delivered, so sorting in place never touches a slice the
// consumer holds.
func (l *loop) batch() []Event {
	if len(l.ready) == 0 {
		return nil
	}
	if !slices.IsSortedFunc(l.ready, cmpEvent) {
		slices.SortFunc(l.ready, cmpEvent)
		for i, e := range l.ready {
			l.readyAt[e.Path] = i
		}
	}
	return l.ready
}

func cmpEvent(a, b Event) int { return strings.Compare(a.Path, b.Path) }

// rescanAll marks every present matching file and every known file pending,
// forcing a Changed for those present. It is the answer to anything that may
// have lost notifications.
func (l *loop) rescanAll() {
	if l.lost {
		return // attaching rescans once the directory is back
	}
	states, err := scanStates(l.w.dir, l.w.match)
	if err != nil {
		if _, serr := os.Stat(l.w.dir); serr != nil {
			l.dirGone()
			return
		}
		// Unreadable but present: known files still get re-checked below.
		l.w.log.Warn("rescan failed", "err", err)
	}
	now := time.Now()
	for path, st := range states {
		l.touch(path, st, 0, true, now)
	}
	for path := range l.known {
		if _, ok := states[path]; !ok {
			l.touch(path, statFile(path), 0, true, now)
		}
	}
}

// dirGone handles the watched directory being removed or renamed. If a
// directory already stands at the path again, it is watched and rescanned;
// otherwise every known file becomes pending (and will settle as Removed)
// and the loop polls for the directory's return.
func (l *loop) dirGone() {
	// The old watch may survive a rename (Windows) and would report on the
	// directory's new location; it may also already be gone.
	_ = l.w.fsw.Remove(l.w.dir)
	if l.attach() {
		l.lost = false
		l.rescanAll()
		return
	}
	if !l.lost {
		l.w.log.Info("plugin directory disappeared; waiting for it to be recreated")
	}
	l.lost = true
	now := time.Now()
	for path := range l.known {
		l.touch(path, statFile(path), 0, false, now)
	}
}

// attach watches the directory path if it holds a directory.
func (l *loop) attach() bool {
	fi, err := os.Stat(l.w.dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	if err := l.w.fsw.Add(l.w.dir); err != nil {
		l.w.log.Debug("watching the recreated plugin directory failed; retrying", "err", err)
		return false
	}
	return true
}
