// The site admin's live theme preview (apps.tenants.admin.SiteAdmin.theme_preview): as the
// operator edits the primary and secondary colours, the box shows the top bar, a primary
// button, a secondary badge and the contrast of the text on the primary colour, with a
// warning below 4.5:1 (WCAG AA). Colours are set through the CSSOM (no inline style in
// the markup: the admin runs under the Content Security Policy). apps/tenants/theme.py
// computes the same ratio on the server.
(function () {
  "use strict";

  var HEX = /^#[0-9a-fA-F]{6}$/;
  var MIN_CONTRAST = 4.5;

  function channel(value) {
    var c = value / 255;
    return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
  }

  function luminance(hex) {
    var r = parseInt(hex.slice(1, 3), 16);
    var g = parseInt(hex.slice(3, 5), 16);
    var b = parseInt(hex.slice(5, 7), 16);
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  }

  function contrast(first, second) {
    var a = luminance(first);
    var b = luminance(second);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }

  function init() {
    var box = document.querySelector("[data-theme-preview]");
    var primary = document.getElementById("id_theme_primary");
    var secondary = document.getElementById("id_theme_secondary");
    if (!box || !primary || !secondary) return;
    var onPrimary = box.getAttribute("data-on-primary");
    var onSecondary = box.getAttribute("data-on-secondary");
    var part = function (name) {
      return box.querySelector('[data-preview="' + name + '"]');
    };
    var topbar = part("topbar");
    var button = part("button");
    var badge = part("badge");
    var ratio = part("ratio");
    var warning = part("warning");
    var invalid = part("invalid");

    function update() {
      var p = primary.value.trim();
      var s = secondary.value.trim();
      var valid = HEX.test(p) && HEX.test(s);
      invalid.hidden = valid;
      if (!valid) return;
      topbar.style.backgroundColor = p;
      topbar.style.color = onPrimary;
      button.style.backgroundColor = p;
      button.style.borderColor = p;
      button.style.color = onPrimary;
      badge.style.backgroundColor = s;
      badge.style.color = onSecondary;
      var value = contrast(p, onPrimary);
      // Rounded down, so 4.49 never shows as 4.5.
      ratio.textContent = (Math.floor(value * 100) / 100).toFixed(2) + ":1";
      warning.hidden = value >= MIN_CONTRAST;
    }

    primary.addEventListener("input", update);
    secondary.addEventListener("input", update);
    update();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
