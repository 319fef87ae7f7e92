"use strict";
// Reloads a page that waits for work done elsewhere (the admin's background import,
// templates/admin/quizzes/quiz/import_progress.html) every few seconds, until the page the
// server sends no longer loads this script. Without script, the page's "Reload now" link
// does the same; a meta refresh would do it for everyone, but takes the pace out of the
// reader's hands (WCAG 2.2.1), which axe-core reports.
setTimeout(() => window.location.reload(), 3000);
