/* The spoken overview's player (nccl_course.narration.sphinx_directive).
 *
 * The page carries an <audio controls> element, so the overview plays without this script.
 * With it, the browser's controls give way to the course's: a play/pause button, a position
 * slider (arrow keys move a second), the time, and a speed menu. Its labels go through S() of
 * the course's library (nccl-page.js, loaded before this script): a translated page carries them
 * in its language as JSON (<script class="nccl-narration-strings">). Nothing plays until the
 * reader asks (no autoplay).
 */
(function () {
  "use strict";

  function clock(seconds) {
    var whole = Math.max(0, Math.round(seconds || 0));
    var s = whole % 60;
    return Math.floor(whole / 60) + ":" + (s < 10 ? "0" : "") + s;
  }

  function setUp(player) {
    var audio = player.querySelector("audio");
    var controls = player.querySelector(".nccl-narration-controls");
    if (!audio || !controls) return;
    var button = controls.querySelector(".nccl-narration-play");
    var icon = controls.querySelector(".nccl-narration-icon");
    var seek = controls.querySelector(".nccl-narration-seek");
    var current = controls.querySelector(".nccl-narration-current");
    var speed = controls.querySelector(".nccl-narration-speed");
    var total = parseFloat(player.getAttribute("data-duration")) || 0;
    var dragging = false;

    audio.removeAttribute("controls");
    audio.hidden = true;
    controls.hidden = false;

    function totalSeconds() {
      return isFinite(audio.duration) && audio.duration > 0 ? audio.duration : total;
    }

    function showTime() {
      var now = audio.currentTime || 0;
      current.textContent = clock(now);
      if (!dragging) seek.value = String(Math.floor(now));
      seek.setAttribute(
        "aria-valuetext",
        S("{current} of {total}", { current: clock(now), total: clock(totalSeconds()) })
      );
    }

    function showState() {
      var playing = !audio.paused && !audio.ended;
      button.setAttribute(
        "aria-label",
        playing ? S("Pause the spoken overview") : S("Play the spoken overview")
      );
      button.classList.toggle("nccl-narration-playing", playing);
      icon.textContent = playing ? "❚❚" : "▶";
    }

    button.addEventListener("click", function () {
      if (audio.paused || audio.ended) {
        var started = audio.play();
        if (started && started.catch) started.catch(function () { showState(); });
      } else {
        audio.pause();
      }
    });
    seek.addEventListener("input", function () {
      dragging = true;
      current.textContent = clock(parseFloat(seek.value));
    });
    seek.addEventListener("change", function () {
      dragging = false;
      audio.currentTime = parseFloat(seek.value) || 0;
      showTime();
    });
    speed.addEventListener("change", function () {
      audio.playbackRate = parseFloat(speed.value) || 1;
    });
    audio.addEventListener("loadedmetadata", function () {
      seek.max = String(Math.round(totalSeconds()));
      showTime();
    });
    audio.addEventListener("timeupdate", showTime);
    audio.addEventListener("play", showState);
    audio.addEventListener("pause", showState);
    audio.addEventListener("ended", showState);
    audio.addEventListener("ratechange", function () {
      speed.value = String(audio.playbackRate);
    });
    showState();
  }

  function start() {
    var players = document.querySelectorAll(".nccl-narration-player");
    for (var i = 0; i < players.length; i++) setUp(players[i]);
  }

  onReady(start);
})();
