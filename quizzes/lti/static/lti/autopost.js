// The deep linking response goes back to the LMS by itself; without script, its button.
document.querySelectorAll("form[data-autopost]").forEach((form) => form.submit());
