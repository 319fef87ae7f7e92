// An assignment's time limit, counted down: the server sends the seconds left by its own
// clock (the only one that counts), and this counts them on the browser's monotonic clock
// (performance.now), so that a clock set back or forward in the browser changes nothing.
// At zero the page goes to the results, where the server submits the attempt as it stood;
// an answer posted after the deadline is refused there anyway. Without this script the page
// shows the deadline as a time.
"use strict";

(() => {
  const box = document.getElementById("countdown");
  if (!box) return;
  const text = box.querySelector(".countdown-text");
  const results = box.dataset.results;
  const label = box.dataset.timeLeft;
  // A second more than the server's count, so that the results are asked for after the
  // deadline by the server's clock, however long the page took to come.
  const end = performance.now() + (Number(box.dataset.secondsLeft) + 1) * 1000;
  const shown = (seconds) => {
    const minutes = Math.floor(seconds / 60);
    const rest = String(seconds % 60).padStart(2, "0");
    return label.replace("{time}", `${minutes}:${rest}`);
  };
  let timer = null;
  const tick = () => {
    if (location.pathname === results) {
      // The last answer's results are shown (the step script): the attempt is finished.
      box.remove();
      clearInterval(timer);
      return;
    }
    const left = Math.max(0, Math.ceil((end - performance.now()) / 1000) - 1);
    text.textContent = shown(left);
    box.classList.toggle("is-short", left <= 60);
    if (end - performance.now() <= 0) {
      clearInterval(timer);
      location.assign(results);
    }
  };
  tick();
  timer = setInterval(tick, 250);
})();
