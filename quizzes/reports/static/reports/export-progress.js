"use strict";
// Follows an export the task worker writes (templates/quizzes/reports/export.html): its
// progress read every second from progress.json, shown in the page's status and bar; once the
// export is done or failed, the page is loaded again and shows the file or the retry button.
// Without script, the page's "Reload" link does the same by hand.
(() => {
  const box = document.getElementById("export-progress");
  if (!box) return;
  const status = document.getElementById("export-status");
  const count = document.getElementById("export-count");
  const bar = document.getElementById("export-bar");
  const follow = async () => {
    try {
      const response = await fetch(box.dataset.progressUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.ok) {
        const progress = await response.json();
        if (progress.status === "done" || progress.status === "failed") {
          window.location.reload();
          return;
        }
        // The live status changes with the state only; the count, every second, is not live.
        if (status.textContent !== progress.text) status.textContent = progress.text;
        count.textContent = progress.count;
        bar.max = progress.rows_total || 1;
        bar.value = progress.rows_written;
        bar.textContent = `${progress.rows_written} / ${progress.rows_total ?? "?"}`;
      }
    } catch {
      // The network or the server is back at the next turn; the page stays as it was.
    }
    setTimeout(follow, 1000);
  };
  setTimeout(follow, 1000);
})();
