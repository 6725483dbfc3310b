package stream

import (
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
)

// AppendWaits appends wait commands as the assembler writes them (seed
// 002 §6.6: "$S[k]>0 $S[j]++@complete"): `$S[k]>=v`, separated by spaces.
func AppendWaits(b []byte, ws []bir.SemCmd) []byte {
	for j, c := range ws {
		if j > 0 {
			b = append(b, ' ')
		}
		b = append(b, "$S["...)
		b = strconv.AppendInt(b, int64(c.Sem), 10)
		b = append(b, "]>="...)
		b = strconv.AppendInt(b, int64(c.Value), 10)
	}
	return b
}

// AppendUpdates appends update commands: `$S[j]++@complete`, or
// `$S[j]+=d@complete` for an update by more than one.
func AppendUpdates(b []byte, us []bir.SemCmd) []byte {
	for j, c := range us {
		if j > 0 {
			b = append(b, ' ')
		}
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

// Commands returns instruction i's waits then updates, separated by a
// space.
func Commands(sy *bir.Sync, i bir.InstID) string {
	b := AppendWaits(nil, sy.Waits(i))
	if us := sy.Updates(i); len(us) > 0 {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = AppendUpdates(b, us)
	}
	return string(b)
}
