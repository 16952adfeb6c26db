/* Filters and search of the HTML report. The filter state lives in the URL hash
   (#sev=critical,high&status=fail&rule=DOM-001&q=text) so a filtered view can be bookmarked or
   shared; a hash naming a finding (#f-12) shows and opens that finding. Allowed by the page's
   Content-Security-Policy through this script's SHA-256; no other script can run. */
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form) { return; }
  document.documentElement.classList.add("js");
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.finding"));
  var chips = Array.prototype.slice.call(document.querySelectorAll("a.chip"));
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.rule"));
  var resRows = Array.prototype.slice.call(document.querySelectorAll("tr.resrow"));
  var count = document.getElementById("f-count");
  var ruleSel = document.getElementById("f-rule");
  var search = document.getElementById("f-q");
  var texts = null;
  var ruleOf = rows.map(function (r) {
    var s = r.closest("section.rule");
    return s ? s.getAttribute("data-rule") : "";
  });
  var KEYS = ["sev", "status", "rule", "q"];

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
  function matches(el, state, i, words) {
    var d = el.dataset;
    if (state.sev.indexOf(d.sev) < 0 || state.status.indexOf(d.status) < 0) { return false; }
    if (state.rule && ruleOf[i] !== state.rule) { return false; }
    if (words.length && i >= 0) {
      if (texts === null) {
        texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
      }
      for (var w = 0; w < words.length; w++) {
        if (texts[i].indexOf(words[w]) < 0) { return false; }
      }
    }
    return true;
  }
  function apply(state) {
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    var visibleIds = {};
    rows.forEach(function (r, i) {
      var ok = matches(r, state, i, words);
      if (r.hidden === ok) { r.hidden = !ok; }
      if (ok) { shown += 1; visibleIds[r.id] = true; }
    });
    sections.forEach(function (s) {
      var none = !s.querySelector("tr.finding:not([hidden])");
      if (s.hidden !== none) { s.hidden = none; }
    });
    chips.forEach(function (c) {
      var off = !visibleIds[c.getAttribute("href").slice(1)];
      if (c.hidden !== off) { c.hidden = off; }
    });
    resRows.forEach(function (r) {
      var none = !r.querySelector("a.chip:not([hidden])");
      if (r.hidden !== none) { r.hidden = none; }
    });
    count.textContent = shown + " of " + rows.length + " findings shown";
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
    var row = document.getElementById(id);
    if (!row || !row.classList.contains("finding")) { return; }
    if (row.hidden) {
      var all = defaults();
      all.status = boxes("status").map(function (b) { return b.value; });
      write(all);
      apply(all);
    }
    var det = row.querySelector("details");
    if (det) { det.open = true; }
    row.scrollIntoView({ block: "center" });
    row.classList.add("flash");
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
    var h = window.location.hash.replace(/^#/, "");
    var state0 = read();
    apply(state0);
    if (/^f-\d+$/.test(h)) { reveal(h); }
  }

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
})();
