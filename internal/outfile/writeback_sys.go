//go:build linux && (amd64 || arm64)

package outfile

import (
	"os"
	"syscall"
)

// sync_file_range flags (linux/fs.h).
const (
	syncFileRangeWaitBefore = 1
	syncFileRangeWrite      = 2
	syncFileRangeWaitAfter  = 4
	fadvDontNeed            = 4 // POSIX_FADV_DONTNEED
)

// startWriteback starts writing [off, off+n) of f to disk without waiting.
func startWriteback(f *os.File, off, n int64) {
	syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, f.Fd(), uintptr(off), uintptr(n), syncFileRangeWrite, 0, 0)
}

// dropWritten waits until [off, off+n) of f is on disk and drops it from
// the page cache. Errors are ignored: this is advice, and the caller's
// final Sync reports a failed write.
func dropWritten(f *os.File, off, n int64) {
	syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, f.Fd(), uintptr(off), uintptr(n), syncFileRangeWaitBefore|syncFileRangeWrite|syncFileRangeWaitAfter, 0, 0)
	syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), uintptr(off), uintptr(n), fadvDontNeed, 0, 0)
}
