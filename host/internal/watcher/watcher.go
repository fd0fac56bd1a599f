package watcher

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Op is what happened to a path, once settled.
type Op int

const (
	// Changed means the path is a present regular file whose size, mtime,
	// mode or identity differs from what was last reported, or that a rescan
	// reported again. Its content may be unchanged; compare hashes.
	Changed Op = iota + 1
	// Removed means the path was known and is now absent, dangling or not a
	// regular file.
	Removed
)

// String returns "Changed" or "Removed".
func (o Op) String() string {
	switch o {
	case Changed:
		return "Changed"
	case Removed:
		return "Removed"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Event is one settled change.
type Event struct {
	// Path is absolute and cleaned: the watched directory joined with the
	// file's base name. For a symlink it is the link's path, not the target's.
	Path string
	Op   Op
}

// String returns the op and the path, e.g. "Changed /plugins/echo.wasm".
func (e Event) String() string { return e.Op.String() + " " + e.Path }

// DefaultSettle is the [Options.Settle] used when none is given. See the
// package documentation for how it was chosen.
const DefaultSettle = 200 * time.Millisecond

// LandedQuiet is the quiet period of a file that landed complete (see the
// package documentation), when shorter than Settle. It only has to cover the
// delivery of Write notifications already queued when the file was sampled.
const LandedQuiet = 20 * time.Millisecond

// pollInterval is how often a vanished directory is looked for. Only a stat
// per tick, and only while the directory is missing.
const pollInterval = 500 * time.Millisecond

// Options configures a [Watcher]. The zero value is ready to use.
type Options struct {
	// Settle is how long a path must go without events before it is
	// examined and reported, unless it landed complete (see the package
	// documentation). Zero means [DefaultSettle]; negative is an error.
	Settle time.Duration
	// Match reports whether a base name can be a plugin file. Nil means
	// [DefaultMatch]. Pass the same function to [Scan].
	Match func(name string) bool
	// Logger receives the watcher's own diagnostics (rescans, the directory
	// vanishing or coming back, each reported event at debug level). Nil
	// means slog.Default().
	Logger *slog.Logger
}

// Watcher reports settled changes to the plugin files of one directory. It is
// safe for concurrent use. Create it with [New], receive from [Watcher.Events]
// and call [Watcher.Close] when done.
type Watcher struct {
	dir    string
	settle time.Duration
	hold   time.Duration // longest a settled path waits for the rest of its batch
	landed time.Duration // quiet period of a file that landed complete
	match  func(string) bool
	log    *slog.Logger
	fsw    *fsnotify.Watcher

	events  chan []Event
	done    chan struct{} // closed by Close
	stopped chan struct{} // closed when run returns

	closeOnce sync.Once
	closeErr  error
}

// New starts watching dir, which must exist and be a directory. The files
// present when New returns are its baseline: they are not reported unless they
// change, but their removal is.
//
// To load without missing a change, call New first, then load the files
// returned by [Scan], then consume [Watcher.Events]; anything that changes
// after New returns is reported, perhaps again (loaders deduplicate by
// content). A caller that loaded the directory before calling New loads it
// again once New has returned, to cover the gap (host.Watch does).
func New(dir string, opts Options) (*Watcher, error) {
	if opts.Settle < 0 {
		return nil, fmt.Errorf("watch %s: negative settle duration %v", dir, opts.Settle)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	w := &Watcher{
		dir:     abs,
		settle:  opts.Settle,
		match:   orDefault(opts.Match),
		log:     opts.Logger,
		events:  make(chan []Event),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	if w.settle == 0 {
		w.settle = DefaultSettle
	}
	w.hold = 10 * w.settle
	w.landed = min(LandedQuiet, w.settle)
	if w.log == nil {
		w.log = slog.Default()
	}
	w.log = w.log.With("dir", abs)

	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("watch %s: not a directory", abs)
	}
	if w.fsw, err = fsnotify.NewWatcher(); err != nil {
		return nil, fmt.Errorf("watch %s: %w", abs, err)
	}
	// Watch before the baseline scan, so a file changing in between is both
	// in the baseline and reported, rather than in neither.
	if err := w.fsw.Add(abs); err != nil {
		_ = w.fsw.Close()
		return nil, fmt.Errorf("watch %s: %w", abs, err)
	}
	known, err := scanStates(abs, w.match)
	if err != nil {
		_ = w.fsw.Close()
		return nil, fmt.Errorf("watch: %w", err)
	}
	go w.run(known)
	return w, nil
}

// Events returns the channel of batches. A batch is never empty, is sorted by
// path and names each path once. The channel is closed by [Watcher.Close] (or
// if fsnotify stops, which is logged). The watcher keeps working while nobody
// receives: changes accumulate, merged per path, into the next batch.
func (w *Watcher) Events() <-chan []Event { return w.events }

// Close stops the watcher, closes the channel returned by [Watcher.Events]
// and releases the file system watch. Changes not yet delivered are dropped.
// It is safe to call more than once and does not wait for a consumer.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.done)
		<-w.stopped
		if err := w.fsw.Close(); err != nil && !errors.Is(err, fsnotify.ErrClosed) {
			w.closeErr = fmt.Errorf("close watch %s: %w", w.dir, err)
		}
	})
	return w.closeErr
}
