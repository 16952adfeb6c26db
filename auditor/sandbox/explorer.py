"""The API explorer at ``/docs``: one self-contained page (no assets from the internet) that reads
``/openapi.json``, takes the tokens once in an Authorize box (``bearer`` for areas A-D, ``APIToken``
for area E, seed 5.2) and sends them on each call. Tokens stay in the page's memory only."""

from __future__ import annotations

EXPLORER_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>auditor sandbox - API explorer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2430; background: #f6f7f9; }
 header { background: #1d2430; color: #fff; padding: 12px 20px; display: flex; gap: 16px;
          align-items: center; flex-wrap: wrap; }
 header h1 { font-size: 17px; margin: 0 12px 0 0; }
 header input { width: 220px; padding: 4px 6px; }
 header button { padding: 4px 12px; }
 #auth-state { font-size: 12px; opacity: .8; }
 main { padding: 12px 20px; max-width: 1100px; }
 h2 { font-size: 15px; margin: 22px 0 6px; }
 details { background: #fff; border: 1px solid #d5d9e0; border-radius: 4px; margin: 6px 0; }
 summary { padding: 6px 10px; cursor: pointer; font-family: ui-monospace, monospace; }
 .m { display: inline-block; width: 64px; font-weight: 600; }
 .GET { color: #0b6bcb; } .PUT { color: #a35d00; } .POST { color: #1a7f37; }
 .DELETE { color: #c0271d; }
 form { padding: 8px 12px 12px; }
 label { display: block; margin: 4px 0; font-family: ui-monospace, monospace; font-size: 13px; }
 label input { width: 420px; }
 textarea { width: 100%; height: 140px; font-family: ui-monospace, monospace; }
 pre { background: #f0f2f5; padding: 8px; overflow: auto; max-height: 420px; }
</style>
</head>
<body>
<header>
 <h1>auditor sandbox</h1>
 <label>Bearer <input id="bearer" type="password" autocomplete="off"
        placeholder="token for areas A-D"></label>
 <label>APIToken <input id="apitoken" type="password" autocomplete="off"
        placeholder="X-API-Token for area E"></label>
 <button id="authorize" type="button">Authorize</button>
 <span id="auth-state">not authorized</span>
</header>
<main id="ops"><p>Loading /openapi.json ...</p></main>
<script>
"use strict";
const auth = { bearer: "", apiToken: "" };
document.getElementById("authorize").addEventListener("click", () => {
  const b = document.getElementById("bearer"), a = document.getElementById("apitoken");
  auth.bearer = b.value.trim(); auth.apiToken = a.value.trim();
  b.value = ""; a.value = "";
  const parts = [];
  if (auth.bearer) parts.push("bearer set");
  if (auth.apiToken) parts.push("APIToken set");
  document.getElementById("auth-state").textContent = parts.join(", ") || "not authorized";
});

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

function render(doc) {
  const root = document.getElementById("ops");
  root.textContent = "";
  const groups = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags || ["other"])[0];
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag).push([path, method.toUpperCase(), op]);
    }
  }
  for (const [tag, ops] of groups) {
    root.append(el("h2", {}, tag));
    for (const [path, method, op] of ops) root.append(operation(path, method, op));
  }
}

function operation(path, method, op) {
  const box = el("details", {});
  box.append(el("summary", {}, el("span", { class: "m " + method }, method), path,
                " - " + (op.summary || "")));
  const form = el("form", {});
  const inputs = [];
  for (const p of op.parameters || []) {
    const input = el("input", { name: p.name });
    const enumValues = (p.schema || {}).enum;
    if (enumValues && enumValues.length === 1) input.value = enumValues[0];
    inputs.push([p, input]);
    form.append(el("label", {}, p.name + " (" + p.in + (p.required ? ", required" : "") + ") ",
                   input));
  }
  let body = null;
  if (op.requestBody) {
    body = el("textarea", {});
    body.value = "{}";
    form.append(el("label", {}, "body (JSON)"), body);
  }
  const send = el("button", { type: "submit" }, "Send");
  const out = el("pre", {});
  form.append(send, out);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let url = path;
    const query = new URLSearchParams();
    for (const [p, input] of inputs) {
      if (p.in === "path") url = url.replace("{" + p.name + "}", encodeURIComponent(input.value));
      else if (p.in === "query" && input.value !== "") query.append(p.name, input.value);
    }
    const qs = query.toString();
    if (qs) url += "?" + qs;
    const headers = { "Accept": "application/json" };
    if (path.startsWith("/v0.1")) { if (auth.apiToken) headers["X-API-Token"] = auth.apiToken; }
    else if (auth.bearer) headers["Authorization"] = "Bearer " + auth.bearer;
    const init = { method, headers };
    if (body) { headers["Content-Type"] = "application/json"; init.body = body.value || "{}"; }
    out.textContent = method + " " + url + " ...";
    try {
      const response = await fetch(url, init);
      const text = await response.text();
      let shown = text;
      try { shown = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
      const interesting = ["location", "retry-after", "content-type"];
      const lines = [response.status + " " + response.statusText];
      for (const h of interesting) if (response.headers.get(h)) lines.push(h + ": " +
                                                                      response.headers.get(h));
      out.textContent = lines.join("\\n") + "\\n\\n" + shown;
    } catch (e) {
      out.textContent = "request failed: " + e;
    }
  });
  box.append(form);
  return box;
}

fetch("/openapi.json").then((r) => r.json()).then(render).catch((e) => {
  document.getElementById("ops").textContent = "could not load /openapi.json: " + e;
});
</script>
</body>
</html>
"""
