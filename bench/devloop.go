package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func init() {
	experiments = append(experiments, experiment{"dev", runDev})
}

// devTool is the name of the C scaffold's project, and so of its tool.
const devTool = "hello"

// devDescription starts the description of the scaffold's tool; the bench
// makes a new description by changing what follows it.
const devDescription = "Counts the words"

// runDev times the development loop as a tool author feels it: in a C
// project of `wasmcp new`, served by `wasmcp dev` to a go-sdk client over
// stdio, from the moment an edit of the tool's description is saved to the
// moment the client, told by list_changed, lists the new description;
// divided by the build command's own time for that edit, which wasmcp dev
// prints ("rebuilt NAME.wasm in 412ms"): the same build, so that the
// machine's load, which stretches a build by more than the loop adds,
// divides out. The first build (cold) is left out; the ratio is the median
// of the edits'.
func runDev(ctx context.Context, e *env) ([]row, error) {
	edits := e.size(9, 2)
	r := row{name: "edit saved → new tool description at a go-sdk client, C scaffold (`wasmcp dev`, warm) ÷ the build command's own time",
		floor: atMost(1.2)}
	for i := range e.opts.reps {
		ratio, loop, build, err := devRep(ctx, e, i, edits)
		if err != nil {
			return []row{r}, err
		}
		e.log.Info("dev", "rep", i, "ratio", fmt.Sprintf("%.2f", ratio), "edit → description", loop, "build", build)
		r.reps = append(r.reps, rep{ratio, ms(loop), ms(build)})
	}
	return []row{r}, nil
}

// devRep makes a C project, serves it with wasmcp dev and edits its tool's
// description edits times. It returns the median ratio of an edit's loop
// to its build, and the loop and build of the median edit.
func devRep(ctx context.Context, e *env, i, edits int) (ratio float64, loop, build time.Duration, err error) {
	parent, err := e.dir(fmt.Sprintf("dev-%d", i))
	if err != nil {
		return 0, 0, 0, err
	}
	if out, err := exec.CommandContext(ctx, e.wasmcp, "new", "--lang", "c", "--sdk", e.root, "--dir", parent, devTool).CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("wasmcp new: %w\n%s", err, out)
	}
	project := filepath.Join(parent, devTool)
	source := filepath.Join(project, "tool.c")
	original, err := os.ReadFile(source)
	if err != nil {
		return 0, 0, 0, err
	}
	if bytes.Count(original, []byte(devDescription)) != 1 {
		return 0, 0, 0, fmt.Errorf("%s holds %q other than once", source, devDescription)
	}

	name := fmt.Sprintf("dev-%d", i)
	cmd, err := e.wasmcpCmd(name, "dev", project)
	if err != nil {
		return 0, 0, 0, err
	}
	changed := make(chan struct{}, 1)
	cs, err := connectStdio(ctx, cmd, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	if err != nil {
		return 0, 0, 0, err
	}
	defer cs.Close()
	described := func(want string) error {
		ctx, cancel := context.WithTimeout(ctx, reloadPatience)
		defer cancel()
		for {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				return err
			}
			for _, t := range res.Tools {
				if t.Name == devTool && strings.HasPrefix(t.Description, want) {
					return nil
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return fmt.Errorf("wasmcp dev: no tool described %q within %s", want, reloadPatience)
			}
		}
	}
	if err := described(devDescription); err != nil { // the first build
		return 0, 0, 0, err
	}

	type timed struct{ loop, build time.Duration }
	var done []timed
	log := filepath.Join(e.work, "logs", name+".log")
	for n := range edits {
		desc := "Edit " + strconv.Itoa(n) + " counts the words"
		start := time.Now()
		if err := os.WriteFile(source, bytes.Replace(original, []byte(devDescription), []byte(desc), 1), 0o644); err != nil {
			return 0, 0, 0, err
		}
		if err := described(desc); err != nil {
			return 0, 0, 0, err
		}
		loop := time.Since(start)
		build, err := devBuildTime(ctx, log, n)
		if err != nil {
			return 0, 0, 0, err
		}
		done = append(done, timed{loop, build})
	}
	slices.SortFunc(done, func(a, b timed) int {
		return cmp.Compare(float64(a.loop)/float64(a.build), float64(b.loop)/float64(b.build))
	})
	m := done[len(done)/2]
	return float64(m.loop) / float64(m.build), m.loop, m.build, nil
}

// devRebuilt is wasmcp dev's line on a rebuild it serves.
var devRebuilt = regexp.MustCompile(`wasmcp dev: rebuilt \S+ in (\S+), serving`)

// devBuildTime returns the time of rebuild n (from 0) that wasmcp dev
// printed in its log, waiting a moment for the line: it comes right after
// the module loads, about when the client is told.
func devBuildTime(ctx context.Context, log string, n int) (time.Duration, error) {
	for range 100 {
		b, err := os.ReadFile(log)
		if err != nil {
			return 0, err
		}
		if m := devRebuilt.FindAllSubmatch(b, -1); len(m) > n {
			return time.ParseDuration(string(m[n][1]))
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("%s: no line of rebuild %d", log, n+1)
}
