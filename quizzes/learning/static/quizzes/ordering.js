// An ordering question, enhanced: its items move by dragging their handle or with their Move
// up and Move down buttons, each move read out ("Moved to position 2 of 5."); the position
// boxes give way to hidden fields the form posts, which follow the items' order. Without this
// script the boxes are the answer.
// The question page's script (step.js) swaps questions in place: items shown later are
// enhanced when they appear.
"use strict";

(() => {
  const boxOf = (item) => item.querySelector("[name=choice]");

  const sync = (list) => {
    const items = [...list.children];
    items.forEach((item, index) => {
      const box = boxOf(item);
      box.value = `${box.id.replace("position-", "")}:${index + 1}`;
      // aria-disabled, not disabled: a disabled button would lose the keyboard's focus.
      item.querySelector("[data-move=up]").ariaDisabled = index === 0;
      item.querySelector("[data-move=down]").ariaDisabled = index === items.length - 1;
    });
  };

  const announce = (list, item) => {
    const items = [...list.children];
    const status = list.parentElement.querySelector("[data-ordering-status]");
    const text = item.querySelector(".ordering-text").textContent.trim();
    const moved = list.dataset.announce
      .replace("{position}", items.indexOf(item) + 1)
      .replace("{total}", items.length);
    status.textContent = `${text}: ${moved}`;
  };

  const move = (button) => {
    const item = button.closest("li");
    const list = item.parentElement;
    if (button.ariaDisabled === "true") return;
    // The neighbour moves, not the item: moving the focused button's item would blur it.
    if (button.dataset.move === "up" && item.previousElementSibling) {
      list.insertBefore(item.previousElementSibling, item.nextElementSibling);
    } else if (button.dataset.move === "down" && item.nextElementSibling) {
      list.insertBefore(item.nextElementSibling, item);
    }
    sync(list);
    announce(list, item);
    button.focus();
  };

  // The pointer is followed on the document: the item it drags moves in the list, which
  // would release a capture on its handle.
  const drag = (handle) => {
    const item = handle.closest("li");
    const list = item.parentElement;
    item.classList.add("is-dragged");
    const follow = (event) => {
      const after = [...list.children].find((other) => {
        if (other === item) return false;
        const box = other.getBoundingClientRect();
        return event.clientY < box.top + box.height / 2;
      });
      list.insertBefore(item, after || null);
    };
    const drop = () => {
      document.removeEventListener("pointermove", follow);
      document.removeEventListener("pointerup", drop);
      document.removeEventListener("pointercancel", drop);
      item.classList.remove("is-dragged");
      sync(list);
      announce(list, item);
    };
    document.addEventListener("pointermove", follow);
    document.addEventListener("pointerup", drop);
    document.addEventListener("pointercancel", drop);
  };

  const enhance = (root) => {
    for (const list of root.querySelectorAll("ol[data-ordering]:not([data-enhanced])")) {
      list.dataset.enhanced = "";
      for (const item of list.children) {
        const box = boxOf(item);
        const field = Object.assign(document.createElement("input"), {
          type: "hidden",
          name: box.name,
          id: box.id,
          value: box.value,
        });
        item.querySelector(".ordering-position").replaceWith(field);
        item.querySelector(".ordering-moves").hidden = false;
        const handle = document.createElement("span");
        handle.className = "ordering-handle";
        handle.setAttribute("aria-hidden", "true");
        handle.textContent = "⠿";
        item.prepend(handle);
      }
      for (const note of list.parentElement.querySelectorAll("[data-ordering-note]")) {
        note.hidden = !note.hidden;
      }
      // The boxes' positions, as a refused answer posted them, give the items' first order.
      const place = (item) => Number(boxOf(item).value.split(":")[1]);
      for (const item of [...list.children].sort((a, b) => place(a) - place(b))) {
        list.append(item);
      }
      sync(list);
    }
  };

  document.addEventListener("click", (event) => {
    const button = event.target.closest("ol[data-enhanced] button[data-move]");
    if (button) move(button);
  });
  document.addEventListener("pointerdown", (event) => {
    const handle = event.target.closest("ol[data-enhanced] .ordering-handle");
    if (handle && event.button === 0) {
      event.preventDefault();
      drag(handle);
    }
  });
  enhance(document);
  new MutationObserver(() => enhance(document)).observe(document.body, {
    childList: true,
    subtree: true,
  });
})();
