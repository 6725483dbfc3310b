package stream

import (
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
)

// AppendCommands appends instruction i's semaphore commands as the
// assembler writes them (seed 002 §6.6: "$S[k]>0 $S[j]++@complete"):
// each wait as `$S[k]>=v`, each update as `$S[j]++@complete` (an update
// by more than one as `$S[j]+=d@complete`), separated by spaces.
func AppendCommands(b []byte, sy *bir.Sync, i bir.InstID) []byte {
	sep := false
	for _, c := range sy.Waits(i) {
		if sep {
			b = append(b, ' ')
		}
		sep = true
		b = append(b, "$S["...)
		b = strconv.AppendInt(b, int64(c.Sem), 10)
		b = append(b, "]>="...)
		b = strconv.AppendInt(b, int64(c.Value), 10)
	}
	for _, c := range sy.Updates(i) {
		if sep {
			b = append(b, ' ')
		}
		sep = true
		b = append(b, "$S["...)
		b = strconv.AppendInt(b, int64(c.Sem), 10)
		if c.Value == 1 {
			b = append(b, "]++@complete"...)
		} else {
			b = append(b, "]+="...)
			b = strconv.AppendInt(b, int64(c.Value), 10)
			b = append(b, "@complete"...)
		}
	}
	return b
}

// Commands returns AppendCommands' text.
func Commands(sy *bir.Sync, i bir.InstID) string { return string(AppendCommands(nil, sy, i)) }
