package mapfile

import (
	"os"
	"syscall"
)

func mmap(f *os.File, size int64) ([]byte, bool) {
	if int64(int(size)) != size {
		return nil, false
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return data, true
}

func release(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }

func munmap(b []byte) error { return syscall.Munmap(b) }
