package htmlreport

// pageHTML is the page template: inline CSS, a few lines of JavaScript, no
// external resources.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<script>
// Any script error is recorded on the page (scripts/check-html.sh fails on it).
window.addEventListener("error", function (e) {
  document.documentElement.setAttribute("data-jserror", String(e.message || e));
});
</script>
<style>
:root { --fg:#1d2330; --muted:#5d6675; --line:#d9dee6; --bg:#fff; --head:#f3f5f8; --acc:#1f6feb;
        --add:#e6ffec; --addfg:#116329; --del:#ffebe9; --delfg:#82071e; --bar:#8cb4f5; --bad:#b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 14px 24px; background: #0f2744; color: #fff; }
header h1 { margin: 0 0 4px; font-size: 20px; font-weight: 600; }
header .cmd { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; color: #c9d6e8; word-break: break-all; }
main { padding: 8px 24px 40px; max-width: 1400px; }
h2 { font-size: 16px; margin: 22px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.status { display: inline-block; padding: 2px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; margin-left: 8px; }
.ok { background: #dafbe1; color: #116329; } .failed { background: #ffebe9; color: var(--bad); }
.error { margin: 10px 0; padding: 10px 12px; border: 1px solid #f5c2c0; background: #fff5f5; color: var(--bad);
         font: 12px ui-monospace, monospace; white-space: pre-wrap; }
.cols { display: flex; gap: 24px; flex-wrap: wrap; }
.cols > div { flex: 1 1 420px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--head); font-weight: 600; font-size: 12px; color: var(--muted); }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.skipped td { color: var(--muted); }
tr.failedrow td { background: #fff5f5; }
.bar { height: 8px; background: var(--bar); border-radius: 2px; min-width: 1px; }
a { color: var(--acc); text-decoration: none; } a:hover { text-decoration: underline; }
details.pass { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
details.pass > summary { cursor: pointer; padding: 8px 12px; background: var(--head); font-weight: 600; }
details.pass > summary .meta { font-weight: 400; color: var(--muted); margin-left: 8px; }
details.pass .body { padding: 8px 12px; }
details.inner > summary { cursor: pointer; color: var(--acc); margin: 6px 0; }
pre { margin: 0; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; overflow-x: auto; }
pre.ir { border: 1px solid var(--line); border-radius: 4px; padding: 6px 0; max-height: 560px; overflow: auto; }
pre.ir span { display: block; padding: 0 10px; white-space: pre; }
pre.ir .add { background: var(--add); color: var(--addfg); }
pre.ir .del { background: var(--del); color: var(--delfg); text-decoration: line-through; text-decoration-color: #d0a0a0; }
pre.ir .gap { color: var(--muted); font-style: italic; }
pre.block { background: var(--head); padding: 8px 10px; border-radius: 4px; }
.muted { color: var(--muted); }
.toolbar { margin: 8px 0; }
.toolbar button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); background: #fff; border-radius: 4px; cursor: pointer; }
.attach svg { max-width: 100%; height: auto; border: 1px solid var(--line); }
#timeline { border: 1px solid var(--line); border-radius: 4px; overflow-x: auto; position: relative; }
#timeline svg { display: block; }
#timeline rect.box { cursor: pointer; }
#timeline rect.box:hover, #timeline rect.box.hot { stroke: #111; stroke-width: 1.5; }
#tltip { position: fixed; pointer-events: none; background: #111827; color: #f9fafb; padding: 6px 8px; border-radius: 4px;
         font: 12px/1.4 ui-monospace, monospace; max-width: 640px; white-space: pre-wrap; display: none; z-index: 10; }
.legend span { display: inline-block; margin-right: 12px; font-size: 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
.ibar { height: 8px; background: #59a14f; border-radius: 2px; min-width: 1px; }
.ibar.before { background: #c7d9c3; }
#memmapbox svg { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
body.only-timeline main > :not(.tlsection) { display: none; }
</style>
</head>
<body>
<header>
<h1>narwhal compile: {{.Input}}{{if .Error}}<span class="status failed">failed</span>{{else}}<span class="status ok">compiled</span>{{end}}</h1>
<div class="cmd">{{.Command}}</div>
</header>
<main>
{{if .Error}}<div class="error" id="error">{{.Error}}</div>{{end}}

<h2 id="schedule" class="tlsection">Schedule{{if .Timeline.Func}} of {{.Timeline.Func}}{{end}}</h2>
{{if .Timeline.JSON}}<div class="tlsection">
<p class="muted">{{.Timeline.Shown}} of {{.Timeline.Insts}} scheduled instructions on {{.Timeline.Lanes}} engines and DMA queues, makespan {{.Timeline.Makespan}}{{if lt .Timeline.Shown .Timeline.Insts}} (the first {{.Timeline.Shown}} in program order are drawn){{end}}.
Hover a box for the instruction and its source line.
<label><input type="checkbox" id="tlarrows"> dependency arrows</label></p>
<div class="legend" id="tllegend"></div>
<div id="timeline" style="min-height:{{.Timeline.LaneHeights}}px"></div>
<div id="tltip"></div>
</div>
<script>var TIMELINE = {{.Timeline.JSON}};</script>
{{else}}<p class="muted tlsection" id="no-timeline">No timeline: {{.Timeline.Why}}.</p>{{end}}

<h2 id="memory">Memory map</h2>
{{if .MemMap}}<div id="memmapbox">{{.MemMap}}</div>
<p class="muted">Each placed SBUF and PSUM location from the first to the last instant an instruction touches it, over its bytes per partition; hover for its name and placement.</p>
{{else}}<p class="muted" id="no-memmap">No memory map: {{.MemMapWhy}}.</p>{{end}}

<h2 id="summary">Input and result</h2>
<div class="cols">
{{range $i, $s := (summaries .In .Out)}}{{if $s.S}}<div>
<table>
<tr><th colspan="3">{{$s.Label}}</th></tr>
<tr><td>architecture</td><td class="n" colspan="2">{{$s.S.Arch}}</td></tr>
<tr><td>functions</td><td class="n" colspan="2">{{$s.S.Functions}}</td></tr>
<tr><td>instructions</td><td class="n" colspan="2">{{$s.S.Insts}}</td></tr>
<tr><td>source positions</td><td class="n" colspan="2">{{$s.S.Positions}}</td></tr>
<tr><th>memory</th><th>locations</th><th>bytes</th></tr>
{{range $s.S.Tensors}}<tr><td>{{.Name}}</td><td class="n">{{.Count}}</td><td class="n">{{kib .Bytes}}</td></tr>{{end}}
<tr><th>opcode</th><th colspan="2">instructions</th></tr>
{{range (top $s.S.Opcodes 12)}}<tr><td>{{.Name}}</td><td class="n" colspan="2">{{.Count}}</td></tr>{{end}}
<tr><th>engine</th><th colspan="2">instructions</th></tr>
{{range $s.S.Engines}}<tr><td>{{.Name}}</td><td class="n" colspan="2">{{.Count}}</td></tr>{{end}}
</table>
</div>{{end}}{{end}}
</div>

{{if .Source}}<h2 id="source">Kernel source</h2>
<table id="sourcetable">
<tr><th>line</th><th>instructions in</th><th>instructions out</th><th>source</th></tr>
{{range .Source}}<tr><td>{{.Pos}}</td><td class="n">{{.In}}</td><td class="n">{{.Out}}</td><td><code>{{.Text}}</code></td></tr>{{end}}
</table>{{end}}

<h2 id="passes">Passes</h2>
<table id="passtable">
<tr><th>#</th><th>pass</th><th>order</th><th>time</th><th>verify</th><th>instructions</th><th style="width:16%">time</th><th style="width:16%">instructions after</th></tr>
{{range .Passes}}<tr class="{{if .Skipped}}skipped{{else if .Error}}failedrow{{end}}">
<td class="n">{{.Index}}</td>
<td>{{if .Skipped}}{{.Name}}{{else}}<a href="#pass-{{.Index}}" data-open="pass-{{.Index}}">{{.Name}}</a>{{end}}</td>
<td class="n">{{.Order}}</td>
{{if .Skipped}}<td colspan="5">skipped: {{.Skipped}}</td>{{else}}
<td class="n">{{.Time}}</td><td class="n">{{.Verify}}</td>
<td class="n">{{.Before}} &rarr; {{.After}}</td>
<td><div class="bar" style="width:{{.Bar}}%"></div></td>
<td title="{{.Before}} &rarr; {{.After}} instructions"><div class="ibar before" style="width:{{.InstBarBefore}}%"></div><div class="ibar" style="width:{{.InstBar}}%"></div></td>{{end}}
</tr>{{end}}
<tr><td></td><td><b>total</b></td><td></td><td class="n"><b>{{.Total}}</b></td><td></td><td class="n">{{.TotalInsts}}</td><td></td><td></td></tr>
</table>

<h2 id="attachments">Planner map and trace file</h2>
{{if .Attachments}}{{range .Attachments}}<div class="attach">
<h3>{{.Title}}</h3>
{{if eq .Kind "svg"}}{{.SVG}}{{else}}<p><a download="{{.Name}}" href="data:application/json;base64,{{.Data}}">{{.Name}}</a>
({{.Size}} bytes): a Chrome trace-event file; open it in Perfetto (ui.perfetto.dev, "Open trace file").</p>{{end}}
</div>{{end}}{{else}}<p class="muted" id="no-attachments">No memory planner map or trace file on this page{{if .Timeline.JSON}} (the schedule and memory map above are drawn from the result){{end}}:
--memmap adds the planner's allocation map, --trace a Chrome trace-event file for Perfetto.</p>{{end}}

<h2 id="details">Each pass</h2>
<div class="toolbar"><button type="button" id="expand">expand all</button> <button type="button" id="collapse">collapse all</button></div>
{{range .Passes}}{{if not .Skipped}}<details class="pass" id="pass-{{.Index}}"{{if .Error}} open{{end}}>
<summary>{{.Index}}. {{.Name}}<span class="meta">{{.Time}}, {{.Before}} &rarr; {{.After}} instructions{{if .HasIR}}, {{.Changed}} IR lines changed{{end}}</span></summary>
<div class="body">
{{if .Error}}<div class="error">{{.Error}}</div>{{end}}
{{if .Counters}}<table><tr><th>counter</th><th>value</th></tr>
{{range .Counters}}<tr><td>{{.Name}}</td><td class="n">{{.Value}}</td></tr>{{end}}</table>{{end}}
{{range .Blocks}}{{if .Title}}<p><b>{{.Title}}</b></p>{{end}}<pre class="block">{{lines .Text}}</pre>{{end}}
{{if .Log}}<details class="inner"><summary>log ({{len .Log}} lines)</summary><pre class="block">{{range .Log}}{{.}}
{{end}}</pre></details>{{end}}
{{if .HasIR}}<details class="inner"{{if .Changed}} open{{end}}><summary>IR before &rarr; after ({{.Changed}} lines changed; removed lines struck through, added lines green)</summary>
{{if .Diff}}<pre class="ir">{{range .Diff}}<span class="{{.Class}}">{{.Mark}} {{.Text}}</span>{{end}}</pre>{{else}}<p class="muted">The pass did not change the IR text.</p>{{end}}
</details>
{{if .AfterText}}<details class="inner"><summary>module after {{.Name}}</summary><pre class="ir">{{lines .AfterText}}</pre></details>{{end}}
{{else if .Omitted}}<p class="muted">IR not shown: {{.Omitted}}.</p>{{end}}
</div>
</details>{{end}}{{end}}
<p class="muted">Generated by narwhal at {{.Generated}}. The page is self-contained.</p>
</main>
<script>
(function () {
  var all = function () { return document.querySelectorAll("details.pass"); };
  document.getElementById("expand").addEventListener("click", function () {
    all().forEach(function (d) { d.open = true; });
  });
  document.getElementById("collapse").addEventListener("click", function () {
    all().forEach(function (d) { d.open = false; });
  });
  document.querySelectorAll("a[data-open]").forEach(function (a) {
    a.addEventListener("click", function () {
      var d = document.getElementById(a.getAttribute("data-open"));
      if (d) { d.open = true; }
    });
  });
  // page.html#pass-6 opens that pass's section and scrolls to it;
  // page.html#all opens every section.
  if (location.hash === "#all") {
    all().forEach(function (d) { d.open = true; });
  } else if (location.hash) {
    var d = document.getElementById(location.hash.slice(1));
    if (d && d.tagName === "DETAILS") { d.open = true; d.scrollIntoView(); }
  }
  document.body.setAttribute("data-ready", String(all().length));
})();
</script>
<script>
// The schedule timeline (htmlreport/timeline.go): lanes, boxes coloured by
// engine, a tooltip with the instruction and its source line, dependency
// arrows for the hovered box or, on demand, for all.
(function () {
  if (typeof TIMELINE === "undefined") { return; }
  var T = TIMELINE, NS = "http://www.w3.org/2000/svg";
  var box = document.getElementById("timeline"), tip = document.getElementById("tltip");
  if (location.hash === "#timeline") { document.body.classList.add("only-timeline"); }
  var left = 86, laneH = 22, top = 24, W = Math.max(600, Math.min(box.clientWidth || 1200, 1400) - left - 12);
  var n = T.start.length, span = Math.max(T.span, 1), sx = W / span;
  var H = top + laneH * T.lanes.length + 8;
  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  var svg = el("svg", {width: left + W + 12, height: H, "font-family": "system-ui, sans-serif", "font-size": 11});
  var defs = el("defs", {}, svg);
  var mk = el("marker", {id: "tlarrow", viewBox: "0 0 6 6", refX: 6, refY: 3, markerWidth: 6, markerHeight: 6, orient: "auto"}, defs);
  el("path", {d: "M0,0 L6,3 L0,6 z", fill: "#374151"}, mk);
  // Lanes and the time axis.
  for (var l = 0; l < T.lanes.length; l++) {
    var y = top + l * laneH;
    el("rect", {x: left, y: y, width: W, height: laneH, fill: l % 2 ? "#fafbfc" : "#f3f5f8"}, svg);
    var t = el("text", {x: 4, y: y + laneH * 0.7, fill: "#1d2330"}, svg);
    t.textContent = T.lanes[l];
  }
  var ticks = 8;
  for (var i = 0; i <= ticks; i++) {
    var x = left + W * i / ticks;
    el("line", {x1: x, y1: top - 4, x2: x, y2: H - 8, stroke: "#d9dee6"}, svg);
    var tt = el("text", {x: i === ticks ? x - 2 : x + 2, y: 14, fill: "#5d6675", "text-anchor": i === ticks ? "end" : "start"}, svg);
    tt.textContent = (span * i / ticks / 1e6).toFixed(2) + " us";
  }
  // The boxes.
  var boxes = el("g", {}, svg), rects = new Array(n);
  for (var k = 0; k < n; k++) {
    var r = el("rect", {"class": "box", x: left + T.start[k] * sx, y: top + T.lane[k] * laneH + 3,
      width: Math.max((T.end[k] - T.start[k]) * sx, 1), height: laneH - 6, rx: 1.5, fill: T.colors[T.lane[k]], "data-k": k}, boxes);
    rects[k] = r;
  }
  var arrows = el("g", {}, svg), hot = el("g", {}, svg);
  function mid(k) { return top + T.lane[k] * laneH + laneH / 2; }
  function arrow(g, a, b, color) {
    el("line", {x1: left + T.end[a] * sx, y1: mid(a), x2: left + T.start[b] * sx, y2: mid(b),
      stroke: color, "stroke-width": 1, "marker-end": "url(#tlarrow)", "stroke-opacity": 0.7}, g);
  }
  var into = {}, outof = {};
  for (var d = 0; d + 1 < T.deps.length; d += 2) {
    var a = T.deps[d], b = T.deps[d + 1];
    (into[b] = into[b] || []).push(a);
    (outof[a] = outof[a] || []).push(b);
  }
  document.getElementById("tlarrows").addEventListener("change", function (e) {
    while (arrows.firstChild) { arrows.removeChild(arrows.firstChild); }
    if (!e.target.checked) { return; }
    for (var d = 0; d + 1 < T.deps.length; d += 2) { arrow(arrows, T.deps[d], T.deps[d + 1], "#374151"); }
  });
  function us(ps) { return (ps / 1e6).toFixed(3) + " us"; }
  boxes.addEventListener("mouseover", function (e) {
    var k = e.target.getAttribute("data-k");
    if (k === null) { return; }
    k = +k;
    while (hot.firstChild) { hot.removeChild(hot.firstChild); }
    (into[k] || []).forEach(function (a) { arrow(hot, a, k, "#b42318"); });
    (outof[k] || []).forEach(function (b) { arrow(hot, k, b, "#1f6feb"); });
    var src = T.src[k] >= 0 ? T.srcs[T.src[k]] : "(no source position)";
    tip.textContent = T.name[k] + "  " + T.ops[T.op[k]] + " on " + T.lanes[T.lane[k]] + "\n" +
      us(T.start[k]) + " .. " + us(T.end[k]) + " (" + us(T.end[k] - T.start[k]) + ")\n" +
      (into[k] || []).length + " dependencies in (red), " + (outof[k] || []).length + " out (blue)\n" + src;
    tip.style.display = "block";
  });
  boxes.addEventListener("mousemove", function (e) {
    tip.style.left = Math.min(e.clientX + 14, window.innerWidth - 420) + "px";
    tip.style.top = (e.clientY + 14) + "px";
  });
  boxes.addEventListener("mouseout", function () {
    tip.style.display = "none";
    while (hot.firstChild) { hot.removeChild(hot.firstChild); }
  });
  box.appendChild(svg);
  // The legend: a colour per engine, one for the DMA queues.
  var seen = {}, leg = document.getElementById("tllegend");
  for (var l2 = 0; l2 < T.lanes.length; l2++) {
    var name = /^queue /.test(T.lanes[l2]) ? "DMA queues" : T.lanes[l2];
    if (seen[name]) { continue; }
    seen[name] = true;
    var sp = document.createElement("span"), ic = document.createElement("i");
    ic.style.background = T.colors[l2];
    sp.appendChild(ic);
    sp.appendChild(document.createTextNode(name));
    leg.appendChild(sp);
  }
  var bb = svg.getBoundingClientRect();
  document.body.setAttribute("data-timeline", String(n));
  document.body.setAttribute("data-timeline-box", [Math.round(bb.left + window.scrollX), Math.round(bb.top + window.scrollY), Math.round(bb.width), Math.round(bb.height)].join(","));
})();
</script>
</body>
</html>
`
