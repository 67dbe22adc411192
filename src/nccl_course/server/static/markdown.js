/* The exam page's prompts and feedback (MyST markdown, from the question banks) as HTML: a small
   markdown renderer that escapes everything first (escapeHtml, nccl-page.js) and leaves math
   as written, and MathJax 3 to typeset that math when the server ships it. No CDN. */
"use strict";

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

/* Paragraphs, "-" lists and fenced code. As in Markdown, a line break inside a paragraph or a
   list item is not a paragraph break: YAML block scalars wrap long feedback over several lines,
   and a wrapped line continues its item (a lazy continuation line). A blank line followed by an
   indented line starts a second paragraph in the same item. */
function renderMarkdown(text) {
  const out = [];
  const lines = String(text || "").replace(/\r\n/g, "\n").split("\n");
  let para = [];     // lines of the open paragraph
  let list = null;   // items of the open list; an item is a list of paragraphs (lists of lines)
  let blank = false; // a blank line since the last line of the open list
  const closePara = () => {
    if (para.length) out.push(`<p>${renderInline(para.join(" "))}</p>`);
    para = [];
  };
  const renderItem = (item) => (item.length === 1 ? renderInline(item[0].join(" "))
    : item.map((lines) => `<p>${renderInline(lines.join(" "))}</p>`).join(""));
  const closeList = () => {
    if (list) out.push(`<ul>${list.map((item) => `<li>${renderItem(item)}</li>`).join("")}</ul>`);
    list = null;
    blank = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)/);
    if (fence) {
      closePara();
      closeList();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
      continue;
    }
    const item = line.match(/^\s*[-*]\s+(.*)$/);
    if (item) {
      closePara();
      list = list || [];
      list.push([[item[1]]]);
      blank = false;
      continue;
    }
    if (!line.trim()) {
      if (list) blank = true; else closePara();
      continue;
    }
    if (list) {
      const last = list[list.length - 1];
      if (!blank) { last[last.length - 1].push(line.trim()); continue; }
      if (/^\s{2,}\S/.test(line)) { last.push([line.trim()]); blank = false; continue; }
      closeList();
    }
    para.push(line.trim());
  }
  closePara();
  closeList();
  return out.join("\n");
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

function typesetMath(box, tries = 0) {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise && mj.typesetPromise) {
    mj.startup.promise.then(() => mj.typesetPromise([box])).catch(() => {});
  } else if (mj && tries < 40) {
    setTimeout(() => typesetMath(box, tries + 1), 250);  // the script is still loading
  }
}
