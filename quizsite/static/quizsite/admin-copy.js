"use strict";
// A Copy button after each embed snippet's box (templates/admin/quizzes/_embed_snippets.html):
// it copies the box's text and says so in a status line. Without script, or where the
// browser refuses the clipboard, the box's text is there to select and copy.
(() => {
  const script = document.currentScript;
  const texts = { copy: script.dataset.copy, copied: script.dataset.copied };
  const enhance = () => {
    for (const box of document.querySelectorAll("textarea.embed-snippet")) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button embed-copy";
      button.textContent = texts.copy;
      button.setAttribute("aria-describedby", `${box.id}-label`);
      const status = document.createElement("span");
      status.className = "embed-copied";
      status.setAttribute("role", "status");
      button.addEventListener("click", async () => {
        status.textContent = "";
        try {
          await navigator.clipboard.writeText(box.value);
          status.textContent = texts.copied;
        } catch {
          box.focus();
          box.select();
        }
      });
      box.after(button, status);
    }
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", enhance);
  } else {
    enhance();
  }
})();
