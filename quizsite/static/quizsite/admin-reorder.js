"use strict";
// The keyboard's way to reorder the admin's sortable inlines (questions in a quiz, choices
// in a question). django-admin-sortable2 gives dragging and "first" / "last" marks a mouse
// can click; each saved row gets Move up and Move down buttons here, which move the row,
// renumber the hidden positions as a drag does, keep the focus on the button and say where
// the row went; a row's fields are labelled by their column. The texts come in this script's data attributes (quizzes/admin/forms.py).
{
  const texts = document.currentScript.dataset;

  const rowsOf = (fieldset) => [...fieldset.querySelectorAll("tbody tr.has_original")];

  const renumber = (fieldset) => {
    rowsOf(fieldset).forEach((row, index) => {
      row.querySelector("input._reorder_").value = `${index + 1}`;
    });
  };

  const move = (button, step) => {
    const fieldset = button.closest("fieldset.sortable");
    const rows = rowsOf(fieldset);
    const row = button.closest("tr");
    const index = rows.indexOf(row);
    const target = rows[index + step];
    if (!target) return;
    target.insertAdjacentElement(step < 0 ? "beforebegin" : "afterend", row);
    renumber(fieldset);
    button.focus();
    fieldset.querySelector(".reorder-status").textContent = texts.moved
      .replace("%(position)s", `${index + step + 1}`)
      .replace("%(count)s", `${rows.length}`);
  };

  const button = (label, name, step) => {
    const element = document.createElement("button");
    element.type = "button";
    element.className = `reorder-button reorder-${step < 0 ? "up" : "down"}`;
    element.textContent = label;
    element.setAttribute("aria-label", `${label}: ${name}`);
    element.addEventListener("click", () => move(element, step));
    return element;
  };

  window.addEventListener("load", () => {
    for (const fieldset of document.querySelectorAll("fieldset.sortable")) {
      // The column of the rows' names and buttons has an empty header cell.
      for (const header of fieldset.querySelectorAll("thead th.original")) {
        const name = document.createElement("span");
        name.className = "visually-hidden";
        name.textContent = texts.order;
        header.append(name);
      }
      // A row's fields are named by their column's header (Django's tabular inlines give them
      // no label of their own): "Text [en]", "Correct"…
      const headers = [...fieldset.querySelectorAll("thead th")];
      headers.forEach((header, index) => { header.id ||= `${fieldset.id || "inline"}-column-${index}`; });
      for (const row of fieldset.querySelectorAll("tbody tr.form-row")) {
        [...row.children].forEach((cell, index) => {
          const header = headers[index];
          for (const field of cell.querySelectorAll("input:not([type=hidden]), textarea, select")) {
            if (header && !field.labels?.length && !field.hasAttribute("aria-labelledby")) {
              field.setAttribute("aria-labelledby", header.id);
            }
          }
        });
      }
      const status = document.createElement("p");
      status.className = "reorder-status";
      status.setAttribute("role", "status");
      fieldset.append(status);
      for (const row of rowsOf(fieldset)) {
        const cell = row.querySelector("td.original p");
        // The row's name in a span of its own, cut with an ellipsis on the one line it has.
        const name = cell.firstChild.textContent.trim();
        const label = document.createElement("span");
        label.className = "reorder-name";
        label.textContent = name;
        cell.firstChild.replaceWith(label);
        const buttons = document.createElement("span");
        buttons.className = "reorder-buttons";
        buttons.append(button(texts.up, name, -1), button(texts.down, name, 1));
        cell.append(buttons);
      }
      renumber(fieldset);
    }
  });
}
