//go:build !linux

package mapfile

import "os"

func mmap(f *os.File, size int64) ([]byte, bool) { return nil, false }

func release(b []byte) {}

func munmap(b []byte) error { return nil }
