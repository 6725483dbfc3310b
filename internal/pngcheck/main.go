// Command pngcheck fails unless a PNG shows something: at least 1% of
// its pixels differ from the most common colour (the background). It is
// what scripts/check-html.sh uses to tell a rendered page from an empty
// one. With a region (X Y W H, in pixels) only that part of the image is
// judged: the script checks that the schedule timeline, whose box the
// page records, is not one colour.
//
//	go run ./internal/pngcheck page.png [X Y W H]
package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
)

func main() {
	if len(os.Args) != 2 && len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: pngcheck FILE.png [X Y W H]")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	if len(os.Args) == 6 {
		var r [4]int
		for k := range r {
			if _, err := fmt.Sscan(os.Args[2+k], &r[k]); err != nil {
				fmt.Fprintf(os.Stderr, "region %q: %v\n", os.Args[2+k], err)
				os.Exit(2)
			}
		}
		sub, ok := img.(interface {
			SubImage(image.Rectangle) image.Image
		})
		if !ok {
			fmt.Fprintln(os.Stderr, "the image cannot be cropped")
			os.Exit(1)
		}
		img = sub.SubImage(image.Rect(r[0], r[1], r[0]+r[2], r[1]+r[3]).Intersect(img.Bounds()))
	}
	frac, colours := content(img)
	fmt.Printf("%s: %dx%d, %.1f%% of the pixels differ from the background, %d colours\n",
		os.Args[1], img.Bounds().Dx(), img.Bounds().Dy(), 100*frac, colours)
	if frac < 0.01 || colours < 3 {
		fmt.Fprintf(os.Stderr, "%s: the page looks empty\n", os.Args[1])
		os.Exit(1)
	}
}

// content returns the fraction of pixels that are not the most common
// colour, and the number of distinct colours.
func content(img image.Image) (float64, int) {
	b := img.Bounds()
	count := map[uint64]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			count[uint64(r)<<48|uint64(g)<<32|uint64(bl)<<16|uint64(a)]++
		}
	}
	most, total := 0, b.Dx()*b.Dy()
	for _, n := range count {
		most = max(most, n)
	}
	if total == 0 {
		return 0, 0
	}
	return float64(total-most) / float64(total), len(count)
}
