package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
	"github.com/tetratelabs/wazero/sys"
)

// confinedFS is wazero's directory file system with symbolic links kept
// inside the directory. wazero refuses ".." beyond a mount but follows
// symbolic links wherever they point, so a link planted in a mounted
// directory (or made by a guest with write access) would open the host's
// files. Before each operation the path is resolved with os.Root, which
// refuses to leave its directory; an escape fails with EPERM. Guests may not
// create symbolic links at all: a link swapped in by one instance between
// another instance's check and its open would otherwise escape.
type confinedFS struct {
	experimentalsys.FS // sysfs.DirFS(dir)
	dir                string
}

func newConfinedFS(dir string) experimentalsys.FS {
	return &confinedFS{FS: sysfs.DirFS(dir), dir: dir}
}

// resolves reports whether name, relative to the directory, resolves inside
// it, following a final symbolic link when follow is set. A name that does
// not exist resolves if its parent does (it is about to be created).
func (c *confinedFS) resolves(name string, follow bool) experimentalsys.Errno {
	if name == "" || name == "." || name == "/" {
		return 0
	}
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		return experimentalsys.UnwrapOSError(err)
	}
	defer root.Close()
	if follow {
		_, err = root.Stat(name)
	} else {
		_, err = root.Lstat(name)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if parent := path.Dir(name); parent != "." {
			_, err = root.Stat(parent)
		} else {
			err = nil
		}
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		// A missing parent fails in the operation itself, with ENOENT.
		return 0
	}
	// os.Root's "path escapes from parent", a link loop, a permission.
	return experimentalsys.EPERM
}

func (c *confinedFS) OpenFile(name string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	if errno := c.resolves(name, flag&experimentalsys.O_NOFOLLOW == 0); errno != 0 {
		return nil, errno
	}
	return c.FS.OpenFile(name, flag, perm)
}

func (c *confinedFS) Stat(name string) (sys.Stat_t, experimentalsys.Errno) {
	if errno := c.resolves(name, true); errno != 0 {
		return sys.Stat_t{}, errno
	}
	return c.FS.Stat(name)
}

func (c *confinedFS) Lstat(name string) (sys.Stat_t, experimentalsys.Errno) {
	if errno := c.resolves(name, false); errno != 0 {
		return sys.Stat_t{}, errno
	}
	return c.FS.Lstat(name)
}

func (c *confinedFS) Mkdir(name string, perm fs.FileMode) experimentalsys.Errno {
	if errno := c.resolves(name, false); errno != 0 {
		return errno
	}
	return c.FS.Mkdir(name, perm)
}

func (c *confinedFS) Chmod(name string, perm fs.FileMode) experimentalsys.Errno {
	if errno := c.resolves(name, true); errno != 0 {
		return errno
	}
	return c.FS.Chmod(name, perm)
}

func (c *confinedFS) Rename(from, to string) experimentalsys.Errno {
	if errno := c.resolves(from, false); errno != 0 {
		return errno
	}
	if errno := c.resolves(to, false); errno != 0 {
		return errno
	}
	return c.FS.Rename(from, to)
}

func (c *confinedFS) Rmdir(name string) experimentalsys.Errno {
	if errno := c.resolves(name, false); errno != 0 {
		return errno
	}
	return c.FS.Rmdir(name)
}

func (c *confinedFS) Unlink(name string) experimentalsys.Errno {
	if errno := c.resolves(name, false); errno != 0 {
		return errno
	}
	return c.FS.Unlink(name)
}

func (c *confinedFS) Link(oldName, newName string) experimentalsys.Errno {
	if errno := c.resolves(oldName, false); errno != 0 {
		return errno
	}
	if errno := c.resolves(newName, false); errno != 0 {
		return errno
	}
	return c.FS.Link(oldName, newName)
}

// Symlink is refused: see confinedFS.
func (c *confinedFS) Symlink(string, string) experimentalsys.Errno { return experimentalsys.EPERM }

func (c *confinedFS) Readlink(name string) (string, experimentalsys.Errno) {
	if errno := c.resolves(name, false); errno != 0 {
		return "", errno
	}
	return c.FS.Readlink(name)
}

func (c *confinedFS) Utimens(name string, atim, mtim int64) experimentalsys.Errno {
	if errno := c.resolves(name, true); errno != 0 {
		return errno
	}
	return c.FS.Utimens(name, atim, mtim)
}
