// Quizsite's embed script, for guides' pages (docs/embedding.md):
//   <script src="https://QUIZSITE/embed.js" data-quiz="https://QUIZSITE/en/embed/quizzes/SLUG/" async></script>
// puts the quiz's frame where the script is; and every
//   <a class="quizsite-embed" href="https://QUIZSITE/en/embed/quizzes/SLUG/">Take the quiz</a>
// on the page becomes the frame of its address (a page with several needs the script once).
// The frame's height follows its content: the frame's page posts its height, which is taken
// only from Quizsite's origin and from that frame, and kept between MIN and MAX pixels.
"use strict";

(() => {
  const MIN = 150;
  const MAX = 5000;
  const START = 600;
  const script = document.currentScript;
  const site = new URL(script ? script.src : location.href).origin;
  const frames = new Map(); // contentWindow → iframe

  const frameFor = (address, title) => {
    let url;
    try {
      url = new URL(address, location.href);
    } catch {
      return null;
    }
    if (url.origin !== site || !/^\/[^/]+\/embed\//.test(url.pathname)) return null;
    const frame = document.createElement("iframe");
    frame.src = url.href;
    frame.title = title || "Quizsite";
    frame.loading = "lazy";
    frame.style.width = "100%";
    frame.style.border = "0";
    frame.style.display = "block";
    frame.height = String(START);
    return frame;
  };

  const keep = (frame) => {
    // Its window exists once the frame is in the page.
    frames.set(frame.contentWindow, frame);
  };

  const place = () => {
    for (const link of document.querySelectorAll("a.quizsite-embed[href]")) {
      const frame = frameFor(link.getAttribute("href"), link.textContent.trim());
      if (!frame) continue;
      link.replaceWith(frame);
      keep(frame);
    }
    if (script && script.dataset.quiz) {
      const frame = frameFor(script.dataset.quiz, script.dataset.title);
      if (frame && script.parentNode) {
        script.parentNode.insertBefore(frame, script);
        keep(frame);
      }
    }
  };

  window.addEventListener("message", (event) => {
    if (event.origin !== site) return;
    const frame = frames.get(event.source);
    const data = event.data;
    if (!frame || !data || data.quizsite !== "height") return;
    const height = Number(data.height);
    if (!Number.isFinite(height)) return;
    frame.height = String(Math.round(Math.min(MAX, Math.max(MIN, height))));
  });

  // `async` may run it before the page is read to its end (placeholders further down).
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", place);
  } else {
    place();
  }
})();
