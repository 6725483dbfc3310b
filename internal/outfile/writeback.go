package outfile

import (
	"io"
	"os"
	"sync"
)

// writebackChunk is the unit in which a large output is handed to the
// disk while it is written, and asyncBuf the size of the buffers a large
// output is written in from a goroutine of its own (see writeback;
// variables for the tests).
var (
	writebackChunk int64 = 64 << 20
	asyncBuf             = 4 << 20
)

// writeback passes writes to a new temporary file and, every
// writebackChunk bytes, asks the kernel to start writing the chunk just
// completed to disk and waits for, then drops from the page cache, the
// chunk before it (sync_file_range and posix_fadvise DONTNEED, on 64-bit
// Linux; nothing elsewhere). A compiled module of tens of millions of
// instructions is gigabytes of text: left in the page cache as dirty
// pages until the final fsync, they make the kernel reclaim memory inside
// the write calls of a process that already holds most of the machine's
// memory (8 GiB written while holding 10 GiB: 14-16 s of system time and
// 21-34 s wall; handed over chunk by chunk: 3.4 s and 5.7 s). The advice
// changes no byte of the file; the final Sync still reports any write
// error. Outputs under two chunks are left to the kernel as before.
//
// Once an output exceeds one buffer (asyncBuf), the system calls move to
// a goroutine of their own, fed two buffers in turn: the caller formats
// the next buffer while the previous one is written (the 25M-instruction
// compile spent 5 s in them, on the formatting's core). Write reports the
// first failure of the goroutine at the next call; close waits for it and
// reports what remains.
type writeback struct {
	f       *os.File
	written int64 // bytes written to f
	handed  int64 // bytes whose writeback was started (a multiple of writebackChunk)

	buf  []byte        // the buffer being filled (nil: writing synchronously so far)
	full chan []byte   // buffers to write (nil until the goroutine starts)
	free chan []byte   // written buffers, to fill again
	done chan struct{} // closed when the goroutine has written everything

	mu  sync.Mutex
	err error // the goroutine's first failure
}

func (w *writeback) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *writeback) Write(b []byte) (int, error) {
	if w.full == nil {
		if w.written+int64(len(b)) <= int64(asyncBuf) {
			return w.write(b)
		}
		w.start()
	}
	n := 0
	for len(b) > 0 {
		if w.buf == nil {
			w.buf = <-w.free
			if err := w.failure(); err != nil {
				return n, err
			}
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], b)
		w.buf = w.buf[:len(w.buf)+k]
		n += k
		b = b[k:]
		if len(w.buf) == cap(w.buf) {
			w.full <- w.buf
			w.buf = nil
		}
	}
	return n, nil
}

// start moves the writing to a goroutine.
func (w *writeback) start() {
	w.full = make(chan []byte, 1)
	w.free = make(chan []byte, 2)
	w.done = make(chan struct{})
	w.free <- make([]byte, 0, asyncBuf)
	w.free <- make([]byte, 0, asyncBuf)
	go func() {
		defer close(w.done)
		for b := range w.full {
			if w.failure() == nil {
				if _, err := w.write(b); err != nil {
					w.mu.Lock()
					w.err = err
					w.mu.Unlock()
				}
			}
			w.free <- b[:0]
		}
	}()
}

// close writes what is buffered and waits for the goroutine; it returns
// the first failure.
func (w *writeback) close() error {
	if w.full == nil {
		return nil
	}
	if len(w.buf) > 0 {
		w.full <- w.buf
	}
	w.buf = nil
	close(w.full)
	<-w.done
	w.full = nil
	return w.failure()
}

// write writes b to the file and advises the kernel per chunk.
func (w *writeback) write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	w.written += int64(n)
	for w.written-w.handed >= writebackChunk {
		startWriteback(w.f, w.handed, writebackChunk)
		if w.handed >= writebackChunk {
			dropWritten(w.f, w.handed-writebackChunk, writebackChunk)
		}
		w.handed += writebackChunk
	}
	return n, err
}

var _ io.Writer = (*writeback)(nil)
