// This file is compiled into two programs: the bench, whose child servers
// it serves, and the wasmcp command, into which the bench adds it with
// `go build -overlay` (see env.wasmcp), so that the figures of wasmcp's rows
// come from the product itself rather than from a copy of its set-up. It
// therefore uses the standard library only, and its names start with bench
// so as not to collide with the command's own.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
)

const (
	// benchControlEnv tells a server that file descriptors 3 (commands) and
	// 4 (replies) are its control channel; see benchController.
	benchControlEnv = "WASMCP_BENCH_CONTROL"
	// benchStartProfileEnv names a file for a CPU profile of the server from
	// its start to the first control command heap: its start-up.
	benchStartProfileEnv = "WASMCP_BENCH_STARTPROFILE"
	// benchMemProfileRate is runtime.MemProfileRate while an allocation
	// profile is taken: fine enough to see small allocations beside large
	// buffers. It is set only for that window, because sampling this often
	// costs CPU time that would distort a CPU profile.
	benchMemProfileRate = 4096
)

func init() {
	var startProfile *os.File
	if path := os.Getenv(benchStartProfileEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench start-up profile: %v\n", err)
		} else {
			startProfile = f
		}
	}
	if os.Getenv(benchControlEnv) != "" {
		c := &benchController{cpu: startProfile}
		go c.serve(os.NewFile(3, "bench-control-in"), os.NewFile(4, "bench-control-out"))
	}
}

// benchMemDelta is what a server allocated between the control commands
// begin and end.
type benchMemDelta struct {
	Mallocs uint64 `json:"mallocs"`
	Bytes   uint64 `json:"bytes"`
	GCs     uint32 `json:"gcs"`
}

// add adds o's allocations to d's.
func (d *benchMemDelta) add(o benchMemDelta) {
	d.Mallocs += o.Mallocs
	d.Bytes += o.Bytes
	d.GCs += o.GCs
}

// benchHeapStats is the reply to the control command heap: Go's view of
// the server's memory, to set beside its resident set.
type benchHeapStats struct {
	HeapInuse  uint64 `json:"heapInuse"`
	StackInuse uint64 `json:"stackInuse"`
	Sys        uint64 `json:"sys"` // all memory the Go runtime obtained from the OS
}

// benchController serves the control channel, one command per line:
//
//	begin                 start a measurement window; answers "ok"
//	begin cpu PREFIX      also write a CPU profile of it to PREFIX.cpu.pprof
//	begin allocs PREFIX   also profile its allocations: PREFIX.allocs-begin.pprof
//	                      now, PREFIX.allocs-end.pprof at end (compare them
//	                      with pprof -base)
//	begin trace PREFIX    also write an execution trace of it to PREFIX.trace
//	end                   end the window; answers the benchMemDelta as JSON
//	heap [PATH]           collect garbage; answer benchHeapStats, write the
//	                      heap profile to PATH; end the start-up CPU profile
//
// Errors are answered as {"error": "..."}.
type benchController struct {
	start   runtime.MemStats
	cpu     *os.File // CPU profile of the window, or of the start-up
	trace   *os.File // execution trace of the window
	allocs  string   // prefix of the window's allocation profiles
	oldRate int
}

func (c *benchController) serve(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var reply any
		if err := c.do(strings.Fields(sc.Text()), &reply); err != nil {
			reply = map[string]string{"error": err.Error()}
		}
		b, _ := json.Marshal(reply)
		fmt.Fprintf(out, "%s\n", b)
	}
}

func (c *benchController) do(args []string, reply *any) error {
	if len(args) == 0 {
		return fmt.Errorf("empty command")
	}
	switch {
	case args[0] == "begin" && len(args) == 1:
	case args[0] == "begin" && len(args) == 3 && args[1] == "cpu":
		f, err := benchStartFile(args[2]+".cpu.pprof", pprof.StartCPUProfile)
		if err != nil {
			return err
		}
		c.cpu = f
	case args[0] == "begin" && len(args) == 3 && args[1] == "trace":
		f, err := benchStartFile(args[2]+".trace", trace.Start)
		if err != nil {
			return err
		}
		c.trace = f
	case args[0] == "begin" && len(args) == 3 && args[1] == "allocs":
		c.oldRate, runtime.MemProfileRate = runtime.MemProfileRate, benchMemProfileRate
		c.allocs = args[2]
		if err := benchWriteAllocs(c.allocs + ".allocs-begin.pprof"); err != nil {
			return err
		}
	case args[0] == "end" && len(args) == 1:
		var end runtime.MemStats
		runtime.ReadMemStats(&end)
		*reply = benchMemDelta{Mallocs: end.Mallocs - c.start.Mallocs, Bytes: end.TotalAlloc - c.start.TotalAlloc, GCs: end.NumGC - c.start.NumGC}
		c.stopCPU()
		if c.trace != nil {
			trace.Stop()
			c.trace.Close()
			c.trace = nil
		}
		if c.allocs != "" {
			// Written at the same rate as the begin profile, so that the
			// samples before the window scale alike in both and cancel out.
			err := benchWriteAllocs(c.allocs + ".allocs-end.pprof")
			runtime.MemProfileRate, c.allocs = c.oldRate, ""
			return err
		}
		return nil
	case args[0] == "heap" && len(args) <= 2:
		c.stopCPU()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if len(args) == 2 {
			if err := benchWriteProfile("heap", args[1]); err != nil {
				return err
			}
		}
		*reply = benchHeapStats{HeapInuse: m.HeapInuse, StackInuse: m.StackInuse, Sys: m.Sys}
		return nil
	default:
		return fmt.Errorf("unknown command %q", strings.Join(args, " "))
	}
	runtime.ReadMemStats(&c.start)
	*reply = "ok"
	return nil
}

// benchStartFile creates the file at path and starts writing a profile or
// trace to it with start.
func benchStartFile(path string, start func(io.Writer) error) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (c *benchController) stopCPU() {
	if c.cpu != nil {
		pprof.StopCPUProfile()
		c.cpu.Close()
		c.cpu = nil
	}
}

// benchWriteAllocs writes the allocation profile after a collection, which
// is when the profile catches up with the allocations made.
func benchWriteAllocs(path string) error {
	runtime.GC()
	return benchWriteProfile("allocs", path)
}

func benchWriteProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup(name).WriteTo(f, 0)
}
