package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A proc is one server process the bench talks to over stdio.
type proc struct {
	name string
	cmd  *exec.Cmd
	// ctrl and replies are the control channel (see control), nil for a
	// server without one (the wasmcp command).
	ctrl    *os.File
	replies *bufio.Reader
	// child are the child's ends of the control pipes, closed once it runs.
	child  []*os.File
	stderr *os.File
}

// benchServer prepares this executable as the baseline server of role.
// envv are extra environment variables.
func (e *env) benchServer(name, role string, envv ...string) (*proc, error) {
	return e.newProc(name, true, append([]string{roleEnv + "=" + role}, envv...), e.self)
}

// wasmcpServer prepares the wasmcp command, with the control channel, run
// with args.
func (e *env) wasmcpServer(ctx context.Context, name string, envv []string, args ...string) (*proc, error) {
	bin, err := e.wasmcp(ctx)
	if err != nil {
		return nil, err
	}
	return e.newProc(name, true, envv, bin, args...)
}

// newProc prepares the executable path, run with args and the extra
// environment envv, as a server, with the control channel of control.go
// when control is set.
func (e *env) newProc(name string, control bool, envv []string, path string, args ...string) (*proc, error) {
	cmd := exec.Command(path, args...)
	p := &proc{name: name, cmd: cmd}
	if control {
		envv = append(envv, benchControlEnv+"=1")
		// fd 3: commands to the child; fd 4: its replies.
		cr, cw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		rr, rw, err := os.Pipe()
		if err != nil {
			cr.Close()
			cw.Close()
			return nil, err
		}
		cmd.ExtraFiles = []*os.File{cr, rw}
		p.ctrl, p.replies, p.child = cw, bufio.NewReader(rr), []*os.File{cr, rw}
	}
	cmd.Env = append(os.Environ(), envv...)
	return p, e.logStderr(p)
}

// logStderr sends the server's log to a file of the work directory.
func (e *env) logStderr(p *proc) error {
	dir := filepath.Join(e.work, "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, slug(p.name)+".log"))
	if err != nil {
		return err
	}
	p.cmd.Stderr, p.stderr = f, f
	return nil
}

// started closes the parent's copies of the child's pipe ends.
func (p *proc) started() {
	for _, f := range p.child {
		f.Close()
	}
	p.child = nil
}

// begin starts a measurement window in the server; args may ask for a
// profile of it (see controller).
func (p *proc) begin(args ...string) error {
	if p.ctrl == nil {
		return nil
	}
	if _, err := fmt.Fprintln(p.ctrl, strings.Join(append([]string{"begin"}, args...), " ")); err != nil {
		return err
	}
	line, err := p.replies.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("%s: control: %w", p.name, err)
	}
	if !bytes.Equal(bytes.TrimSpace(line), []byte(`"ok"`)) {
		return fmt.Errorf("%s: control: %s", p.name, line)
	}
	return nil
}

// end closes the measurement window and returns what the server allocated
// in it; ok is false for a server without a control channel.
func (p *proc) end() (d benchMemDelta, ok bool, err error) {
	if p.ctrl == nil {
		return d, false, nil
	}
	if _, err := fmt.Fprintln(p.ctrl, "end"); err != nil {
		return d, false, err
	}
	line, err := p.replies.ReadBytes('\n')
	if err != nil {
		return d, false, fmt.Errorf("%s: control: %w", p.name, err)
	}
	if err := json.Unmarshal(line, &d); err != nil {
		return d, false, fmt.Errorf("%s: control: %s", p.name, line)
	}
	return d, true, nil
}

// heap asks the server for its benchHeapStats, and to write its heap profile
// to path when path is not empty.
func (p *proc) heap(path string) (h benchHeapStats, err error) {
	if p.ctrl == nil {
		return h, fmt.Errorf("%s has no control channel", p.name)
	}
	if _, err := fmt.Fprintf(p.ctrl, "heap %s\n", path); err != nil {
		return h, err
	}
	line, err := p.replies.ReadBytes('\n')
	if err != nil {
		return h, fmt.Errorf("%s: control: %w", p.name, err)
	}
	if err := json.Unmarshal(line, &h); err != nil || h.Sys == 0 {
		return h, fmt.Errorf("%s: control: %s", p.name, line)
	}
	return h, nil
}

