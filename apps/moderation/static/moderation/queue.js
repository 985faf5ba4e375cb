/* Keyboard shortcuts of the photo moderation queue (templates/admin/moderation/
   photoreview/queue.html). The page works without this file: plain forms and links.
   A approve, 1-9 choose a reason, R reject, J/K next/previous, N note, Esc leave the
   note. Keys typed into a text field are left alone. */
(function () {
  "use strict";

  function typing(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName.toLowerCase();
    if (tag === "textarea" || tag === "select" || target.isContentEditable) return true;
    return tag === "input" && !/^(radio|checkbox|button|submit)$/i.test(target.type || "");
  }

  function submitOnce(form) {
    if (!form || form.dataset.sent) return;
    if (form.reportValidity && !form.reportValidity()) return;
    form.dataset.sent = "1";
    var buttons = form.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true;
    form.submit();
  }

  function follow(id) {
    var link = document.getElementById(id);
    if (link) window.location.assign(link.href);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var site = document.querySelector("select[data-autosubmit]");
    if (site) {
      site.addEventListener("change", function () {
        site.form.submit();
      });
    }
    var approve = document.getElementById("queue-approve");
    var reject = document.getElementById("queue-reject");
    var note = document.getElementById("queue-note");
    var hint = document.getElementById("queue-reject-hint");
    if (reject) {
      reject.addEventListener("submit", function (event) {
        // The browser checks the reason too; keep the hint in the page's language.
        if (!reject.querySelector("input[name=reason]:checked")) {
          event.preventDefault();
          if (hint) hint.textContent = hint.dataset.message || "";
        }
      });
    }

    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (typing(event.target)) {
        if (event.key === "Escape" && event.target === note) note.blur();
        return;
      }
      var key = event.key.toLowerCase();
      if (key === "a" && approve) {
        event.preventDefault();
        submitOnce(approve);
      } else if (key === "r" && reject) {
        event.preventDefault();
        if (reject.querySelector("input[name=reason]:checked")) {
          submitOnce(reject);
        } else {
          var first = reject.querySelector("input[name=reason]");
          if (first) first.focus();
          if (hint) hint.textContent = hint.dataset.message || "";
        }
      } else if (/^[1-9]$/.test(key) && reject) {
        var radio = reject.querySelector('input[name=reason][data-digit="' + key + '"]');
        if (radio) {
          event.preventDefault();
          radio.checked = true;
          radio.focus();
          if (hint) hint.textContent = "";
        }
      } else if (key === "j") {
        event.preventDefault();
        follow("queue-next");
      } else if (key === "k") {
        event.preventDefault();
        follow("queue-previous");
      } else if (key === "n" && note) {
        event.preventDefault();
        note.focus();
      }
    });
  });
})();
