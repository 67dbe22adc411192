/* Set-up for the ipywidgets embed manager the book ships in _static/vendor/html-manager/
   (nccl_course.book.offline_assets). It runs after require.js and before embed-amd.js.

   1. The manager finds its fonts and images next to the URL require.js gives its module. That
      URL is derived from the module's name, so without a path for the name it points at
      PAGE_FOLDER/@jupyter-widgets/html-manager/dist/, which does not exist (404 per font).
   2. Widgets typeset their labels with the MathJax 2 call MathJax.Hub.Queue(...); the book
      loads MathJax 3, which has no Hub, so every widget threw "reading 'Queue'". A Hub whose
      Queue asks MathJax 3 to typeset the element keeps math in labels working. */
(function () {
  "use strict";
  var dist = new URL("vendor/html-manager", document.currentScript.src).href;
  window.requirejs.config({ paths: { "@jupyter-widgets/html-manager/dist": dist } });

  function typeset(element) {
    var mj = window.MathJax;
    if (!element || !mj || !mj.typesetPromise) return;
    var ready = mj.startup && mj.startup.promise ? mj.startup.promise : Promise.resolve();
    ready.then(function () { return mj.typesetPromise([element]); }).catch(function () {});
  }

  // MathJax 3 (a deferred script) has replaced its configuration object by now; widgets render
  // at "load", after this event.
  document.addEventListener("DOMContentLoaded", function () {
    var mj = window.MathJax || (window.MathJax = {});
    if (mj.Hub) return;
    mj.Hub = {
      Queue: function () {
        Array.prototype.forEach.call(arguments, function (command) {
          if (Array.isArray(command) && command[0] === "Typeset") typeset(command[2]);
        });
      },
    };
  });
})();
