// Package mountfs gives a guest a host directory and confines it there: the
// file system of a mount the policy grants (SECURITY.md, "The file system").
// It is the one place that enforces that model: every operation resolves
// inside the directory, atomically, through an os.Root, so that ".." and
// symbolic links never lead out, even while other instances of the plugin
// rename links in it.
package mountfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmcp/wasmcp/host/policy"
)

// fakeEpochNanos is where wazero's fake wall clock starts, midnight UTC
// 2022-01-01: every timestamp a guest without the clock grant reads.
const fakeEpochNanos = 1640995200 * int64(time.Second)

// FS is a host directory as a guest sees it. Every operation is one call of an os.Root opened on the
// directory: the kernel resolves each path component relative to the
// directory already reached (openat), os.Root follows symbolic links itself
// and refuses any that leaves the directory, and ".." never climbs above it.
// Nothing is checked first and looked up again afterwards, so a guest
// renaming links in its own mount from another instance cannot change what
// an operation reaches. The root stays open for the module's lifetime;
// os.Root is safe for concurrent use by the module's instances.
type FS struct {
	experimentalsys.UnimplementedFS
	root *os.Root
	// write allows changes. Without it each one fails with EROFS, and files
	// open only for reading.
	write bool
	// realTimes shows files' timestamps. Without it, as without the clock
	// grant, each reads as fakeEpochNanos: a file's times would tell the
	// guest the real time.
	realTimes bool
}

// Open opens the directory of m for a guest; clock says whether the guest
// may see files' real timestamps, as it may see the real time.
func Open(m policy.Mount, clock bool) (*FS, error) {
	root, err := os.OpenRoot(m.HostPath)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", m.HostPath, err)
	}
	return &FS{root: root, write: m.Write, realTimes: clock}, nil
}

// rootName turns a guest path, relative to the mount and cleaned by wazero,
// into an os.Root name. wazero joins a path to the name of the directory it
// is relative to, and that name is empty for the mount itself opened again:
// "/x" is "x" in the mount.
func rootName(p string) string {
	if p = strings.TrimLeft(p, "/"); p == "" {
		return "."
	}
	return p
}

// errnoOf maps an error of os.Root or os.File to an errno. Errors os.Root
// makes itself rather than the system, a path or link that would leave the
// directory or an absolute link, are EPERM.
func errnoOf(err error) experimentalsys.Errno {
	if err == nil {
		return 0
	}
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return experimentalsys.UnwrapOSError(errno)
	case errors.Is(err, fs.ErrNotExist):
		return experimentalsys.ENOENT
	case errors.Is(err, fs.ErrExist):
		return experimentalsys.EEXIST
	case errors.Is(err, fs.ErrClosed):
		return experimentalsys.EBADF
	case errors.Is(err, fs.ErrInvalid):
		return experimentalsys.EINVAL
	}
	return experimentalsys.EPERM
}

// stat converts fi, hiding its times unless they may be shown.
func (c *FS) stat(fi fs.FileInfo) sys.Stat_t {
	st := sys.NewStat_t(fi)
	if !c.realTimes {
		st.Atim, st.Mtim, st.Ctim = fakeEpochNanos, fakeEpochNanos, fakeEpochNanos
	}
	return st
}

// changes reports EROFS when the mount is read-only.
func (c *FS) changes() experimentalsys.Errno {
	if !c.write {
		return experimentalsys.EROFS
	}
	return 0
}

const writeFlags = experimentalsys.O_WRONLY | experimentalsys.O_RDWR | experimentalsys.O_CREAT |
	experimentalsys.O_TRUNC | experimentalsys.O_APPEND

func (c *FS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if flag&writeFlags != 0 {
		if errno := c.changes(); errno != 0 {
			return nil, errno
		}
	}
	p = rootName(p)
	if flag&experimentalsys.O_NOFOLLOW != 0 {
		// os.Root follows a final link (inside the root) whatever the
		// flags, so a link is refused here first. A link swapped in after
		// this check is followed, still only inside the root.
		if fi, err := c.root.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, experimentalsys.ELOOP
		}
	}
	osFlag := osFlags(flag)
	dir := flag&experimentalsys.O_DIRECTORY != 0
	if dir {
		// Checked after opening, on the file opened, rather than with
		// O_DIRECTORY, which Windows lacks; nothing is created or
		// truncated before.
		osFlag &^= os.O_CREATE | os.O_EXCL | os.O_TRUNC
	}
	f, err := c.root.OpenFile(p, osFlag, perm)
	if err != nil {
		return nil, errnoOf(err)
	}
	file := &mountFile{fs: c, name: p, flag: flag &^ (experimentalsys.O_CREAT | experimentalsys.O_EXCL | experimentalsys.O_TRUNC), file: f}
	if dir {
		isDir, errno := file.IsDir()
		switch {
		case errno != 0:
		case !isDir:
			errno = experimentalsys.ENOTDIR
		case flag&(experimentalsys.O_CREAT|experimentalsys.O_TRUNC) != 0:
			errno = experimentalsys.EISDIR
		}
		if errno != 0 {
			_ = f.Close()
			return nil, errno
		}
	}
	return file, 0
}

