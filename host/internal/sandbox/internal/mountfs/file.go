package mountfs

import (
	"io"
	"os"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
)

// mountFile is a file or directory a guest opened in a FS. Operations
// on it use its descriptor; the two that cannot portably (SetAppend, which
// reopens the file, and Utimens) go by its name through the mount's
// os.Root, and act only if that name still names this file. An instance uses
// its files from one goroutine at a time, as wazero does.
type mountFile struct {
	experimentalsys.UnimplementedFile
	fs *FS
	// name is the path it was opened with, relative to the mount.
	name string
	// flag are its open flags, less those that create or truncate.
	flag   experimentalsys.Oflag
	file   *os.File
	closed bool

	// what Dev, Ino and IsDir report, which do not change while open
	statted bool
	dev     uint64
	ino     sys.Inode
	isDir   bool
}

func (f *mountFile) cached() experimentalsys.Errno {
	if f.statted {
		return 0
	}
	_, errno := f.Stat()
	return errno
}

func (f *mountFile) Dev() (uint64, experimentalsys.Errno) {
	errno := f.cached()
	return f.dev, errno
}

func (f *mountFile) Ino() (sys.Inode, experimentalsys.Errno) {
	errno := f.cached()
	return f.ino, errno
}

func (f *mountFile) IsDir() (bool, experimentalsys.Errno) {
	errno := f.cached()
	return f.isDir, errno
}

func (f *mountFile) IsAppend() bool {
	return f.flag&experimentalsys.O_APPEND != 0
}

// SetAppend reopens the file, since a descriptor's append mode cannot be
// changed portably, and keeps the new descriptor only if it is the same file.
func (f *mountFile) SetAppend(enable bool) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if enable == f.IsAppend() {
		return 0
	}
	if isDir, errno := f.IsDir(); errno != 0 || isDir {
		return f.fail(errno)
	}
	flag := f.flag ^ experimentalsys.O_APPEND
	offset, err := f.file.Seek(0, io.SeekCurrent)
	if err != nil {
		return errnoOf(err)
	}
	nf, errno := f.reopen(flag)
	if errno != 0 {
		return errno
	}
	if _, err := nf.Seek(offset, io.SeekStart); err != nil {
		_ = nf.Close()
		return errnoOf(err)
	}
	_ = f.file.Close()
	f.file, f.flag = nf, flag
	return 0
}

// reopen opens f's name again with flag and returns the file if it is still
// f's; otherwise ENOENT, as if f's name had gone.
func (f *mountFile) reopen(flag experimentalsys.Oflag) (*os.File, experimentalsys.Errno) {
	nf, err := f.fs.root.OpenFile(f.name, osFlags(flag), 0)
	if err != nil {
		return nil, errnoOf(err)
	}
	a, errA := f.file.Stat()
	b, errB := nf.Stat()
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		_ = nf.Close()
		return nil, experimentalsys.ENOENT
	}
	return nf, 0
}

func (f *mountFile) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if f.closed {
		return sys.Stat_t{}, experimentalsys.EBADF
	}
	fi, err := f.file.Stat()
	if err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	st := f.fs.stat(fi)
	f.statted, f.dev, f.ino, f.isDir = true, st.Dev, st.Ino, fi.IsDir()
	return st, 0
}

// fail turns the errno of a failed read or write into what wazero expects:
// EBADF once closed, EISDIR on a directory.
func (f *mountFile) fail(errno experimentalsys.Errno) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if isDir, e := f.IsDir(); e == 0 && isDir {
		return experimentalsys.EISDIR
	}
	return errno
}

func (f *mountFile) Read(buf []byte) (int, experimentalsys.Errno) {
	return f.transfer(buf, 0, func(b []byte, _ int64) (int, error) { return f.file.Read(b) })
}

func (f *mountFile) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	return f.transfer(buf, off, f.file.ReadAt)
}

// transfer runs one read or write of buf at off with fn, as every one of
// them checks its file and arguments and reports an error.
func (f *mountFile) transfer(buf []byte, off int64, fn func([]byte, int64) (int, error)) (int, experimentalsys.Errno) {
	switch {
	case f.closed:
		return 0, experimentalsys.EBADF
	case off < 0:
		return 0, experimentalsys.EINVAL
	case len(buf) == 0:
		return 0, 0
	}
	n, err := fn(buf, off)
	if errno := experimentalsys.UnwrapOSError(err); errno != 0 {
		return n, f.fail(errno)
	}
	return n, 0
}

// seekOffset is int64 by another name, so that go vet does not take Seek,
// which returns an Errno as wazero's File requires, for io.Seeker's.
type seekOffset = int64

func (f *mountFile) Seek(offset seekOffset, whence int) (int64, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	if whence < io.SeekStart || whence > io.SeekEnd {
		return 0, experimentalsys.EINVAL
	}
	// On a directory, os.File rewinds its entries at offset 0 and refuses
	// any other with EISDIR.
	n, err := f.file.Seek(offset, whence)
	return n, errnoOf(err)
}

// Readdir lists entries after the last read, all of them when n <= 0. Each
// entry is looked up relative to the directory's descriptor.
func (f *mountFile) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if f.closed {
		return nil, experimentalsys.EBADF
	}
	if isDir, errno := f.IsDir(); errno != 0 || !isDir {
		if errno == 0 {
			errno = experimentalsys.EBADF
		}
		return nil, errno
	}
	fis, err := f.file.Readdir(n)
	if errno := experimentalsys.UnwrapOSError(err); errno != 0 {
		return nil, errno
	}
	dirents := make([]experimentalsys.Dirent, 0, len(fis))
	for _, fi := range fis {
		dirents = append(dirents, experimentalsys.Dirent{Name: fi.Name(), Ino: sys.NewStat_t(fi).Ino, Type: fi.Mode().Type()})
	}
	return dirents, 0
}

func (f *mountFile) Write(buf []byte) (int, experimentalsys.Errno) {
	return f.transfer(buf, 0, func(b []byte, _ int64) (int, error) { return f.file.Write(b) })
}

func (f *mountFile) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	return f.transfer(buf, off, f.file.WriteAt)
}

func (f *mountFile) Truncate(size int64) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if size < 0 {
		return experimentalsys.EINVAL
	}
	if errno := errnoOf(f.file.Truncate(size)); errno != 0 {
		return f.fail(errno)
	}
	return 0
}

func (f *mountFile) Sync() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	return errnoOf(f.file.Sync())
}

// Datasync is Sync: os.File has no portable fdatasync.
func (f *mountFile) Datasync() experimentalsys.Errno {
	return f.Sync()
}

// Utimens sets the times through the mount by f's name, if that still
// names f: os.File cannot set times through its descriptor.
func (f *mountFile) Utimens(atim, mtim int64) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if errno := f.fs.changes(); errno != 0 {
		return errno
	}
	a, errA := f.file.Stat()
	b, errB := f.fs.root.Stat(f.name)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		return experimentalsys.ENOENT
	}
	return errnoOf(f.fs.root.Chtimes(f.name, timeOf(atim), timeOf(mtim)))
}

func (f *mountFile) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	return errnoOf(f.file.Close())
}
