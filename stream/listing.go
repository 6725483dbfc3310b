package stream

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/srcline"
)

// ListingName is the file name of stream s's listing in function f:
// "main.vector.txt", "main.queue3.txt".
func ListingName(f *bir.Function, s ID) string {
	name := strings.ToLower(s.Name())
	if s.IsQueue() {
		name = fmt.Sprintf("queue%d", s.Queue())
	}
	return f.Name + "." + name + ".txt"
}

// WriteListing writes the readable listing of stream s of L's function:
// a header, then one line per entry in stream order: its position, its
// scheduled start, its waits (`$S[k]>=v`), the instruction in the text
// form (without dependencies: the waits are what orders it), and its
// updates (`$S[j]++@complete`). In an engine's stream a DMA is its trigger
// ("fire ... -> DMA queue q"); in a queue's stream each DMA names the
// engine that fires it, and its updates are the queue's.
func WriteListing(w io.Writer, L *Layout, s ID, fm *bir.InstFormatter) error {
	f := L.F
	bw := bufio.NewWriter(w)
	lists := L.Lists()
	list := lists[s]
	kind := "engine"
	if s.IsQueue() {
		kind = "DMA queue"
	}
	fmt.Fprintf(bw, "# %s stream of function %s (%s): %d entries\n", s.Name(), f.Name, kind, len(list))
	fmt.Fprintf(bw, "# pos  start_ps  waits | instruction | updates\n")
	sy := f.Sync
	tab := f.Sched
	var b []byte
	for k, i := range list {
		b = b[:0]
		b = fmt.Appendf(b, "%5d  ", k)
		if tab.Has(i) {
			b = fmt.Appendf(b, "%12d  ", tab.Start[i])
		} else {
			b = append(b, "           -  "...)
		}
		ws := sy.Waits(i)
		us := sy.Updates(i)
		queue := s.IsQueue()
		if len(ws) > 0 && !queue {
			b = append(AppendWaits(b, ws), "  "...)
		}
		if L.IsDMA(i) && !queue {
			b = append(b, "fire "...)
		}
		b = fm.Append(b, i)
		if L.IsDMA(i) {
			if queue {
				if e := L.Eng[i]; e != None {
					b = append(b, "  fired by "...)
					b = append(b, e.Name()...)
				}
			} else {
				b = append(b, "  -> "...)
				b = append(b, L.Q[i].Name()...)
			}
		}
		if len(us) > 0 && (queue || !L.IsDMA(i)) {
			b = AppendUpdates(append(b, "  "...), us)
		}
		if p := f.InstPos(i); p.IsKnown() {
			if line := srcline.Line(p.File, int(p.Line)); line != "" {
				b = append(append(b, "  # "...), line...)
			}
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}