// osFlags translates wazero's open flags to os.OpenFile's.
func osFlags(flag experimentalsys.Oflag) int {
	var f int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_WRONLY | experimentalsys.O_RDWR) {
	case experimentalsys.O_WRONLY:
		f = os.O_WRONLY
	case experimentalsys.O_RDWR:
		f = os.O_RDWR
	default:
		f = os.O_RDONLY
	}
	for _, m := range []struct {
		from experimentalsys.Oflag
		to   int
	}{
		{experimentalsys.O_APPEND, os.O_APPEND},
		{experimentalsys.O_CREAT, os.O_CREATE},
		{experimentalsys.O_EXCL, os.O_EXCL},
		{experimentalsys.O_TRUNC, os.O_TRUNC},
		{experimentalsys.O_SYNC | experimentalsys.O_DSYNC | experimentalsys.O_RSYNC, os.O_SYNC},
	} {
		if flag&m.from != 0 {
			f |= m.to
		}
	}
	return f
}

func (c *FS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := c.root.Stat(rootName(p))
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return c.stat(fi), 0
}

func (c *FS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	fi, err := c.root.Lstat(rootName(p))
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return c.stat(fi), 0
}

func (c *FS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	errno := errnoOf(c.root.Mkdir(rootName(p), perm))
	if errno == experimentalsys.ENOTDIR {
		// A parent that is a file: the directory's parent does not exist.
		errno = experimentalsys.ENOENT
	}
	return errno
}

func (c *FS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	return errnoOf(c.root.Chmod(rootName(p), perm))
}

func (c *FS) Rename(from, to string) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	return errnoOf(c.root.Rename(rootName(from), rootName(to)))
}

// Rmdir and Unlink look at what p names before os.Root's Remove, which
// removes a file or an empty directory alike. Something swapped in between
// is removed if Remove can: a change inside the mount the guest could make
// anyway.
func (c *FS) Rmdir(p string) experimentalsys.Errno {
	return c.remove(p, true)
}

func (c *FS) Unlink(p string) experimentalsys.Errno {
	return c.remove(p, false)
}

func (c *FS) remove(p string, dir bool) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	p = rootName(p)
	fi, err := c.root.Lstat(p)
	switch {
	case err != nil:
		return errnoOf(err)
	case dir && !fi.IsDir():
		return experimentalsys.ENOTDIR
	case !dir && fi.IsDir():
		return experimentalsys.EISDIR
	}
	return errnoOf(c.root.Remove(p))
}

// Link makes newName another name of the file oldName names. A final link
// in oldName is not followed: the new name is a link like it, with the same
// target, which os.Root will no more follow out of the mount than the first.
func (c *FS) Link(oldName, newName string) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	return errnoOf(c.root.Link(rootName(oldName), rootName(newName)))
}

// Symlink is refused: a guest's links would be read by the host's own
// programs too, which know nothing of the mount.
func (c *FS) Symlink(string, string) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	return experimentalsys.EPERM
}

// Readlink reveals a link's target only when it is relative and does not
// climb above the link's own directory; any other fails with EPERM, so that
// a guest learns no host path and nothing of what lies around the mount.
func (c *FS) Readlink(p string) (string, experimentalsys.Errno) {
	target, err := c.root.Readlink(rootName(p))
	if err != nil {
		return "", errnoOf(err)
	}
	target = filepath.ToSlash(target)
	if clean := path.Clean(target); path.IsAbs(clean) || filepath.IsAbs(target) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", experimentalsys.EPERM
	}
	return target, 0
}

func (c *FS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	if errno := c.changes(); errno != 0 {
		return errno
	}
	return errnoOf(c.root.Chtimes(rootName(p), timeOf(atim), timeOf(mtim)))
}

// timeOf converts a WASI timestamp; UTIME_OMIT is the zero time, which
// os.Chtimes leaves unchanged.
func timeOf(nanos int64) time.Time {
	if nanos == experimentalsys.UTIME_OMIT {
		return time.Time{}
	}
	return time.Unix(0, nanos)
}

// Close closes the directory. Instances still using it fail their next
// operation.
func (c *FS) Close() error { return c.root.Close() }
