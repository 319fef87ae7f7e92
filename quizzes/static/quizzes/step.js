// The question page, enhanced: the answer form posts from the page, the answer's feedback and
// the next question come back in one response (_steps_json in quizzes/views/learner.py), and
// "Next question" shows that question without another request. The address bar always holds
// the shown page's own address, which works on its own; without this script, or when its
// request fails, the form posts as a plain form does and the server's pages take over.
"use strict";

(() => {
  const page = document.getElementById("step-page");
  if (!page || !window.fetch || !window.history.pushState) return;
  let next = null; // The next question, as the last answer's response gave it.
  // The page's CSRF token: the parts the server sends have none, so each form gets this one.
  const tokenField = () => page.querySelector("input[name=csrfmiddlewaretoken]");
  const token = tokenField() && tokenField().value;
  let shownPath = location.pathname;

  const show = (part) => {
    page.innerHTML = part.main; // The server's HTML for this step, as its full page has it.
    document.title = part.title;
  };

  // The page's links outside the step that carry its address (the other languages' versions,
  // the sign-in's way back) follow it to the next question's.
  const retarget = (from, to) => {
    const tail = (path) => path.replace(/^\/[^/]+/, ""); // Without the language prefix.
    const [old, now] = [tail(from), tail(to)];
    for (const link of document.querySelectorAll("a[href], link[rel=alternate]")) {
      const href = link.getAttribute("href");
      if (!page.contains(link) && href.includes(old)) {
        link.setAttribute("href", href.replace(old, now));
      }
    }
  };

  page.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!form.matches("form.question-form")) return;
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    if (button.disabled) return;
    button.disabled = true; // One answer per click (the server records one anyway).
    if (token) form.elements.csrfmiddlewaretoken.value = token;
    let step;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      const type = response.headers.get("Content-Type") || "";
      if (!response.ok || !type.startsWith("application/json")) throw new Error(response.status);
      step = await response.json();
    } catch {
      form.submit(); // As without the script: the server's page says what happened.
      return;
    }
    next = step.next;
    history.replaceState(null, "", `${step.feedback.url}#feedback`);
    show(step.feedback);
    // As a page load at #feedback: scrolled to it (its scroll margin keeps the question's
    // number in view), and focused, so that its verdict is read out.
    const feedback = document.getElementById("feedback");
    feedback.scrollIntoView();
    feedback.focus({ preventScroll: true });
  });

  page.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-next]");
    const plain = event.button === 0 && !(event.metaKey || event.ctrlKey || event.shiftKey || event.altKey);
    if (!link || !plain || !next || link.getAttribute("href") !== next.url) return;
    event.preventDefault();
    history.pushState(null, "", next.url);
    retarget(shownPath, next.url);
    shownPath = next.url;
    show(next);
    next = null;
    window.scrollTo(0, 0);
    // Its heading is read out, as a new page's title would be.
    document.getElementById("step").focus({ preventScroll: true });
  });

  // Back or Forward to another step: the server's page for that address, as recorded now.
  window.addEventListener("popstate", () => {
    if (location.pathname !== shownPath) location.reload();
  });
})();