// cpu returns the CPU time the server has used, user and system: the sum
// of its threads' run time in nanoseconds (/proc/PID/task/TID/schedstat),
// or, where the kernel keeps no schedstat, /proc/PID/stat's in clock ticks
// of 10 ms. A stdio row's process runs ~80 ms of CPU in a run, which ticks
// would give to ±10%. The sum leaves out threads that have exited, which a
// Go server's do not (none locks a goroutine to its thread and ends it).
func (p *proc) cpu() (time.Duration, error) {
	if d, err := taskRunTime(p.cmd.Process.Pid); err == nil {
		return d, nil
	}
	return statCPU(p.cmd.Process.Pid)
}

// taskRunTime sums the run time of the threads of process pid.
func taskRunTime(pid int) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if errors.Is(err, fs.ErrNotExist) && t.Name() != strconv.Itoa(pid) {
			continue // the thread ended since ReadDir
		}
		if err != nil {
			return 0, err
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("empty %s schedstat", t.Name())
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, err
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// statCPU is the user and system time of process pid from /proc/PID/stat.
func statCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14 and stime 15.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat: %q", b)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on every Linux ABI Go supports
	return time.Duration(ut+st) * tick, nil
}

// memory returns the server's resident set and its peak (/proc/PID/status
// VmRSS and VmHWM), in bytes.
func (p *proc) memory() (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	if rss == 0 || peak == 0 {
		return 0, 0, fmt.Errorf("no VmRSS/VmHWM in /proc/%d/status", p.cmd.Process.Pid)
	}
	return rss, peak, nil
}

// close ends the server with SIGTERM (a stdio server has usually stopped
// already, its client having closed its stdin); a server still running 10 s
// later is killed.
func (p *proc) close() {
	if p.ctrl != nil {
		p.ctrl.Close()
	}
	p.started()
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() {
			_ = p.cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
	}
	if p.stderr != nil {
		p.stderr.Close()
	}
}

// sdkClient connects a go-sdk client to the server over its stdio. opts may
// be nil.
func (e *env) sdkClient(ctx context.Context, p *proc, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "wasmcp-bench", Version: "0"}, opts)
	// Closing the session closes the server's stdin, which stops it.
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: p.cmd, TerminateDuration: 10 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: e.opts.protocol})
	p.started()
	if err != nil {
		return nil, fmt.Errorf("%s: connect: %w", p.name, err)
	}
	return cs, nil
}

// rawClient is the floor's client: it writes one request line and reads
// lines until the response with its id, decoding it with encoding/json.
type rawClient struct {
	in   io.WriteCloser
	out  *bufio.Reader
	next int64
	buf  []byte
	// last is the result of the latest response, to compare servers' answers.
	last json.RawMessage
}

// startRaw starts the server and performs the MCP initialize handshake by
// hand (the raw server answers it too).
func (e *env) startRaw(ctx context.Context, p *proc) (*rawClient, error) {
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start: %w", p.name, err)
	}
	p.started()
	c := &rawClient{in: in, out: bufio.NewReaderSize(out, 64<<10)}
	init := fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"wasmcp-bench-raw","version":"0"}}`, e.opts.protocol)
	if _, err := c.request("initialize", init); err != nil {
		return nil, fmt.Errorf("%s: initialize: %w", p.name, err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return nil, err
	}
	return c, nil
}

// request sends one request and returns its result.
func (c *rawClient) request(method, params string) (json.RawMessage, error) {
	c.next++
	id := c.next
	c.buf = append(c.buf[:0], `{"jsonrpc":"2.0","id":`...)
	c.buf = strconv.AppendInt(c.buf, id, 10)
	c.buf = append(c.buf, `,"method":"`...)
	c.buf = append(c.buf, method...)
	c.buf = append(c.buf, `","params":`...)
	c.buf = append(c.buf, params...)
	c.buf = append(c.buf, "}\n"...)
	if _, err := c.in.Write(c.buf); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp struct {
			ID     *int64          `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *rawError       `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("response %q: %w", line, err)
		}
		if resp.ID == nil || *resp.ID != id {
			continue // a notification, or a request from the server
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: error %d: %s", method, resp.Error.Code, resp.Error.Message)
		}
		c.last = resp.Result
		return resp.Result, nil
	}
}

func (c *rawClient) close() { c.in.Close() }

// slug turns a name into a file name.
func slug(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, name)
}
