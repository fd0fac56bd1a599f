package sandbox

// Bounds of what one call (or one describe) may log. Past either, further
// lines are dropped and one warning says so: a guest logging in a loop
// otherwise fills the operator's disk and the client's connection for as
// long as its deadline allows. Each line is also bounded, by
// abi.MaxLogSize.
const (
	// MaxLogLines is the most log lines one call passes on.
	MaxLogLines = 1000
	// MaxLogBytes is the most bytes of log messages one call passes on.
	MaxLogBytes = 1 << 20
)

// logCount is what a call has logged so far.
type logCount struct {
	lines, bytes int
	dropped      bool
}

// allow counts a line of n bytes and reports whether it may be passed on,
// and whether it is the first one dropped (so that the drop is reported
// once).
func (c *logCount) allow(n int) (ok, firstDrop bool) {
	if c.lines < MaxLogLines && c.bytes+n <= MaxLogBytes {
		c.lines++
		c.bytes += n
		return true, false
	}
	firstDrop = !c.dropped
	c.dropped = true
	return false, firstDrop
}
