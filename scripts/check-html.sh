#!/usr/bin/env bash
# check-html.sh: the HTML compile report (narwhal compile --html) renders
# in a real browser. For every built-in kernel, a KLR kernel and a compile
# that fails, it writes the page, opens it in headless Chromium (Debian's
# chromium package, installed here with apt-get when missing) and fails on
# a JavaScript error (the page records any on <html data-jserror>, and
# Chromium's console log is searched for uncaught errors) or an empty
# render (no pass sections in the DOM Chromium built, or a screenshot that
# is one colour), and, for every compile that scheduled, when the schedule
# timeline is missing or its region of the screenshot (the box the page
# records on <body data-timeline-box>) is one colour. Screenshots go to
# $OUT (default: a temporary directory), matmul.png among them.
#
#   bash scripts/check-html.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "== installing Debian's chromium"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
"$CHROMIUM" --version

go build -o "$OUT/narwhal" ./cmd/narwhal
NW="$OUT/narwhal"

# The flags that work on these machines (no sandbox as root, no GPU, no
# background network: the network is closed).
chrome() {
  local profile
  profile=$(mktemp -d)
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
  rm -rf "$profile"
}

pages=()
for k in $("$NW" kernels | awk '{print $1}'); do
  "$NW" compile "builtin:$k" --html "$OUT/$k.html" --trace "$OUT/$k.trace.json" --memmap "$OUT/$k.svg" -o "$OUT/$k.json" >/dev/null
  pages+=("$k")
done
# A KLR kernel (source positions on the page), when the fixtures are here.
if [ -f ../shared/fixtures/klr/matmul_tile.klr ]; then
  "$NW" compile ../shared/fixtures/klr/matmul_tile.klr --html "$OUT/klr_matmul_tile.html" >/dev/null
  pages+=(klr_matmul_tile)
fi
# A compile that fails still writes its page: a tile no pass can make fit
# SBUF (sb_size_legalization fails after the passes before it ran).
cat > "$OUT/failing.bir" <<'BIR'
module arch=trn2
func @main {
  tensor %in_set: f32[128, 60000] kind=Input
    loc %in: Input 128x240000
  tensor %big_set: f32[128, 60000] class=NeuronSBTensor
    loc %big: SB 128x240000
  tensor %r_set: f32[128, 1] class=NeuronSBTensor
    loc %r: SB 128x4
Block1:
  ld = Load %in[ap=[[60000,128],[1,60000]]] f32 -> %big[ap=[[60000,128],[1,60000]]] f32
  red = TensorReduce on DVE %big[ap=[[60000,128],[1,60000]]] f32 -> %r[ap=[[1,128],[1,1]]] f32 {op="add", axis="X"}
}
BIR
if "$NW" compile "$OUT/failing.bir" --html "$OUT/failing.html" >/dev/null 2>&1; then echo "failing.bir compiled"; exit 1; fi
pages+=(failing)

fail=0
for p in "${pages[@]}"; do
  html="$OUT/$p.html"
  chrome --window-size=1280,1600 --dump-dom "file://$(realpath "$html")" >"$OUT/$p.dom" 2>"$OUT/$p.log" || true
  if grep -q 'data-jserror="' "$OUT/$p.dom"; then
    echo "FAIL $p: JavaScript error: $(grep -o 'data-jserror="[^"]*"' "$OUT/$p.dom")"; fail=1; continue
  fi
  if grep -Eq 'Uncaught|SyntaxError|ReferenceError|TypeError' "$OUT/$p.log"; then
    echo "FAIL $p: JavaScript error in Chromium's log:"; grep -E 'Uncaught|SyntaxError|ReferenceError|TypeError' "$OUT/$p.log"; fail=1; continue
  fi
  ready=$(grep -o 'data-ready="[0-9]*"' "$OUT/$p.dom" | grep -o '[0-9]*' || true)
  if [ -z "$ready" ] || [ "$ready" -lt 1 ]; then
    echo "FAIL $p: empty render (the page's script did not run or found no pass sections)"; fail=1; continue
  fi
  chrome --screenshot="$OUT/$p.png" --window-size=1280,1600 --hide-scrollbars "file://$(realpath "$html")" >/dev/null 2>&1 || true
  if ! go run ./internal/pngcheck "$OUT/$p.png"; then
    echo "FAIL $p: the screenshot is empty"; fail=1; continue
  fi
  # The schedule timeline: drawn for every page of a compile that
  # scheduled, and its region of the screenshot is not one colour.
  boxes=$(grep -o 'data-timeline="[0-9]*"' "$OUT/$p.dom" | grep -o '[0-9]*' || true)
  if [ "$p" != failing ]; then
    if [ -z "$boxes" ] || [ "$boxes" -lt 1 ]; then
      echo "FAIL $p: no schedule timeline on the page"; fail=1; continue
    fi
    region=$(grep -o 'data-timeline-box="[0-9,]*"' "$OUT/$p.dom" | grep -o '[0-9,]*' | tr ',' ' ')
    # shellcheck disable=SC2086
    if ! go run ./internal/pngcheck "$OUT/$p.png" $region; then
      echo "FAIL $p: the timeline region of the screenshot is one colour"; fail=1; continue
    fi
  fi
  echo "ok   $p ($ready pass sections, ${boxes:-no} timeline boxes)"
done
# Every section opened (#all): the passes' statistics and IR diffs.
chrome --screenshot="$OUT/matmul-all.png" --window-size=1280,6000 --hide-scrollbars \
  "file://$(realpath "$OUT/matmul.html")#all" >/dev/null 2>&1 || true
go run ./internal/pngcheck "$OUT/matmul-all.png" || fail=1
echo "pages and screenshots in $OUT"
exit $fail
