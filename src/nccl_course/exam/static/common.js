/* Shared helpers for the exam and verify pages: escaping, a small markdown renderer (prompts
   and feedback are MyST markdown; math is left as written), and JSON requests. No CDN. */
"use strict";

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
  })[c]);
}

function renderInline(text) {
  // Escape first, then add the few inline marks the banks use.
  let html = escapeHtml(text);
  const codes = [];
  html = html.replace(/`([^`]+)`/g, (_, code) => { codes.push(`<code>${code}</code>`); return `\u0000${codes.length - 1}\u0000`; });
  // TeX is left for MathJax: keep * and _ inside $...$ away from the emphasis rules.
  html = html.replace(/\$\$[^$]+\$\$|\$[^$\n]+\$/g, (math) => { codes.push(math); return `\u0000${codes.length - 1}\u0000`; });
  html = html.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  html = html.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
  html = html.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
  return html;
}

function renderMarkdown(text) {
  const out = [];
  const lines = String(text || "").replace(/\r\n/g, "\n").split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) { out.push(`<p>${renderInline(para.join(" "))}</p>`); para = []; }
    if (list) { out.push(`<ul>${list.map((li) => `<li>${renderInline(li)}</li>`).join("")}</ul>`); list = null; }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)/);
    if (fence) {
      flush();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const item = line.match(/^\s*[-*]\s+(.*)$/);
    if (item) { if (para.length) flush(); list = list || []; list.push(item[1]); continue; }
    if (!line.trim()) { flush(); continue; }
    if (list) flush();
    para.push(line.trim());
  }
  flush();
  return out.join("\n");
}

async function requestJson(method, url, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
  });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : `HTTP ${response.status}`;
    const error = new Error(detail);
    error.status = response.status;
    error.code = data && data.error;
    throw error;
  }
  return data;
}

/* Math in prompts and feedback ($...$, $$...$$) is typeset by MathJax 3 when the server ships
   it (the same npm copy the book uses); without it the TeX stays readable as written. */
function loadMathJax(url) {
  if (!url || window.MathJax) return;
  window.MathJax = {
    tex: { inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]] },
    startup: { typeset: false },
  };
  const script = document.createElement("script");
  script.src = url;
  script.async = true;
  document.head.appendChild(script);
}

function typesetMath(element, tries = 0) {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise && mj.typesetPromise) {
    mj.startup.promise.then(() => mj.typesetPromise([element])).catch(() => {});
  } else if (mj && tries < 40) {
    setTimeout(() => typesetMath(element, tries + 1), 250);  // the script is still loading
  }
}
