package deploy

import (
	"debug/elf"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/deploy/internal/image"
)

// TestContainerfile runs the Containerfile's build stage with this
// machine's Go (a container runtime is not needed, nor available in CI) and
// checks that it makes a static binary that runs, and that the image runs
// it as a non-root user with flags the binary knows, listening on the
// exposed port and writing only to a volume.
func TestContainerfile(t *testing.T) {
	c, err := image.Parse("../Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := image.Build("..", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary needs a dynamic loader; the image's base has none")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary links %v; the image's base has none", libs)
	}
	if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "wasmcp ") {
		t.Errorf("wasmcp version: %v\n%s", err, out)
	}

	final := c.Final()
	uid, _, _ := strings.Cut(final.Last("USER"), ":")
	// Kubernetes' runAsNonRoot can check only a numeric user.
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("USER %q, want a numeric user other than root", final.Last("USER"))
	}
	entry, err := image.Exec(final.Last("ENTRYPOINT"))
	if err != nil {
		t.Fatal(err)
	}
	if copied := final.Instructions[slices.IndexFunc(final.Instructions, func(in image.Instruction) bool {
		return in.Op == "COPY"
	})].Args; len(entry) != 1 || !strings.HasSuffix(copied, " "+entry[0]) {
		t.Errorf("ENTRYPOINT %v runs something else than the binary copied (COPY %s)", entry, copied)
	}
	args, err := image.Exec(final.Last("CMD"))
	if err != nil {
		t.Fatal(err)
	}
	flags, err := image.ServeFlags(bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) == 0 || args[0] != "serve" {
		t.Fatalf("CMD %v, want serve", args)
	}
	if unknown := image.UnknownFlags(args[1:], flags); len(unknown) > 0 {
		t.Errorf("CMD passes flags serve does not know: %v", unknown)
	}
	addr, _ := image.FlagValue(args, "http")
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" || net.ParseIP(host).IsLoopback() {
		t.Errorf("CMD --http %q, want an address other containers can reach", addr)
	}
	if _, ok := image.FlagValue(args, "token-file"); !ok {
		t.Error("CMD serves a non-loopback address without --token-file")
	}
	if !slices.Contains(strings.Fields(final.Last("EXPOSE")), port) {
		t.Errorf("EXPOSE %s, want the --http port %s", final.Last("EXPOSE"), port)
	}
	cache, _ := image.FlagValue(args, "cache-dir")
	volumes, err := image.Exec(final.Last("VOLUME"))
	if err != nil || !slices.Contains(volumes, filepath.Clean(cache)) {
		t.Errorf("VOLUME %s, want the --cache-dir %q, the one directory written", final.Last("VOLUME"), cache)
	}
}
