// An embed page in a guide's frame: tells the guide's page its height, so that embed.js
// fits the frame to it (a message of this page's height only, to whichever page frames it),
// and after "Connect your account" (a sign-in in a tab of its own) asks the browser to let
// the frame reach the site's own cookies (the Storage Access API, where the browser has
// it), then loads the page again, now with the account if the browser allowed it.
"use strict";

(() => {
  if (window.parent !== window && window.ResizeObserver) {
    let sent = 0;
    const send = () => {
      const style = getComputedStyle(document.body);
      const height = Math.ceil(
        document.body.getBoundingClientRect().height +
          parseFloat(style.marginTop) +
          parseFloat(style.marginBottom),
      );
      if (height === sent) return;
      sent = height;
      window.parent.postMessage({ quizsite: "height", height }, "*");
    };
    new ResizeObserver(send).observe(document.body);
    window.addEventListener("load", send);
  }

  // Links in the quiz's own texts (a prompt's, an explanation's) leave the quiz too, in
  // every step the page's script shows.
  document.addEventListener("click", (event) => {
    const link = event.target.closest(".rich a[href]");
    if (!link) return;
    link.target = "_blank";
    link.rel = "noopener";
  });

  const connect = document.querySelector(".connect-account");
  const show = document.querySelector(".show-account");
  if (!connect || !show) return;
  connect.addEventListener("click", () => {
    show.hidden = false;
  });
  show.addEventListener("click", async () => {
    if (document.requestStorageAccess) {
      try {
        await document.requestStorageAccess();
      } catch {
        // Refused: the page loads again as it was, its answers still in this browser.
      }
    }
    location.reload();
  });
})();
