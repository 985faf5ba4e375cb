"""Contrast of a site's theme colours (WCAG 2.x), as the site admin's preview shows it
(apps/tenants/static/tenants/admin/theme_preview.js computes the same live)."""

from __future__ import annotations

# The text colours the sites' stylesheet puts on the theme colours
# (static_src/scss/_site-theme.scss: --site-on-primary, --site-on-secondary).
TEXT_ON_PRIMARY = "#ffffff"
TEXT_ON_SECONDARY = "#212529"
# WCAG AA for normal text.
MIN_CONTRAST = 4.5


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    red, green, blue = (int(colour[index : index + 2], 16) for index in (1, 3, 5))
    return 0.2126 * _channel(red) + 0.7152 * _channel(green) + 0.0722 * _channel(blue)


def contrast_ratio(first: str, second: str) -> float:
    """(L1 + 0.05) / (L2 + 0.05) of two #rrggbb colours, the lighter on top."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
