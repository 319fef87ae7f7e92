// The quiz, enhanced: on the quiz page, Start posts from the page and its response has the
// first question; on a question, the answer form posts from the page and the answer's
// feedback comes back with what follows it, the next question or the results (_steps_json in
// quizzes/learning/views/pages.py), which "Next question" or "See your results" then shows without
// another request. The address bar always holds the shown page's own address, which works on
// its own; without this script, or when its request fails, a form posts as a plain form does
// and the server's pages take over.
"use strict";

(() => {
  const page = document.getElementById("step-page");
  if (!page || !window.fetch || !window.history.pushState) return;
  let next = null; // What follows the last answer, as its response gave it.
  // The page's CSRF token: the parts the server sends have none, so their forms get this one.
  const tokenField = page.querySelector("input[name=csrfmiddlewaretoken]");
  const token = tokenField && tokenField.value;
  let shownPath = location.pathname;

  const show = (part) => {
    page.innerHTML = part.main; // The server's HTML for this page, as its full load has it.
    document.title = part.title;
    if (!token) return;
    for (const field of page.querySelectorAll("input[name=csrfmiddlewaretoken]")) {
      field.value = token;
    }
  };

  // The page's links outside the part that carry its address (the other languages' versions,
  // the sign-in's way back) follow it to the new page's.
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

  // A new page in place, as a page load would show it: at its address, scrolled to the top,
  // its messages gone, and its heading focused, so that it is read out as a new title is.
  const go = (part) => {
    history.pushState(null, "", part.url);
    retarget(shownPath, part.url);
    shownPath = part.url;
    show(part);
    for (const messages of document.querySelectorAll("main > [role=status]")) messages.remove();
    window.scrollTo(0, 0);
    page.querySelector("h1").focus({ preventScroll: true });
  };

  // The form's POST, for JSON; null, after posting it as a plain form instead, when the
  // server refuses it (its page then says why), answers with anything else, or can't be
  // reached.
  const post = async (form) => {
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      const type = response.headers.get("Content-Type") || "";
      if (!response.ok || !type.startsWith("application/json")) throw new Error(response.status);
      return await response.json();
    } catch {
      form.submit();
      return null;
    }
  };

  page.addEventListener("submit", async (event) => {
    const form = event.target;
    const answering = form.matches("form.question-form");
    if (!answering && !form.matches("form.start-form")) return;
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    if (button.disabled) return;
    button.disabled = true; // One post per click (the server records one anyway).
    const reply = await post(form);
    if (!reply) return;
    if (!answering || !reply.feedback) {
      // Start's reply: the attempt's first open question; or an answer that came after the
      // attempt's deadline, not recorded: the results of the attempt as it stood.
      go(reply.next);
      return;
    }
    next = reply.next;
    history.replaceState(null, "", `${reply.feedback.url}#feedback`);
    show(reply.feedback);
    // As a page load at #feedback, focused so that its verdict is read out; scrolled to the
    // question's text instead when the text and the verdict fit on the screen together (the
    // scroll margins keep either just under "Question n of N").
    const feedback = document.getElementById("feedback");
    const prompt = document.getElementById("prompt");
    const verdict = feedback.querySelector(".verdict-bar").getBoundingClientRect();
    const bar = page.querySelector(".step").getBoundingClientRect().height;
    const together = verdict.bottom - prompt.getBoundingClientRect().top;
    (together <= window.innerHeight - bar ? prompt : feedback).scrollIntoView();
    feedback.focus({ preventScroll: true });
  });

  page.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-next]");
    const plain = event.button === 0 && !(event.metaKey || event.ctrlKey || event.shiftKey || event.altKey);
    if (!link || !plain || !next || link.getAttribute("href") !== next.url) return;
    event.preventDefault();
    go(next);
    next = null;
  });

  // Back or Forward to another page: the server's page for that address, as recorded now.
  window.addEventListener("popstate", () => {
    if (location.pathname !== shownPath) location.reload();
  });
})();
