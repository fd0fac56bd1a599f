// Package watcher watches a plugin directory and reports settled changes to
// the files in it.
//
// A [Watcher] turns the raw, noisy notifications of
// github.com/fsnotify/fsnotify into two facts a loader can act on: a file is
// now present with (possibly) new content ([Changed]), or a file is gone
// ([Removed]). It knows nothing about WebAssembly; it only decides when a file
// has stopped changing. [Scan] lists the same files with the same rules, for
// the initial load.
//
// # Settling
//
// An event on a path only marks the path pending and samples its size, mtime,
// mode and file identity. The path is examined again once no event has arrived
// for it for its quiet period: [Options.Settle], or 20 ms for a file that
// landed complete (below). If the sample still matches the file, the path is
// settled and reported; if it does not (the file changed without
// notifications reaching this directory, for example through a hard link), it
// is sampled again and waits another Settle. A file whose writer pauses for
// longer than Settle in the middle of writing is still reported half-written:
// nothing in the file system says a write is complete. Loaders must refuse such
// a file and keep waiting; its next write produces another event.
//
// The default Settle, 200 ms, is many times the longest gap measured between
// the notifications of one cp, go build -o, pipe or dd writing into a
// directory, and below what a person editing a plugin notices.
//
// # Files that land complete
//
// A file renamed into the directory (over an existing file or not) or linked
// into it is complete when its name appears. That is how mv, ln, rsync and
// go build -o (when its work directory is on the same file system) put a file
// in place, and how a plugin should be published: write a temporary name that
// [Options.Match] rejects, then rename it onto the real one. Such a landing is
// notified as a Create and never a Write, where a file written under its own
// name is notified a Write for every write and truncation. So a path whose
// notifications since it became pending include a Create and no Write, and
// whose sample is a non-empty file, is examined after 20 ms of quiet (or
// Settle, if shorter) instead of Settle. A Write, a change found when the
// path is examined, or a rescan sends it back to Settle until it is reported;
// a removal or a move away before the landing does not. A file created empty
// never qualifies, so creat() followed by writes (cp, a shell redirect, go
// build -o copying) waits for Settle.
//
// The 20 ms let the Write of a file created and then written arrive when the
// sample already saw its first bytes, even on a busy machine. A Write later
// than 20 ms gets a file
// reported while its writer may still be writing: loaders refuse it, as
// above, and the Write reports it again once settled.
//
// # Batches
//
// Events are delivered in batches: a batch is released when every pending path
// of the directory has been quiet for its quiet period, so copying a hundred
// plugins, renaming a hundred into place each within 20 ms of the previous,
// or renaming a.wasm to b.wasm (a.wasm waits for Settle, b.wasm landed)
// arrives as one batch the loader can apply as one change. A path that has
// settled waits at most ten times Settle for the rest of the directory, so a
// long copy of one file does not hold back the others; a landed file waits
// for files being written at the same time, but never longer than it would
// have waited as a written file. A batch is sorted by path and names each
// path once. While the consumer is busy, further changes are merged into the
// next batch (last state wins), so the watcher never blocks on its consumer
// and its memory is bounded by the number of distinct paths.
//
// # What is reported
//
//   - A file matched by [Options.Match] directly in the directory that, once
//     settled, is a regular file (after following symlinks) and differs in
//     size, mtime, mode or identity from what was last reported: [Changed].
//     Writes, truncation, creation, a rename into the directory or over the
//     file, and a new symlink target all change one of these.
//   - A path that was reported (or present when the watcher started) and is,
//     once settled, absent, dangling or no longer a regular file: [Removed].
//     This covers deletes and renames out of the directory. A consumer may
//     receive Removed for a path it never loaded; it should ignore it.
//   - Removal, truncation and rewrite of a file within Settle (go build, cp over
//     an existing file, an editor moving the old file aside before writing the
//     new one) is one Changed, never Removed followed by Changed.
//   - Attribute-only notifications (chmod to the same mode, atime, ownership,
//     extended attributes, link count) are not reported. A change of mode is,
//     because it can make an unreadable file readable; loaders deduplicate
//     unchanged content by its hash anyway.
//
// The default match, [DefaultMatch], accepts names ending in ".wasm" that do
// not start with '.', '#' or '~'. That excludes editors' and tools' temporary
// files: Vim's ".x.wasm.swp" and "4913", Emacs's "#x.wasm#" and ".#x.wasm",
// backups "x.wasm~", downloads "x.wasm.part" and "x.wasm.crdownload",
// "x.wasm.tmp", rsync's ".x.wasm.XXXXXX" and go build's "x.wasm-go-tmp-umask".
// Their rename onto the real name is reported as a Changed for the real name.
//
// # Subdirectories and symlinks
//
// Only files directly in the directory count; subdirectories (even one named
// "x.wasm") and everything in them are ignored, and no watch is placed on
// them. A symlink is followed: it is reported under its own name with its
// target's content. Changes made to the target through another path, in this
// directory or elsewhere, produce no notification for the link and so are not
// reported until the link itself is touched or the directory is loaded
// again as a whole (wasmcp serve does on SIGHUP).
//
// # The directory itself
//
// If the directory is removed or renamed away, every known file is reported
// [Removed] and the watcher checks every 500 ms for a directory at the same
// path. When one appears (or if one already replaced it), the watcher watches
// it and reports every file in it as [Changed]. If the directory path is a
// symlink, the watch follows its target at the time of watching; re-pointing
// the symlink is not noticed.
//
// # Lost notifications
//
// When the kernel's queue overflows (fsnotify.ErrEventOverflow, for inotify
// governed by the fs.inotify.max_queued_events sysctl), or fsnotify reports any
// other error, notifications were lost, so the watcher rescans the directory:
// every present file is reported [Changed] and every vanished one [Removed],
// after Settle (a rescan cannot tell a landing from a write).
//
// # Platform notes
//
// The behaviour above was measured with inotify on Linux. On macOS and the
// BSDs, fsnotify uses kqueue, which opens a file descriptor for every file in
// the directory; a new file's writes are notified only once fsnotify has
// opened it, so a file still being written can look landed until its next
// write or the examination after 20 ms finds it growing. On Windows a file
// being written cannot always be renamed or removed, and
// ReadDirectoryChangesW may drop events when its buffer fills; the rescan on
// overflow covers that. Network file systems (NFS, SMB, FUSE)
// often deliver no notifications at all; loading the directory again as a
// whole (SIGHUP to wasmcp serve) is the fallback.
package watcher
