// Package image reads the Containerfile and runs its build stage on this
// machine's Go, without a container runtime, so that the deployment tests
// check the binary the image would hold.
package image

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// An Instruction is one line of a Containerfile, continuations joined.
type Instruction struct {
	Op   string // FROM, COPY, RUN, ... upper case
	Args string
}

// A Stage is the instructions from one FROM to the next.
type Stage struct {
	From, Name   string
	Instructions []Instruction
}

// Containerfile is a parsed Containerfile.
type Containerfile struct {
	Stages []Stage
}

// Parse reads the Containerfile at path.
func Parse(path string) (*Containerfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c Containerfile
	var line strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		text := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(text, "#") || (text == "" && line.Len() == 0) {
			continue
		}
		if cont, ok := strings.CutSuffix(text, "\\"); ok {
			line.WriteString(cont + " ")
			continue
		}
		line.WriteString(text)
		op, args, _ := strings.Cut(line.String(), " ")
		line.Reset()
		in := Instruction{Op: strings.ToUpper(op), Args: strings.TrimSpace(args)}
		switch {
		case in.Op == "FROM":
			from, name, _ := strings.Cut(in.Args, " AS ")
			c.Stages = append(c.Stages, Stage{From: strings.TrimSpace(from), Name: strings.TrimSpace(name)})
		case in.Op == "ARG" && len(c.Stages) == 0:
			// An ARG before the first FROM only parameterizes FROM lines.
		case len(c.Stages) == 0:
			return nil, fmt.Errorf("%s: %s before the first FROM", path, in.Op)
		default:
			s := &c.Stages[len(c.Stages)-1]
			s.Instructions = append(s.Instructions, in)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(c.Stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM", path)
	}
	return &c, nil
}

// Final is the stage that makes the image.
func (c *Containerfile) Final() Stage { return c.Stages[len(c.Stages)-1] }

// Stage is the stage named name.
func (c *Containerfile) Stage(name string) (Stage, bool) {
	for _, s := range c.Stages {
		if s.Name == name {
			return s, true
		}
	}
	return Stage{}, false
}

// Last is the argument of the stage's last op instruction, or "".
func (s Stage) Last(op string) string {
	arg := ""
	for _, in := range s.Instructions {
		if in.Op == op {
			arg = in.Args
		}
	}
	return arg
}

// Exec decodes an instruction's exec form, a JSON array of strings.
func Exec(args string) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(args), &argv); err != nil {
		return nil, fmt.Errorf("not in exec form (a JSON array): %s", args)
	}
	return argv, nil
}

// RunStage runs stage s of the Containerfile at root on this machine: the
// container's root directory is dir, WORKDIR and COPY (from the build
// context at root, less .containerignore's top-level names and
// **/node_modules) act on it, and RUN runs its command with sh, its
// absolute paths under dir. Other instructions are checked elsewhere.
func RunStage(s Stage, root, dir string) error {
	ignored, err := ignoreList(filepath.Join(root, ".containerignore"))
	if err != nil {
		return err
	}
	work := "/"
	for _, in := range s.Instructions {
		switch in.Op {
		case "WORKDIR":
			work = path.Join(work, in.Args)
			if err := os.MkdirAll(filepath.Join(dir, work), 0o755); err != nil {
				return err
			}
		case "COPY":
			f := strings.Fields(in.Args)
			if len(f) < 2 || strings.HasPrefix(f[0], "--") {
				return fmt.Errorf("COPY %s: only COPY SRC... DST from the context runs here", in.Args)
			}
			dst := filepath.Join(dir, path.Join(work, f[len(f)-1]))
			for _, src := range f[:len(f)-1] {
				if err := copyContext(filepath.Join(root, src), dst, strings.HasSuffix(f[len(f)-1], "/") || len(f) > 2 || src == ".", ignored); err != nil {
					return fmt.Errorf("COPY %s: %w", in.Args, err)
				}
			}
		case "RUN":
			cmd := exec.Command("sh", "-c", rootPaths.ReplaceAllString(in.Args, "${1}"+dir+"/"))
			cmd.Dir = filepath.Join(dir, work)
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("RUN %s: %v\n%s", in.Args, err, out)
			}
		}
	}
	return nil
}

// rootPaths are the absolute paths of a RUN command.
var rootPaths = regexp.MustCompile(`(^|\s)/`)

func ignoreList(file string) (map[string]bool, error) {
	b, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			ignored[l] = true
		}
	}
	return ignored, nil
}

// copyContext copies src (a file or a tree) to dst, or into dst when into.
func copyContext(src, dst string, into bool, ignored map[string]bool) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		if into {
			dst = filepath.Join(dst, filepath.Base(src))
		}
		return copyFile(src, dst)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if ignored[top] || (d.IsDir() && d.Name() == "node_modules" && ignored["**/node_modules"]) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// ServeFlags are the flag names "bin serve -h" lists, without dashes.
func ServeFlags(bin string) (map[string]bool, error) {
	out, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	flags := map[string]bool{}
	for _, m := range flagLine.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if len(flags) == 0 {
		return nil, fmt.Errorf("%s serve -h lists no flags:\n%s", bin, out)
	}
	return flags, nil
}

var flagLine = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)

// UnknownFlags are the flags of args (--name or --name=value) that flags
// does not know.
func UnknownFlags(args []string, flags map[string]bool) []string {
	var unknown []string
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "-"); ok {
			name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
			if !flags[name] {
				unknown = append(unknown, a)
			}
		}
	}
	return unknown
}

// FlagValue is the value args give flag name (--name VALUE or
// --name=VALUE), and whether they give it.
func FlagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		a = strings.TrimLeft(a, "-")
		if v, ok := strings.CutPrefix(a, name+"="); ok && len(args[i]) > len(a) {
			return v, true
		}
		if a == name && len(args[i]) > len(a) && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// Build runs the build stage of root's Containerfile under dir and returns
// the path of the binary the final stage copies from it.
func Build(root, dir string) (string, error) {
	c, err := Parse(filepath.Join(root, "Containerfile"))
	if err != nil {
		return "", err
	}
	final := c.Final()
	for _, in := range final.Instructions {
		f := strings.Fields(in.Args)
		if in.Op != "COPY" || len(f) != 3 || !strings.HasPrefix(f[0], "--from=") {
			continue
		}
		build, ok := c.Stage(strings.TrimPrefix(f[0], "--from="))
		if !ok {
			return "", fmt.Errorf("Containerfile: COPY %s names no stage", in.Args)
		}
		if err := RunStage(build, root, dir); err != nil {
			return "", fmt.Errorf("Containerfile, stage %s: %w", build.Name, err)
		}
		return filepath.Join(dir, f[1]), nil
	}
	return "", fmt.Errorf("Containerfile: the final stage copies nothing from a build stage")
}
