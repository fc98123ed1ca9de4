"use strict";
(function () {
  var errorsEl = document.getElementById("errors");
  function report(msg) {
    errorsEl.hidden = false;
    errorsEl.textContent += msg + "\n";
    document.body.setAttribute("data-errors", "1");
  }
  window.onerror = function (msg, src, line, col) { report(msg + " (line " + line + ":" + col + ")"); };
  window.addEventListener("unhandledrejection", function (e) { report("unhandled rejection: " + e.reason); });

  var D = JSON.parse(document.getElementById("data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function num(n) { return Number(n).toLocaleString("en-US"); }
  function facts(n) { return n === 1 ? "1 fact" : n + " facts"; }
  // when shows a stored UTC time to the minute.
  function when(s) { return s ? s.slice(0, 16).replace("T", " ") + " UTC" : ""; }

  // table renders rows under host; cols are [header, key or function, class].
  function table(host, cols, rows, empty) {
    host.textContent = "";
    if (!rows || rows.length === 0) { host.appendChild(el("div", empty, "empty")); return; }
    var t = el("table"), head = el("tr");
    cols.forEach(function (c) { head.appendChild(el("th", c[0])); });
    t.appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr");
      cols.forEach(function (c) {
        var v = typeof c[1] === "function" ? c[1](r) : r[c[1]];
        tr.appendChild(el("td", v, c[2] || ""));
      });
      t.appendChild(tr);
    });
    host.appendChild(t);
  }

  // Tabs.
  var buttons = document.querySelectorAll("#tabs button");
  function show(name) {
    buttons.forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-tab") === name); });
    document.querySelectorAll(".tab").forEach(function (s) { s.classList.toggle("on", s.id === "tab-" + name); });
    if (name === "graph") draw();
  }
  buttons.forEach(function (b) { b.addEventListener("click", function () { show(b.getAttribute("data-tab")); }); });

  document.getElementById("where").textContent = D.data_dir + " · generated " + D.generated_at +
    (D.entity ? " · entity " + D.entity : "") + " · samples capped at " + D.limit;

  // Overview.
  (function () {
    var host = document.getElementById("overview"), cards = el("div", null, "cards");
    [["events (D)", D.counts.events], ["extracted facts (I)", D.counts.extracted], ["facts (K)", D.counts.facts],
     ["active facts", D.counts.active_facts], ["entities", D.counts.entities], ["graph edges", D.graph.edges.length]]
      .forEach(function (c) { var card = el("div", null, "card"); card.appendChild(el("b", num(c[1]))); card.appendChild(el("span", c[0], "muted")); cards.appendChild(card); });
    host.appendChild(cards);
    host.appendChild(el("h2", "Newest knowledge"));
    var div = el("div"); host.appendChild(div);
    table(div, [["id", "id", "num"], ["domain", "domain"], ["fact", "content", "content"]], D.facts.slice(0, 10), "no facts yet: run recollect consolidate");
  })();

  table(document.getElementById("k"), [["id", "id", "num"], ["status", "status"], ["kind", "kind"], ["domain", "domain"], ["producer", "producer"],
    ["recorded", function (r) { return when(r.recorded_at); }], ["fact", "content", "content"], ["entities", function (r) { return r.entities.join(", "); }]],
    D.facts, "no facts");
  table(document.getElementById("i"), [["id", "id", "num"], ["session", "session_id"], ["status", "status"], ["producer", "producer"],
    ["fact", function (r) { return r.fact_id || ""; }, "num"], ["events", "events"], ["content", "content", "content"]],
    D.extracted, "no extracted facts");
  table(document.getElementById("d"), [["seq", "seq", "num"], ["session", "session_id"], ["role", "role"], ["type", "type"],
    ["at", function (r) { return when(r.at); }], ["bytes", "bytes", "num"], ["content", "content", "content"]], D.events, "no events");
  table(document.getElementById("entities"), [["id", "id", "num"], ["type", "type"], ["name", "name"], ["facts", "facts", "num"]],
    D.entities, "no entities");

  // Spend.
  (function () {
    var host = document.getElementById("spend"), s = D.spend;
    if (!s) { host.appendChild(el("div", "spend was not read for this page", "empty")); return; }
    var cols = [["", "key"], ["calls", "calls", "num"], ["failed", "failed", "num"], ["input tokens", "input_tokens", "num"],
      ["output tokens", "output_tokens", "num"], ["calls without token counts", "unreported_calls", "num"]];
    host.appendChild(el("h2", "Totals"));
    var tot = el("div"); host.appendChild(tot);
    table(tot, cols, [Object.assign({}, s.last_24h, { key: "last 24 h" }), Object.assign({}, s.all_time, { key: "all time" })], "");
    [["By stage", s.by_stage], ["By provider", s.by_provider], ["By model", s.by_model]].forEach(function (g) {
      host.appendChild(el("h2", g[0]));
      var div = el("div"); host.appendChild(div);
      table(div, cols, g[1], "no model calls");
    });
    host.appendChild(el("h2", "Token budgets"));
    var b = el("div"); host.appendChild(b);
    table(b, [["provider", "provider"], ["window", "window"], ["cap", "cap", "num"], ["used", "used", "num"],
      ["remaining", "remaining", "num"], ["oldest usage ages out", "resets_at"], ["note", "note"]], s.budgets, s.budget_note || "no token budget configured");
  })();

  // Graph.
  var byId = {}, adj = {};
  D.graph.nodes.forEach(function (n) { byId[n.id] = n; adj[n.id] = []; });
  D.graph.edges.forEach(function (e) { if (adj[e.from]) adj[e.from].push(e); if (adj[e.to]) adj[e.to].push(e); });
  var drawn = {};
  D.graph.nodes.slice(0, D.graph.drawn).forEach(function (n) { drawn[n.id] = true; });
  var pos = {}, hit = null, view = null, dirty = true;
  var types = {};
  D.graph.nodes.forEach(function (n) { types[n.type] = true; });
  var typeSel = document.getElementById("type");
  Object.keys(types).sort().forEach(function (t) { var o = el("option", t); o.value = t; typeSel.appendChild(o); });
  var palette = { person: "#1c7ed6", organization: "#2b8a3e", place: "#e67700", project: "#862e9c", thing: "#5c7080" };
  function colour(t) { return palette[t] || "#868e96"; }

  // layout places the drawn nodes with a small force simulation: every
  // pair repels, every edge pulls, the temperature cools. Nodes placed
  // before keep their place as the start.
  function layout(ids, edges, W, H) {
    var n = ids.length, k = Math.min(220, Math.sqrt((W * H) / Math.max(n, 1)) * 1.1);
    ids.forEach(function (id, i) {
      if (!pos[id]) { var a = i * 2.399963, r = k * 0.6 * Math.sqrt(i + 1); pos[id] = { x: W / 2 + r * Math.cos(a), y: H / 2 + r * Math.sin(a) }; }
    });
    var iters = Math.max(30, Math.min(300, Math.floor(3e6 / Math.max(n * n, 1)))), t = W / 8;
    for (var it = 0; it < iters; it++) {
      var disp = {};
      ids.forEach(function (id) { disp[id] = { x: 0, y: 0 }; });
      for (var i = 0; i < n; i++) {
        for (var j = i + 1; j < n; j++) {
          var a = pos[ids[i]], b = pos[ids[j]], dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 0.01, f = (k * k) / d2;
          disp[ids[i]].x += dx * f; disp[ids[i]].y += dy * f; disp[ids[j]].x -= dx * f; disp[ids[j]].y -= dy * f;
        }
      }
      edges.forEach(function (e) {
        var a = pos[e.from], b = pos[e.to], dx = a.x - b.x, dy = a.y - b.y, d = Math.sqrt(dx * dx + dy * dy) + 0.01, f = d / k;
        disp[e.from].x -= dx * f; disp[e.from].y -= dy * f; disp[e.to].x += dx * f; disp[e.to].y += dy * f;
      });
      ids.forEach(function (id) {
        var p = pos[id], v = disp[id], l = Math.sqrt(v.x * v.x + v.y * v.y) + 0.01, m = Math.min(l, t);
        p.x += (v.x / l) * m + (W / 2 - p.x) * 0.005; p.y += (v.y / l) * m + (H / 2 - p.y) * 0.005;
        p.x = Math.max(40, Math.min(W - 120, p.x)); p.y = Math.max(30, Math.min(H - 30, p.y));
      });
      t *= 0.97;
    }
    // Stretch the result over the drawing area; labels keep their size.
    if (n < 2) return;
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    ids.forEach(function (id) { var p = pos[id]; x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y); });
    var sx = (W - 200) / Math.max(x1 - x0, 1), sy = (H - 80) / Math.max(y1 - y0, 1), sc = Math.min(sx, sy, 2.5);
    ids.forEach(function (id) { var p = pos[id]; p.x = 60 + (p.x - x0) * sc + ((W - 200) - (x1 - x0) * sc) / 2; p.y = 40 + (p.y - y0) * sc + ((H - 80) - (y1 - y0) * sc) / 2; });
  }

  function draw() {
    var host = document.getElementById("graph");
    if (!dirty || host.getBoundingClientRect().width === 0) return;
    dirty = false;
    var W = 1000, H = 640;
    var ids = Object.keys(drawn).map(Number);
    var edges = D.graph.edges.filter(function (e) { return drawn[e.from] && drawn[e.to]; });
    // Several facts may join the same two entities: one line each pair.
    var pairs = {};
    edges.forEach(function (e) { var key = Math.min(e.from, e.to) + "-" + Math.max(e.from, e.to); (pairs[key] = pairs[key] || []).push(e); });
    var keys = Object.keys(pairs);
    layout(ids, keys.map(function (key) { return pairs[key][0]; }), W, H);
    host.textContent = "";
    if (!view) view = [0, 0, W, H];
    host.setAttribute("viewBox", view.join(" "));
    host.setAttribute("data-nodes", String(ids.length));
    if (!host.hasAttribute("data-first-nodes")) host.setAttribute("data-first-nodes", String(ids.length));
    host.setAttribute("data-edges", String(edges.length));
    // Labels for every line when few, else for the selected node's lines;
    // every line carries all its facts as a tooltip.
    var few = keys.length <= 25;
    keys.forEach(function (key) {
      var es = pairs[key], a = pos[es[0].from], b = pos[es[0].to];
      var showLabels = few || es[0].from === hit || es[0].to === hit;
      var line = svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, "class": "edge" });
      var title = svg("title", {}); title.textContent = es.map(function (e) { return "#" + e.fact_id + " " + e.label; }).join("\n");
      line.appendChild(title); host.appendChild(line);
      if (showLabels) {
        var lbl = svg("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, "class": "edge-label", "text-anchor": "middle" });
        lbl.textContent = short(es[0].label, 34) + (es.length > 1 ? " (+" + (es.length - 1) + ")" : "");
        host.appendChild(lbl);
      }
    });
    ids.forEach(function (id) {
      var n = byId[id], p = pos[id], g = svg("g", { "class": "node" + (hit === id ? " hit" : ""), "data-id": id });
      var c = svg("circle", { cx: p.x, cy: p.y, r: 5 + Math.min(12, Math.sqrt(n.degree) * 2.5), fill: colour(n.type) });
      var title = svg("title", {}); title.textContent = n.name + " (" + n.type + ", " + facts(n.degree) + ")";
      c.appendChild(title); g.appendChild(c);
      var t = svg("text", { x: p.x + 9, y: p.y + 4 }); t.textContent = n.name; g.appendChild(t);
      g.addEventListener("click", function () { select(id); });
      host.appendChild(g);
    });
    document.getElementById("graph-note").textContent = ids.length + " of " + D.graph.nodes.length + " entities drawn" +
      (ids.length < D.graph.nodes.length ? " (best connected first; search reaches the rest)" : "");
  }

  function short(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }
  // Pan and zoom by changing the viewBox.
  (function () {
    var host = document.getElementById("graph"), drag = null;
    host.addEventListener("wheel", function (e) {
      if (!view) return;
      e.preventDefault();
      var s = e.deltaY > 0 ? 1.15 : 1 / 1.15, r = host.getBoundingClientRect();
      var fx = (e.clientX - r.left) / r.width, fy = (e.clientY - r.top) / r.height;
      var w = view[2] * s, h = view[3] * s;
      view = [view[0] + (view[2] - w) * fx, view[1] + (view[3] - h) * fy, w, h];
      host.setAttribute("viewBox", view.join(" "));
    }, { passive: false });
    host.addEventListener("mousedown", function (e) { drag = { x: e.clientX, y: e.clientY, v: view.slice() }; });
    window.addEventListener("mouseup", function () { drag = null; });
    window.addEventListener("mousemove", function (e) {
      if (!drag) return;
      var r = host.getBoundingClientRect();
      view = [drag.v[0] - (e.clientX - drag.x) * view[2] / r.width, drag.v[1] - (e.clientY - drag.y) * view[3] / r.height, view[2], view[3]];
      host.setAttribute("viewBox", view.join(" "));
    });
  })();

  // select shows a node and its facts; a node outside the cap is added to
  // the drawing with its neighbours that are drawn.
  function select(id) {
    var n = byId[id];
    if (!n) return;
    if (!drawn[id]) { drawn[id] = true; dirty = true; }
    hit = id; dirty = true;
    var box = document.getElementById("selected");
    box.textContent = "";
    box.className = "";
    box.appendChild(el("b", n.name));
    box.appendChild(el("div", n.type + " · " + facts(n.degree), "muted"));
    var ul = el("ul");
    adj[id].slice(0, 50).forEach(function (e) { ul.appendChild(el("li", "#" + e.fact_id + " " + e.label)); });
    box.appendChild(ul);
    draw();
  }

  // search matches every node, drawn or not, by name and type.
  function search() {
    var q = document.getElementById("q").value.trim().toLowerCase(), t = typeSel.value;
    var out = document.getElementById("results");
    out.textContent = "";
    if (!q && !t) return;
    var found = D.graph.nodes.filter(function (n) { return (!t || n.type === t) && (!q || n.name.toLowerCase().indexOf(q) >= 0); });
    found.slice(0, 100).forEach(function (n) {
      var li = el("li");
      li.setAttribute("data-id", n.id);
      li.setAttribute("data-drawn", drawn[n.id] ? "yes" : "no");
      li.appendChild(el("span", n.name + " "));
      li.appendChild(el("span", n.type + " · " + facts(n.degree) + (drawn[n.id] ? "" : " · outside the cap"), "tag"));
      li.addEventListener("click", function () { select(n.id); });
      out.appendChild(li);
    });
    if (found.length === 0) out.appendChild(el("li", "no entity matches", "muted"));
    out.setAttribute("data-count", String(found.length));
  }
  document.getElementById("q").addEventListener("input", search);
  typeSel.addEventListener("change", search);

  // A fragment such as #q=robin&type=person&tab=graph runs on load, so a
  // link (or a test) can open the page on a search.
  var params = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (params.get("q") !== null || params.get("type") !== null) {
    document.getElementById("q").value = params.get("q") || "";
    typeSel.value = params.get("type") || "";
    show("graph");
    search();
    var first = document.querySelector("#results li[data-id]");
    if (first) select(Number(first.getAttribute("data-id")));
  } else if (params.get("tab")) {
    show(params.get("tab"));
  }
  document.body.setAttribute("data-ready", "1");
})();
