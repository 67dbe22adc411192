// ESLint for the browser scripts the package ships (src/nccl_course/*/static/*.js): `make lint`.
// Only hand-written code is linted: the vendored libraries (MathJax, require.js, uPlot, the
// widgets manager) stay in node_modules/ (ignored by ESLint itself) and are copied into the
// build folders, ignored below with the rest of what .gitignore keeps out of the repository.
import js from "@eslint/js";
import globals from "globals";

// The exam pages load common.js first, then share.js (exam and verify pages), then the page's
// own script, as classic scripts sharing one global scope (server/static/*.html). These are the
// functions common.js and share.js declare for the scripts after them.
const examCommon = Object.fromEntries(
  [
    "S",
    "pageStrings",
    "pageLanguage",
    "withLanguage",
    "formatNumber",
    "formatPercent",
    "formatTime",
    "formatDate",
    "escapeHtml",
    "renderInline",
    "renderMarkdown",
    "requestJson",
    "loadMathJax",
    "typesetMath",
  ].map((name) => [name, "readonly"]),
);
const examShare = { showShareLinks: "readonly" };

export default [
  {
    ignores: [
      "_build/",
      "**/_static/vendor/",
      ".venv/",
      ".venv-sky/",
      "var/",
      ".data/",
      "results/",
      "bench-results/",
      ".jupyter_cache/",
    ],
  },
  js.configs.recommended,
  {
    rules: {
      // An error a script ignores on purpose is still named (`catch (err) {}`): the ES5 scripts
      // (nccl-progress.js, nccl-quiz.js...) cannot drop the name, `catch {}` being ES2019.
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
  {
    files: ["src/**/static/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser } },
  },
  {
    // Also loadable in Node (tests): `if (typeof module ... && module.exports) module.exports = api`.
    files: [
      "src/nccl_course/book/static/nccl-progress.js",
      "src/nccl_course/quiz/static/nccl-quiz.js",
      "src/nccl_course/viz/static/cost-model.js",
    ],
    languageOptions: { globals: { module: "readonly" } },
  },
  {
    // uPlot comes from the vendored uPlot script the page loads before this one.
    files: ["src/nccl_course/viz/static/nccl-explorers.js"],
    languageOptions: { globals: { uPlot: "readonly" } },
  },
  {
    files: [
      "src/nccl_course/server/static/share.js",
      "src/nccl_course/server/static/confirm.js",
      "src/nccl_course/server/static/exam.js",
      "src/nccl_course/server/static/verify.js",
    ],
    languageOptions: { globals: examCommon },
  },
  {
    files: ["src/nccl_course/server/static/exam.js", "src/nccl_course/server/static/verify.js"],
    languageOptions: { globals: examShare },
  },
  {
    // Their top-level functions are used by the scripts loaded after them (above), which ESLint,
    // linting one file at a time, cannot see: check only what is local to a function.
    files: ["src/nccl_course/server/static/common.js", "src/nccl_course/server/static/share.js"],
    rules: { "no-unused-vars": ["error", { vars: "local", caughtErrors: "none" }] },
  },
  {
    // renderInline() marks code spans and math with NUL characters (\u0000), which no prompt
    // contains, and puts them back with a regular expression that matches them on purpose.
    files: ["src/nccl_course/server/static/common.js"],
    rules: { "no-control-regex": "off" },
  },
];
