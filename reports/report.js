/* The HTML report's findings, filters and search. The findings travel as one compressed data
   block (<template id="report-data">: JSON, gzip, base64; see auditor/report/_html_data.py):
   this script decompresses it, filters and searches the data (not DOM nodes) and builds a page of
   rows at a time per rule, each finding's details only when they are opened. Every text goes in
   through textContent, never innerHTML; evidence that carried markup arrives as a tree of allowed
   elements, rebuilt element by element.
   The filter state lives in the URL hash (#sev=critical,high&status=fail&rule=DOM-001&q=text) so
   a filtered view can be bookmarked or shared; a hash naming a finding (#f-12) shows and opens
   that finding. Allowed by the page's Content-Security-Policy through this script's SHA-256; no
   other script can run. */
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var block = document.getElementById("report-data");
  if (!form || !block) { return; }
  document.documentElement.classList.add("js");
  var PAGE = 50;
  var RES_PAGE = 100;
  var SAFE = { a: 1, abbr: 1, b: 1, blockquote: 1, br: 1, code: 1, em: 1, i: 1, li: 1, ol: 1,
               p: 1, pre: 1, s: 1, small: 1, strong: 1, sub: 1, sup: 1, u: 1, ul: 1 };
  var URL_RE = /^https?:\/\/[^\s<>"']+$/;
  var LINK_RE = /^(https?:|mailto:)/i;
  var count = document.getElementById("f-count");
  var ruleSel = document.getElementById("f-rule");
  var search = document.getElementById("f-q");
  var KEYS = ["sev", "status", "rule", "q"];
  var D = null;          // the decoded data
  var N = 0;             // findings in it
  var S = null;          // its string table
  var texts = null;      // lower-case search text per finding, built on the first search
  var matched = null;    // Uint8Array: 1 where the finding passes the filters
  var sections = [];     // one per rule: {el, box, ids: [positions], shown, list, tbody, more}
  var sectionOf = {};    // rule id -> section
  var posOfN = {};       // finding number (#f-N) -> position
  var resBox = document.getElementById("res-rows");
  var res = { shown: 0, list: [], tbody: null, more: null };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function str(i) { return i >= 0 ? S[i] : ""; }
  function rid(text) {
    /* a resource id, breakable only after its path separators */
    var frag = document.createDocumentFragment();
    var parts = text.split("/");
    for (var i = 0; i < parts.length; i++) {
      if (parts[i]) { frag.appendChild(document.createTextNode(parts[i])); }
      if (i < parts.length - 1) {
        frag.appendChild(document.createTextNode("/"));
        frag.appendChild(document.createElement("wbr"));
      }
    }
    return frag;
  }
  function ref(text) {
    if (URL_RE.test(text)) {
      var a = el("a", null, text);
      a.href = text;
      a.rel = "noopener noreferrer";
      a.target = "_blank";
      return a;
    }
    return document.createTextNode(text);
  }
  function tree(parent, nodes) {
    /* cleaned markup rebuilt: allowed elements, href only to http(s) and mailto, text as text */
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (typeof n === "string") { parent.appendChild(document.createTextNode(n)); continue; }
      if (!SAFE[n[0]]) { tree(parent, n.slice(2)); continue; }
      var e = document.createElement(n[0]);
      var attrs = n[1] || {};
      if (attrs.title) { e.title = attrs.title; }
      if (n[0] === "a") {
        if (attrs.href && LINK_RE.test(attrs.href)) { e.href = attrs.href; }
        e.rel = "noopener noreferrer nofollow";
      }
      tree(e, n.slice(2));
      parent.appendChild(e);
    }
  }

  function pretty(value) {
    /* evidence objects and arrays as JSON: short ones on one line, long ones indented, as the
       markup page shows them */
    var json = JSON.stringify(value);
    return json.length <= 80 ? json : JSON.stringify(value, null, 2);
  }

  function evidence(p) {
    /* a finding's evidence as [key, kind, value] items (kind 0 text, 1 a markup tree, 2 a JSON
       value), or null: the block gives [shape, value...], the keys by the shape, each value a
       string's index, [1, tree] or [2, a JSON value's index] (see _html_data.py) */
    var ev = D.f.ev[p];
    if (!ev) { return null; }
    var keys = D.evk[ev[0]];
    var items = [];
    for (var i = 1; i < ev.length; i++) {
      var v = ev[i];
      if (typeof v === "number") {
        items.push([S[keys[i - 1]], 0, S[v]]);
      } else {
        items.push([S[keys[i - 1]], v[0], v[0] === 2 ? D.evj[v[1]] : v[1]]);
      }
    }
    return items;
  }

  // ---------------------------------------------------------------- a finding as DOM nodes
  function details(p, box) {
    var f = D.f;
    var w = f.wv[p];
    if (w >= 0) {
      var wv = D.w[w];
      var wp = el("p", "waiver", wv[3] ? "Expired waiver " : "Waived by ");
      wp.appendChild(el("code", null, wv[0]));
      wp.appendChild(document.createTextNode(" until " + wv[1] + ": " + wv[2]));
      box.appendChild(wp);
    }
    var ev = evidence(p);
    if (ev) {
      var dl = el("dl", "ev");
      for (var i = 0; i < ev.length; i++) {
        dl.appendChild(el("dt", null, ev[i][0]));
        var kind = ev[i][1];
        var dd;
        if (kind === 1) {
          dd = el("dd", "rich");
          tree(dd, ev[i][2]);
        } else if (kind === 2) {
          dd = el("dd");
          dd.appendChild(el("pre", null, pretty(ev[i][2])));
        } else {
          dd = el("dd", null, ev[i][2]);
        }
        dl.appendChild(dd);
      }
      box.appendChild(dl);
    }
    if (f.rem[p] >= 0) {
      var rp = el("p");
      rp.appendChild(el("strong", null, "Remediation:"));
      rp.appendChild(document.createTextNode(" " + S[f.rem[p]]));
      box.appendChild(rp);
    }
    var refs = f.refs[p];
    if (refs) {
      var fp = el("p");
      fp.appendChild(el("strong", null, "References:"));
      fp.appendChild(document.createTextNode(" "));
      for (var r = 0; r < refs.length; r++) {
        if (r) { fp.appendChild(document.createTextNode("; ")); }
        fp.appendChild(ref(S[refs[r]]));
      }
      box.appendChild(fp);
    }
    var small = el("p", "small");
    if (f.src[p] >= 0) {
      small.appendChild(document.createTextNode("Source "));
      small.appendChild(el("code", null, S[f.src[p]] + (f.ln[p] >= 0 ? ":" + f.ln[p] : "")));
      var at = f.at[p] >= 0 ? f.at[p] : f.loc[p];
      if (at >= 0) {
        small.appendChild(document.createTextNode(" at "));
        small.appendChild(el("code", null, S[at]));
      }
      if (f.loc[p] >= 0 && f.at[p] >= 0 && f.loc[p] !== f.at[p]) {
        small.appendChild(document.createTextNode(" ("));
        small.appendChild(el("code", null, S[f.loc[p]]));
        small.appendChild(document.createTextNode(")"));
      }
      small.appendChild(document.createTextNode(" · "));
    }
    small.appendChild(document.createTextNode("fingerprint "));
    small.appendChild(el("code", null, f.fp[p]));
    box.appendChild(small);
  }
  function row(p) {
    var f = D.f;
    var sev = D.sevs[f.sv[p]];
    var st = D.sts[f.st[p]];
    var tr = el("tr", "finding");
    tr.id = "f-" + f.n[p];
    tr.setAttribute("data-sev", sev);
    tr.setAttribute("data-status", st);
    var td = el("td");
    td.appendChild(el("span", "sev sev-" + sev, sev));
    tr.appendChild(td);
    td = el("td");
    td.appendChild(el("span", "st st-" + st, st));
    tr.appendChild(td);
    td = el("td", "rid");
    if (f.nm[p] >= 0) { td.appendChild(el("div", "nm", S[f.nm[p]])); }
    td.appendChild(rid(S[f.res[p]]));
    if (f.ln[p] >= 0) { td.appendChild(el("div", "src", str(f.src[p]) + ":" + f.ln[p])); }
    tr.appendChild(td);
    td = el("td");
    td.appendChild(el("div", "msg", S[f.m[p]]));
    var det = el("details");
    det.appendChild(el("summary", null, "Details"));
    det.addEventListener("toggle", function () {
      if (det.open && det.childNodes.length === 1) { details(p, det); }
    });
    td.appendChild(det);
    tr.appendChild(td);
    return tr;
  }
  function table(heads, cls) {
    var t = el("table", cls);
    var head = el("thead");
    var tr = el("tr");
    heads.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    head.appendChild(tr);
    t.appendChild(head);
    var body = el("tbody");
    t.appendChild(body);
    return t;
  }
  function moreButton(onClick) {
    var b = el("button", "more");
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }

  // ---------------------------------------------------------------- rule sections, paged
  function showMore(sec, upTo) {
    var end = Math.min(sec.list.length, Math.max(upTo || 0, sec.shown + PAGE));
    var frag = document.createDocumentFragment();
    for (var i = sec.shown; i < end; i++) { frag.appendChild(row(sec.list[i])); }
    sec.tbody.appendChild(frag);
    sec.shown = end;
    var left = sec.list.length - end;
    sec.more.hidden = left <= 0;
    sec.more.textContent = "Show " + Math.min(PAGE, left) + " more (" + left + " not shown)";
  }
  function fillSection(sec) {
    sec.list = [];
    for (var i = 0; i < sec.ids.length; i++) {
      if (matched[sec.ids[i]]) { sec.list.push(sec.ids[i]); }
    }
    var none = sec.list.length === 0;
    if (sec.el.hidden !== none) { sec.el.hidden = none; }
    sec.tbody.textContent = "";
    sec.shown = 0;
    showMore(sec, 0);
  }

  // ---------------------------------------------------------------- the resource index, paged
  function chip(p) {
    var f = D.f;
    var sev = D.sevs[f.sv[p]];
    var st = D.sts[f.st[p]];
    var a = el("a", "chip sevb-" + sev + " chip-" + st, S[f.r[p]]);
    a.href = "#f-" + f.n[p];
    a.title = sev + ", " + st;
    return a;
  }
  function resRow(r) {
    var tr = el("tr", "resrow");
    var td = el("td", "rid");
    if (r[2] >= 0) { td.appendChild(el("div", "nm", S[r[2]])); }
    td.appendChild(rid(S[r[0]]));
    tr.appendChild(td);
    tr.appendChild(el("td", null, S[r[1]]));
    td = el("td");
    for (var i = 0; i < r[3].length; i++) {
      if (matched[r[3][i]]) { td.appendChild(chip(r[3][i])); }
    }
    tr.appendChild(td);
    return tr;
  }
  function showMoreResources() {
    var end = Math.min(res.list.length, res.shown + RES_PAGE);
    var frag = document.createDocumentFragment();
    for (var i = res.shown; i < end; i++) { frag.appendChild(resRow(D.res[res.list[i]])); }
    res.tbody.appendChild(frag);
    res.shown = end;
    var left = res.list.length - end;
    res.more.hidden = left <= 0;
    res.more.textContent = "Show " + Math.min(RES_PAGE, left) + " more resources (" + left +
      " not shown)";
  }
  function fillResources() {
    if (!res.tbody) { return; }
    res.list = [];
    for (var i = 0; i < D.res.length; i++) {
      var ids = D.res[i][3];
      for (var j = 0; j < ids.length; j++) {
        if (matched[ids[j]]) { res.list.push(i); break; }
      }
    }
    res.tbody.textContent = "";
    res.shown = 0;
    showMoreResources();
  }

  // ---------------------------------------------------------------- privileged principals, paged
  function setUpPrivileged(box) {
    var rows = D.priv || [];
    var t = table(["Subscription", "Principal", "Id", "Type", "Role", "Through"], "grid priv");
    var body = t.querySelector("tbody");
    box.appendChild(t);
    var shown = 0;
    var more = moreButton(showPage);
    box.appendChild(more);
    function showPage() {
      var end = Math.min(rows.length, shown + RES_PAGE);
      var frag = document.createDocumentFragment();
      for (var i = shown; i < end; i++) {
        var r = rows[i];
        var tr = el("tr");
        var sub = el("td");
        sub.appendChild(el("code", null, S[r[0]]));
        tr.appendChild(sub);
        tr.appendChild(el("td", null, S[r[1]]));
        var id = el("td");
        id.appendChild(el("code", null, S[r[2]]));
        tr.appendChild(id);
        tr.appendChild(el("td", null, S[r[3]]));
        tr.appendChild(el("td", null, S[r[4]]));
        if (r[5].length) {
          tr.appendChild(el("td", null, r[5].map(function (v) { return S[v]; }).join(" → ")));
        } else {
          tr.appendChild(el("td", "muted", "direct"));
        }
        frag.appendChild(tr);
      }
      body.appendChild(frag);
      shown = end;
      var left = rows.length - end;
      more.hidden = left <= 0;
      more.textContent = "Show " + Math.min(RES_PAGE, left) + " more (" + left + " not shown)";
    }
    showPage();
  }

  // ---------------------------------------------------------------- filters and the URL hash
  function boxes(name) {
    return Array.prototype.slice.call(form.querySelectorAll("input[name='" + name + "']"));
  }
  function defaults() {
    return {
      sev: boxes("sev").map(function (b) { return b.value; }),
      status: boxes("status").map(function (b) { return b.value; })
        .filter(function (v) { return v !== "pass"; }),
      rule: "",
      q: ""
    };
  }
  function read() {
    var checked = function (name) {
      return boxes(name).filter(function (b) { return b.checked; })
        .map(function (b) { return b.value; });
    };
    return { sev: checked("sev"), status: checked("status"), rule: ruleSel.value,
             q: search.value.trim() };
  }
  function write(state) {
    boxes("sev").forEach(function (b) { b.checked = state.sev.indexOf(b.value) >= 0; });
    boxes("status").forEach(function (b) { b.checked = state.status.indexOf(b.value) >= 0; });
    var known = Array.prototype.some.call(ruleSel.options, function (o) {
      return o.value === state.rule;
    });
    ruleSel.value = known ? state.rule : "";
    search.value = state.q;
  }
  function parseHash() {
    var h = window.location.hash.replace(/^#/, "");
    if (h.indexOf("=") < 0) { return null; }
    var state = defaults();
    h.split("&").forEach(function (part) {
      var i = part.indexOf("=");
      if (i < 0) { return; }
      var k = decodeURIComponent(part.slice(0, i));
      var v = decodeURIComponent(part.slice(i + 1).replace(/\+/g, " "));
      if (k === "sev" || k === "status") {
        state[k] = v ? v.split(",") : [];
      } else if (k === "rule" || k === "q") {
        state[k] = v;
      }
    });
    return state;
  }
  function toHash(state) {
    var d = defaults();
    var parts = [];
    KEYS.forEach(function (k) {
      var v = state[k];
      var dv = d[k];
      var same = Array.isArray(v) ? v.join(",") === dv.join(",") : v === dv;
      if (!same) {
        parts.push(k + "=" + encodeURIComponent(Array.isArray(v) ? v.join(",") : v));
      }
    });
    return parts.join("&");
  }
  function searchText(p) {
    var f = D.f;
    var parts = [S[f.r[p]], D.sevs[f.sv[p]], D.sts[f.st[p]], S[f.res[p]], str(f.nm[p]),
                 S[f.m[p]], str(f.src[p]), f.fp[p]];
    var ev = evidence(p);
    if (ev) {
      for (var i = 0; i < ev.length; i++) {
        parts.push(ev[i][0]);
        parts.push(ev[i][1] === 0 ? ev[i][2] : JSON.stringify(ev[i][2]));
      }
    }
    var w = f.wv[p];
    if (w >= 0) { parts.push(D.w[w].join(" ")); }
    return parts.join("\n").toLowerCase();
  }
  function apply(state) {
    var f = D.f;
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length && texts === null) {
      texts = new Array(N);
      for (var t = 0; t < N; t++) { texts[t] = searchText(t); }
    }
    var sevOk = D.sevs.map(function (s) { return state.sev.indexOf(s) >= 0; });
    var stOk = D.sts.map(function (s) { return state.status.indexOf(s) >= 0; });
    var ruleAt = -1;
    if (state.rule) { ruleAt = S.indexOf(state.rule); }
    var shown = 0;
    for (var p = 0; p < N; p++) {
      var ok = sevOk[f.sv[p]] && stOk[f.st[p]] && (!state.rule || f.r[p] === ruleAt);
      if (ok && words.length) {
        for (var w = 0; w < words.length; w++) {
          if (texts[p].indexOf(words[w]) < 0) { ok = false; break; }
        }
      }
      matched[p] = ok ? 1 : 0;
      if (ok) { shown += 1; }
    }
    sections.forEach(fillSection);
    fillResources();
    count.textContent = shown + " of " + N + " findings shown";
    count.setAttribute("data-shown", String(shown));
  }
  function save(state) {
    var h = toHash(state);
    var url = window.location.pathname + window.location.search + (h ? "#" + h : "");
    try {
      window.history.replaceState(null, "", url);
    } catch (e) {
      window.location.hash = h;
    }
  }
  function update() {
    var state = read();
    apply(state);
    save(state);
  }
  function reveal(id) {
    var p = posOfN[id.slice(2)];
    if (p === undefined) { return; }
    if (!matched[p]) {
      var all = defaults();
      all.status = boxes("status").map(function (b) { return b.value; });
      write(all);
      apply(all);
    }
    var sec = sectionOf[S[D.f.r[p]]];
    if (!sec) { return; }
    var at = sec.list.indexOf(p);
    if (at >= sec.shown) { showMore(sec, at + 1); }
    var tr = document.getElementById(id);
    if (!tr) { return; }
    var det = tr.querySelector("details");
    if (det) {
      if (det.childNodes.length === 1) { details(p, det); }
      det.open = true;
    }
    tr.scrollIntoView({ block: "center" });
    tr.classList.add("flash");
  }
  function fromLocation() {
    var state = parseHash();
    if (state) {
      write(state);
      apply(state);
      var target = document.getElementById("findings");
      if (target && window.location.hash.length > 1) { target.scrollIntoView(); }
      return;
    }
    apply(read());
    var h = window.location.hash.replace(/^#/, "");
    if (/^f-\d+$/.test(h)) { reveal(h); }
  }

  // ---------------------------------------------------------------- start
  function setUp(doc) {
    D = doc;
    S = D.s;
    N = D.f.n.length;
    matched = new Uint8Array(N);
    for (var p = 0; p < N; p++) { posOfN[D.f.n[p]] = p; }
    var byRule = {};
    for (var q = 0; q < N; q++) {
      var r = S[D.f.r[q]];
      (byRule[r] = byRule[r] || []).push(q);
    }
    Array.prototype.forEach.call(document.querySelectorAll("div.rows[data-rule]"), function (box) {
      var sec = { el: box.closest("section.rule"), box: box,
                  ids: byRule[box.getAttribute("data-rule")] || [], shown: 0, list: [] };
      var t = table(["Severity", "Status", "Resource", "Finding"], "findings");
      sec.tbody = t.querySelector("tbody");
      box.appendChild(t);
      sec.more = moreButton(function () { showMore(sec, 0); });
      box.appendChild(sec.more);
      sections.push(sec);
      sectionOf[box.getAttribute("data-rule")] = sec;
    });
    if (resBox) {
      var t = table(["Resource", "Type", "Findings"], "grid res");
      res.tbody = t.querySelector("tbody");
      resBox.appendChild(t);
      res.more = moreButton(showMoreResources);
      resBox.appendChild(res.more);
    }
    var privBox = document.getElementById("priv-rows");
    if (privBox) { setUpPrivileged(privBox); }
    var timer = null;
    form.addEventListener("change", update);
    search.addEventListener("input", function () {
      if (timer) { window.clearTimeout(timer); }
      timer = window.setTimeout(update, 150);
    });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); update(); });
    document.getElementById("f-reset").addEventListener("click", function () {
      write(defaults());
      update();
    });
    window.addEventListener("hashchange", fromLocation);
    write(defaults());
    fromLocation();
    document.documentElement.setAttribute("data-ready", "1");
  }
  function bytes(b64) {
    if (typeof Uint8Array.fromBase64 === "function") { return Uint8Array.fromBase64(b64); }
    var bin = window.atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out;
  }
  function failed(err) {
    count.textContent = "The findings could not be read: " + err;
    document.documentElement.setAttribute("data-ready", "error");
  }
  try {
    var packed = bytes(block.content.textContent);
    var stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
    new Response(stream).text().then(function (text) {
      setUp(JSON.parse(text));
    }).catch(failed);
  } catch (err) {
    failed(err);
  }
})();
